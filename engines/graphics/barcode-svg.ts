// One-dimensional barcodes (EAN, UPC, ITF-14, Code 39, Code 128) as SVG, drawn by bwip-js, for any renderer to embed.
import { createRequire } from 'node:module';
import type * as BwipJs from 'bwip-js';
import { escapeXml } from '../xml-escape.js';

// bwip-js takes ~70 ms to load and few documents have a barcode: loaded on the first one, not when a render thread starts.
// require gives its CommonJS build (exports "node"."require"), the same library as the ESM build.
const require = createRequire(import.meta.url);
let bwipjsModule: typeof BwipJs | undefined;
const bwipjs = (): typeof BwipJs => (bwipjsModule ??= require('bwip-js') as typeof BwipJs);

export type BarcodeFormat = 'code128' | 'ean13' | 'ean8' | 'upca' | 'code39' | 'itf14';

export interface BarcodeSvgOptions {
  /** Bar height in cm. */
  heightCm: number;
  /** Print the human-readable value under the bars. */
  showText: boolean;
  /** Font of the human-readable text; without it the text is drawn as OCR-B outlines (no font needed). */
  fontFamily?: string;
}

/** Our format names are bwip-js's bcids; the table keeps the mapping explicit should either side rename. */
const BCID: Record<BarcodeFormat, string> = { code128: 'code128', ean13: 'ean13', ean8: 'ean8', upca: 'upca', code39: 'code39', itf14: 'itf14' };

/** bwip-js draws at `SCALE` units per point; an integer keeps every bar edge on a whole unit. */
const SCALE = 2;
/** Quiet zone added left and right, in modules (1 module = 1 pt at bwip-js's default width). */
const QUIET_MODULES = 10;

/**
 * Draws `value` in `format`. EAN-13, EAN-8, UPC-A and ITF-14 take the value with or without its check
 * digit (bwip-js computes a missing one and rejects a wrong one). Throws an Error naming the value and
 * format when the value does not fit the format.
 */
export function barcodeSvg(value: string, format: BarcodeFormat, options: BarcodeSvgOptions): { svg: string } {
  const bcid = BCID[format];
  if (bcid === undefined) throw new Error(`Unknown barcode format "${String(format)}"; valid formats are ${Object.keys(BCID).join(', ')}.`);
  if (!(Number.isFinite(options.heightCm) && options.heightCm > 0)) throw new Error(`Barcode height must be a positive number of cm, got ${String(options.heightCm)}.`);
  const fontFamily = options.fontFamily;
  const texts: string[] = [];
  let padLeft = 0;
  let padTop = 0;
  const bwip = bwipjs();
  const inner = bwip.drawingSVG();
  // bwip-js's own SVG drawing, except that text becomes <text> in the document's font when one is given.
  const drawing: BwipJs.DrawingContext<string> = {
    ...inner,
    setopts(opts) {
      inner.setopts?.(opts);
      padLeft = Number((opts as { paddingleft?: number }).paddingleft) || 0;
      padTop = Number((opts as { paddingtop?: number }).paddingtop) || 0;
    },
    text(x, y, str, rgb, font) {
      if (fontFamily === undefined) return inner.text(x, y, str, rgb, font);
      const width = inner.measure(str, font.name, font.width, font.height).width + (font.dx || 0) * Math.max(0, str.length - 1);
      texts.push(
        `<text x="${round(x + padLeft + width / 2)}" y="${round(y + padTop)}" font-family="${escapeXml(fontFamily)}" font-size="${round(font.height * 0.9)}" ` +
          `text-anchor="middle" fill="#${/^[0-9a-f]{6}$/i.test(rgb) ? rgb : '000000'}">${escapeXml(str)}</text>`,
      );
    },
    end() {
      const svg = inner.end();
      return texts.length ? svg.replace(/<\/svg>\s*$/, `${texts.join('')}</svg>\n`) : svg;
    },
  };

  let drawn: string;
  try {
    const render: BwipJs.RenderOptions & { hidestars?: boolean } = {
      bcid,
      text: value,
      scale: SCALE,
      height: options.heightCm * 10, // bwip-js takes mm
      includetext: options.showText,
      hidestars: true, // Code 39: print the value, not its *start/stop* characters
      paddingleft: QUIET_MODULES,
      paddingright: QUIET_MODULES,
      paddingtop: 1,
      // bwip-js sizes the symbol by OCR-B's metrics; leave room for a font with deeper descenders.
      paddingbottom: fontFamily === undefined ? 1 : 3,
      backgroundcolor: 'FFFFFF',
    };
    drawn = bwip.render(render, drawing);
  } catch (err) {
    // bwip-js messages read "bwipp.ean13badCheckDigit#6915: Incorrect EAN-13 check digit provided".
    const reason = String((err as Error)?.message ?? err).replace(/^bwip(p|-js)[.:][^:]*:\s*/, '');
    throw new Error(`Cannot draw "${value}" as a ${format} barcode: ${reason}`);
  }

  const box = /^<svg viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(drawn);
  if (!box) throw new Error(`bwip-js returned an SVG without a viewBox for "${value}" as ${format}.`);
  const [, w, h] = box;
  const svg = drawn.replace(
    /^<svg viewBox="[^"]*"/,
    `<svg width="${round(Number(w) / SCALE)}pt" height="${round(Number(h) / SCALE)}pt" viewBox="0 0 ${w} ${h}"`,
  );
  return { svg };
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
