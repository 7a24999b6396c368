// Text in rasterised pictures (charts, barcodes, SVG images) split into runs of the bundled font that draws each character, and the script fonts those runs need.
// Why runs: the SVG renderer of @napi-rs/canvas (Skia's) takes the first available family of a font-family list and has
// no fallback per character, so a chart label in Chinese, Thai or Hebrew drew as boxes in the document's font. Nor does
// it order right-to-left text: labels are put into visual order before they are split.
import { escapeText } from '../xml-escape.js';
import { familyHas } from '../fonts/glyph-coverage.js';
import { scriptFamilyFile } from '../fonts/bundled-fonts.js';
import { fontStack } from '../fonts/pdf-fonts.js';
import type { CjkVariant } from '../fonts/scripts.js';
import { visualOrder } from './visual-order.js';

/** A `<text>` element holding only character data (what the chart, barcode and most drawn SVGs write). */
const PLAIN_TEXT = /<text\b([^>]*)>([^<]*)<\/text>/g;
/** Spaces, punctuation and combining marks stay in the run they are in, so a Hebrew phrase with spaces is one run. */
const NEUTRAL = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
/** Everything Latin-1 is drawn by every bundled text family: such text is never split (and its SVG never changed). */
const LATIN_1 = /^[\x00-\xFF]*$/;
const OTHER_ENTITY = /&(?!(?:#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);)/i;
/** Families the renderer may not have and whose coverage is unknown: taken as drawing what Noto Sans draws. */
const PROXY = 'Noto Sans';
/** Built into Typst, not given to the picture renderer. */
const NOT_REGISTERED = new Set(['DejaVu Sans Mono']);

export interface PictureText {
  /** The SVG with runs in other families as `<tspan font-family>`; the same string when no text needed one. */
  svg: string;
  /** Files of the further scripts' fonts (Thai, Devanagari, CJK) its text is drawn with, to register before drawing. */
  files: string[];
}

/**
 * Splits the text of `svg`'s plain `<text>` elements into runs: characters the element's font has stay in it,
 * the others go to the first bundled family that has them (the PDF's fallback order, CJK in `cjk()`'s order).
 */
export function pictureText(svg: string, cjk: () => CjkVariant): PictureText {
  const files = new Set<string>();
  let fallbacks: string[] | undefined;
  const out = svg.replace(PLAIN_TEXT, (whole, attrs: string, content: string) => {
    // An entity a DTD defines (&nbsp; in a user's SVG) cannot be written back as it was read: such text is left as it is.
    if (LATIN_1.test(content) || OTHER_ENTITY.test(content)) return whole;
    const logical = decodeXml(content);
    if (LATIN_1.test(logical)) return whole;
    // The renderer draws left to right: right-to-left labels go in visual order first (engines/office/visual-order.ts).
    const text = visualOrder(logical);
    const main = firstFamily(attrs);
    const has = (family: string, cp: number) => familyHas(family, cp) || (family === main && !familyHas(family, 0x41) && familyHas(PROXY, cp));
    fallbacks ??= fontStack(undefined, cjk()).filter((f) => !NOT_REGISTERED.has(f));
    const runs: Array<{ family: string; text: string }> = [];
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      const run = runs.at(-1);
      let family: string;
      if (run && NEUTRAL.test(ch) && has(run.family, cp)) family = run.family;
      else if (has(main, cp)) family = main;
      else family = fallbacks.find((f) => f !== main && has(f, cp)) ?? main;
      if (run?.family === family) run.text += ch;
      else runs.push({ family, text: ch });
    }
    if (runs.every((r) => r.family === main) && text === logical) return whole;
    const bold = /\sfont-weight\s*=\s*["'](?:bold|[6-9]00)["']/.test(attrs);
    for (const r of runs) {
      const file = r.family !== main ? scriptFamilyFile(r.family, bold) : null;
      if (file) files.add(file);
    }
    const body = runs.map((r) => (r.family === main ? escapeText(r.text) : `<tspan font-family="${r.family}">${escapeText(r.text)}</tspan>`)).join('');
    return `<text${attrs}>${body}</text>`;
  });
  return { svg: out, files: [...files] };
}

/** The first family of the element's font-family attribute ('' when it has none: the renderer's default, taken as Noto Sans). */
function firstFamily(attrs: string): string {
  const m = /\sfont-family\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(attrs);
  const list = decodeXml(m?.[1] ?? m?.[2] ?? '');
  return list.split(',')[0]!.trim().replace(/^["']|["']$/g, '');
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Character data with its entity and character references replaced by the characters. */
function decodeXml(s: string): string {
  return s.replace(/&(?:#x([0-9a-f]+)|#([0-9]+)|(amp|lt|gt|quot|apos));/gi, (ref, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name) return NAMED[name.toLowerCase()] ?? ref;
    const cp = hex ? parseInt(hex, 16) : Number(dec);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : ref;
  });
}
