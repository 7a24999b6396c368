// Reads the pages of a PDF as Lens text: the text layer through pdfjs where a page has one, OCR (PP-OCR or
// Tesseract, ocr.ts) on a 300-dpi image of the page where it has none; then running headers and footers are told apart.
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PluginError } from '../../sdk/index.js';
import { openPdfjsDocument, PdfRasteriser } from '../../engines/pdf/raster/rasterise.js';
import { prescreenPdf } from '../../engines/pdf/load.js';
import { DEFAULT_IMAGE_LIMITS, pixelLimitProblem } from '../../engines/image/image-check.js';
import { bodySize, buildLines, headingSizes, marginKey, marginLines, readingOrder, toBlocks, type Line, type PageText, type Run } from './layout.js';
import type { OcrPage } from './ocr-engine.js';
import { PageOcr, type OcrEngine } from './ocr.js';

/** OCR resolution; lowered for very large pages so the image stays under MAX_OCR_PIXELS. */
export const OCR_DPI = 300;
export const MAX_OCR_PIXELS = 40_000_000;
/** A page whose text layer has fewer letters or digits than this is treated as scanned. */
const MIN_TEXT_CHARS = 20;

export interface PdfText {
  pageCount: number;
  /** The pages read, in the order asked for. */
  pages: PageText[];
  /** Page size of the first page read, in PDF points. */
  pageSize: { width: number; height: number };
  title: string | null;
}

/**
 * Opens the PDF (a copy of `bytes`; a declared job error when unreadable). The raw bytes are screened first, as
 * every PDF tool does (nesting depth, decompression bombs): pdfjs itself inflates and recurses without bounds.
 */
export async function openPdf(bytes: Uint8Array, field: string): Promise<PDFDocumentProxy> {
  await prescreenPdf(bytes, field);
  try {
    return await openPdfjsDocument(new Uint8Array(bytes));
  } catch (err) {
    const e = err as Error;
    if (e.name === 'PasswordException') throw new PluginError('PDF_ENCRYPTED', `${field} is password-protected; remove the password and upload it again.`);
    throw new PluginError('PDF_UNREADABLE', `${field} is not a readable PDF (${e.message}); upload an intact PDF.`);
  }
}

/** Scanned pages are recognised this many at a time (one Tesseract thread each, or two PP-OCR runs: the machine's two cores). */
export const OCR_THREADS = 2;
/** Skew below this (radians, about 0.2°) is left alone. */
const MIN_SKEW = 0.0035;

interface RawPage {
  lines: ReturnType<typeof buildLines>;
  width: number;
  height: number;
  source: PageText['source'];
}

/** Reads the 0-based `indices` of the document; scanned pages through `engine`. */
export async function readPdf(doc: PDFDocumentProxy, indices: number[], engine: OcrEngine = 'auto'): Promise<PdfText> {
  const raw: RawPage[] = [];
  const scanned: number[] = [];
  for (const i of indices) {
    const page = await doc.getPage(i + 1).catch((err: Error) => {
      // A page tree that loops or points nowhere: pdfjs finds it only when it looks a page up.
      throw new PluginError('PDF_UNREADABLE', `fileId is not a readable PDF: page ${i + 1} cannot be read (${err.message}); upload an intact PDF.`);
    });
    const view = page.getViewport({ scale: 1 });
    const runs = await textRuns(page, view);
    const letters = runs.reduce((n, r) => n + (r.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0), 0);
    const text = letters >= MIN_TEXT_CHARS;
    if (!text) scanned.push(raw.length);
    raw.push({ lines: text ? readingOrder(buildLines(runs), view.width) : [], width: view.width, height: view.height, source: text ? 'text-layer' : 'ocr' });
    page.cleanup();
  }
  if (scanned.length) await recognise(doc, scanned.map((k) => ({ index: indices[k]!, page: raw[k]! })), engine);

  // Running header/footer: margin-band lines whose text (digits folded) repeats on at least two of the
  // pages read, or a bare page number. They are kept apart from the body.
  const seen = new Map<string, number>();
  const split = raw.map((p) => marginLines(p.lines, p.height));
  for (const s of split) for (const key of new Set([...s.top, ...s.bottom].map((l) => marginKey(l.text)))) seen.set(key, (seen.get(key) ?? 0) + 1);
  const running = (text: string) => (seen.get(marginKey(text)) ?? 0) >= 2 || /^(page\s*)?\d+(\s*(of|\/)\s*\d+)?$/i.test(text.trim());

  // Margin-band lines that do not repeat stay where reading order put them (the end of a column reaches low).
  // A page whose every line repeats elsewhere (a born-digital page with one line, the same on each page
  // digits aside) keeps its lines as body: a running header never is the whole page.
  const margin = (k: number, l: Line) => (split[k]!.top.includes(l) || split[k]!.bottom.includes(l)) && running(l.text);
  const keepAll = raw.map((p, k) => p.lines.length > 0 && p.lines.every((l) => margin(k, l)));
  const bodies = raw.map((p, k) => (keepAll[k] ? p.lines : p.lines.filter((l) => !margin(k, l))));
  const allLines = bodies.flat();
  const body = bodySize(allLines);
  // Heading levels over the whole selection: the largest heading size is level 1.
  const levels = headingSizes(allLines, body);

  const pages = raw.map(
    (p, k): PageText => ({
      blocks: toBlocks(bodies[k]!, body, levels, p.source === 'ocr'),
      header: keepAll[k] ? [] : split[k]!.top.filter((l) => running(l.text)).map((l) => l.text),
      footer: keepAll[k] ? [] : split[k]!.bottom.filter((l) => running(l.text)).map((l) => l.text),
      source: p.source,
      bodySize: body,
      lines: p.lines.map((l) => ({ text: l.text, cells: l.cells, x0: l.x0, x1: l.x1, y: l.y, size: l.size })),
      size: { width: p.width, height: p.height },
    }),
  );
  const first = raw[0];
  const info = (await doc.getMetadata().catch(() => null))?.info as { Title?: unknown } | undefined;
  return {
    pageCount: doc.numPages,
    pages,
    pageSize: { width: first?.width ?? 595, height: first?.height ?? 842 },
    title: typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : null,
  };
}

type PdfPage = Awaited<ReturnType<PDFDocumentProxy['getPage']>>;

/** The page's text layer as runs, in page points from the bottom-left corner. */
async function textRuns(page: PdfPage, view: ReturnType<PdfPage['getViewport']>): Promise<Run[]> {
  const content = await page.getTextContent();
  const runs: Run[] = [];
  for (const item of content.items) {
    if (!('str' in item) || !item.str) continue;
    // Text placed by the transform [a b c d e f]: size is the vertical scale, (e, f) the baseline origin.
    const [a, b, c, d, e, f] = item.transform as number[];
    const [x, y] = view.convertToViewportPoint(e!, f!) as [number, number];
    const size = Math.hypot(c!, d!) || Math.hypot(a!, b!) || item.height;
    const font = (content.styles as Record<string, { fontFamily?: string }>)[item.fontName]?.fontFamily ?? '';
    runs.push({ text: item.str, x, y: view.height - y, width: item.width, size, bold: /bold|black|heavy/i.test(item.fontName + font) });
  }
  return runs;
}

/**
 * Refuses a scanned page holding an image whose header declares more pixels than uploads may have (the kernel's
 * image limits): pdfjs would leave it out of the page unseen, and the job would answer empty text.
 */
async function refuseHugeImages(raster: PdfRasteriser, page: number): Promise<void> {
  for (const { width, height } of await raster.imageSizes(page)) {
    const problem = pixelLimitProblem(width, height, DEFAULT_IMAGE_LIMITS);
    if (problem) throw new PluginError('IMAGE_TOO_LARGE', `Page ${page} of fileId holds an image that ${problem.detail}; Lens does not decode it. Scan the page at a lower resolution (300 dpi is enough for OCR) and upload it again.`);
  }
}

/**
 * OCR of the scanned pages: each is drawn at 300 dpi (less for huge pages), deskewed and recognised by the
 * chosen engine, OCR_THREADS pages at a time; the next page is drawn while earlier ones are recognised. The
 * words become runs like a text layer's, so the same layout rules give lines, columns, headings and tables.
 */
async function recognise(doc: PDFDocumentProxy, pages: Array<{ index: number; page: RawPage }>, engine: OcrEngine): Promise<void> {
  const threads = Math.min(OCR_THREADS, pages.length);
  const ocr = new PageOcr(engine, threads);
  const raster = PdfRasteriser.of(doc);
  const running = new Set<Promise<void>>();
  let failure: unknown;
  try {
    for (const { index, page } of pages) {
      const inches = (page.width / 72) * (page.height / 72);
      const dpi = Math.min(OCR_DPI, Math.floor(Math.sqrt(MAX_OCR_PIXELS / inches)));
      await refuseHugeImages(raster, index + 1);
      const image = await raster.grey(index + 1, dpi);
      while (running.size >= threads && failure === undefined) await Promise.race(running);
      if (failure !== undefined) break;
      const task: Promise<void> = ocr.recognise(image).then(
        (result) => {
          page.lines = readingOrder(buildLines(ocrRuns(result, dpi, page.width, page.height)), page.width);
        },
        (err: unknown) => {
          failure ??= err;
        },
      );
      running.add(task);
      void task.finally(() => running.delete(task));
    }
    await Promise.all(running);
  } finally {
    await ocr.close();
  }
  if (failure !== undefined) throw failure;
}

/**
 * OCR words as runs in page points. The image was deskewed before OCR; any skew left (Tesseract measures it on
 * the line baselines) is straightened here, on the coordinates: each word's baseline is turned about the page
 * centre, so lines, table cells and column gutters line up as on the original.
 */
export function ocrRuns(page: OcrPage, dpi: number, pageWidth: number, pageHeight: number): Run[] {
  const scale = 72 / dpi;
  const angle = Math.abs(page.skew) >= MIN_SKEW ? page.skew : 0;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const cx = pageWidth / scale / 2;
  const cy = pageHeight / scale / 2;
  const turn = (x: number, y: number): [number, number] => [cx + (x - cx) * cos + (y - cy) * sin, cy - (x - cx) * sin + (y - cy) * cos];
  return page.words.map((w) => {
    const [x0, y0] = turn(w.x0, w.baseLeft);
    const [x1, y1] = turn(w.x1, w.baseRight);
    return { text: w.text, x: x0 * scale, y: pageHeight - ((y0 + y1) / 2) * scale, width: (x1 - x0) * scale, size: w.size * scale, bold: false };
  });
}
