// Page images of a PDF: pdfjs (legacy build, for Node) draws each page on an @napi-rs/canvas, which encodes it.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { encodeCanvas } from '../../image/encode-canvas.js';
import { greyLevels, type GreyLevels } from '../../image/grey-levels.js';

export type RasterFormat = 'png' | 'jpeg';

/** JPEG quality: text stays crisp at 90 while the file is a fraction of the PNG's for photos. */
export const JPEG_QUALITY = 90;

/**
 * Pages up to this many pixels (an A4 page at 300 dpi is 8.7 M) are drawn while the previous one encodes: two
 * canvases of 4 bytes a pixel exist at once. Larger pages are drawn and encoded in turn.
 */
const OVERLAP_PIXELS = 40_000_000;

/** pdfjs's data files, read from the installed package: fonts, CMaps and decoders never come from the network. */
const PDFJS_DIR = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const DATA = {
  standardFontDataUrl: `${PDFJS_DIR}/standard_fonts/`,
  cMapUrl: `${PDFJS_DIR}/cmaps/`,
  cMapPacked: true,
  iccUrl: `${PDFJS_DIR}/iccs/`,
  wasmUrl: `${PDFJS_DIR}/wasm/`,
};

let pdfjs: Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> | undefined;

/** pdfjs, imported on first use (a thread that never draws does not pay for it). */
export function loadPdfjs(): Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
}

/** Opens a PDF with pdfjs the safe way: local data files, no code evaluation, glyphs drawn as paths. */
export async function openPdfjsDocument(pdf: Uint8Array): Promise<PDFDocumentProxy> {
  const { getDocument } = await loadPdfjs();
  return getDocument({
    data: pdf,
    ...DATA,
    // Never compile code from the document (PostScript functions are interpreted instead).
    isEvalSupported: false,
    // Glyphs are drawn as paths from the embedded fonts: Node has no FontFace, and system fonts
    // would make the images depend on the machine.
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
}

/** A loaded PDF whose pages are drawn one at a time; fonts and images parsed for one page serve the next. */
export class PdfRasteriser {
  private constructor(private readonly doc: PDFDocumentProxy) {}

  /** Opens `pdf` (which pdfjs may take over: pass a copy if the bytes are needed afterwards). */
  static async open(pdf: Uint8Array): Promise<PdfRasteriser> {
    return new PdfRasteriser(await openPdfjsDocument(pdf));
  }

  /** Draws pages of a document already opened with openPdfjsDocument (Lens reads its text layer too). */
  static of(doc: PDFDocumentProxy): PdfRasteriser {
    return new PdfRasteriser(doc);
  }

  get pageCount(): number {
    return this.doc.numPages;
  }

  /** Pixel size of 1-based `page` at `dpi`: its size in inches (as displayed, /Rotate applied) × dpi, rounded. */
  async pixelSize(page: number, dpi: number): Promise<{ width: number; height: number }> {
    const viewport = (await this.doc.getPage(page)).getViewport({ scale: dpi / 72 });
    return { width: Math.round(viewport.width), height: Math.round(viewport.height) };
  }

  /**
   * The pixel sizes the images painted on 1-based `page` declare (image XObjects, inline images, masks), from the
   * page's operator list, before anything is drawn: pdfjs leaves out an image it cannot decode (a JPEG whose
   * header claims 60000 × 60000 pixels) without a word, so a caller that must not answer an empty page checks first.
   */
  async imageSizes(page: number): Promise<Array<{ width: number; height: number }>> {
    const { OPS } = await loadPdfjs();
    // Not paintImageXObjectRepeat (one image painted at many places): its arguments hold scales, not the size.
    const images = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject]);
    const list = await (await this.doc.getPage(page)).getOperatorList();
    const sizes: Array<{ width: number; height: number }> = [];
    list.fnArray.forEach((fn, k) => {
      if (!images.has(fn)) return;
      const args = list.argsArray[k] as unknown[];
      // paintImageXObject: [objId, width, height]; the others carry the image data object first.
      const data = args[0] as { width?: unknown; height?: unknown } | null;
      const [width, height] = typeof args[1] === 'number' && typeof args[2] === 'number' ? [args[1], args[2]] : [data?.width, data?.height];
      if (typeof width === 'number' && typeof height === 'number') sizes.push({ width, height });
    });
    return sizes;
  }

  /**
   * Draws 1-based `page` at `dpi` on white and encodes it. `cpu`, when given, gains the process CPU time of
   * each phase (bench/images.ts reports where the time goes).
   */
  async render(page: number, dpi: number, format: RasterFormat, cpu?: { drawMs: number; encodeMs: number }): Promise<Uint8Array> {
    const started = cpu && process.cpuUsage();
    const drawn = await this.draw(page, dpi);
    const encodeStarted = cpu && process.cpuUsage();
    const bytes = await this.encode(drawn, format);
    if (cpu) {
      cpu.drawMs += cpuMs(process.cpuUsage(started)) - cpuMs(process.cpuUsage(encodeStarted));
      cpu.encodeMs += cpuMs(process.cpuUsage(encodeStarted));
    }
    return bytes;
  }

  /**
   * Draws and encodes `pages` (1-based) in order. The canvas encodes on a libuv thread, so each page's encoding
   * runs while the next page is drawn on this one: with two cores a multi-page job takes about the longer of
   * the two phases a page, not their sum. Only pages up to OVERLAP_PIXELS overlap, which bounds the native
   * memory to two canvases of that size; larger pages are drawn and encoded in turn. A page that fails throws
   * a PageRasterError naming it.
   */
  async renderPages(pages: number[], dpi: number, format: RasterFormat): Promise<Uint8Array[]> {
    const images: Uint8Array[] = [];
    // The encoding in flight; a handler is attached at once so a failure never goes unhandled while a page is drawn.
    let inFlight: Promise<void> = Promise.resolve();
    try {
      for (const [index, page] of pages.entries()) {
        const drawn = await this.draw(page, dpi).catch((err: unknown) => {
          throw new PageRasterError(page, err);
        });
        try {
          await inFlight;
        } catch (err) {
          drawn.free();
          throw err;
        }
        const encoding = this.encode(drawn, format).then(
          (bytes) => void (images[index] = bytes),
          (err: unknown) => {
            throw new PageRasterError(page, err);
          },
        );
        encoding.catch(() => {});
        inFlight = encoding;
        if (drawn.pixels > OVERLAP_PIXELS) await inFlight;
      }
      await inFlight;
      return images;
    } finally {
      // After a failure, the other page's encoding still owns its canvas: let it finish before the document closes.
      await inFlight.catch(() => {});
    }
  }

  /** Draws 1-based `page` at `dpi` on a new white canvas; the caller encodes or frees it. */
  private async draw(page: number, dpi: number): Promise<DrawnPage> {
    const proxy = await this.doc.getPage(page);
    const viewport = proxy.getViewport({ scale: dpi / 72 });
    // The document's own factory creates canvases pdfjs can draw on (@napi-rs/canvas under Node).
    const factory = this.doc.canvasFactory as CanvasFactory;
    const width = Math.round(viewport.width);
    const height = Math.round(viewport.height);
    const target = factory.create(width, height);
    const free = () => factory.destroy(target);
    try {
      await proxy.render({ canvas: target.canvas as unknown as HTMLCanvasElement, viewport, background: 'white' }).promise;
      return { canvas: target.canvas, pixels: width * height, free };
    } catch (err) {
      free();
      throw err;
    } finally {
      proxy.cleanup();
    }
  }

  /** Encodes a drawn page (skia, on a libuv thread) and frees its canvas. */
  private async encode(drawn: DrawnPage, format: RasterFormat): Promise<Uint8Array> {
    try {
      const bytes = await encodeCanvas(drawn.canvas, format, JPEG_QUALITY);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } finally {
      drawn.free();
    }
  }

  /**
   * Draws 1-based `page` at `dpi` on white as grey levels, one byte a pixel (Lens hands them to Tesseract
   * as a PGM: encoding a noisy scan as PNG costs seconds, a PGM header nothing).
   */
  async grey(page: number, dpi: number): Promise<GreyLevels> {
    const drawn = await this.draw(page, dpi);
    try {
      return greyLevels(drawn.canvas);
    } finally {
      drawn.free();
    }
  }

  async close(): Promise<void> {
    await this.doc.destroy();
  }
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/** A page drawn on its canvas, waiting to be encoded; `free` gives the canvas back to the factory. */
interface DrawnPage {
  canvas: import('@napi-rs/canvas').Canvas;
  pixels: number;
  free: () => void;
}

/** Rasterising 1-based `page` failed; `cause` says why. */
export class PageRasterError extends Error {
  override name = 'PageRasterError';
  constructor(
    readonly page: number,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** What pdfjs's canvas factory hands out under Node: an @napi-rs/canvas Canvas and its context. */
interface CanvasFactory {
  create(width: number, height: number): { canvas: import('@napi-rs/canvas').Canvas; context: unknown };
  destroy(target: { canvas: unknown; context: unknown }): void;
}
