// Reads the pages of a PDF as Lens text: the text layer through pdfjs where a page has one, Tesseract on a
// 300-dpi image of the page where it has none; then running headers and footers are told apart.
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PluginError } from '../../kernel/plugin-api.js';
import { openPdfjsDocument, PdfRasteriser } from '../render-images/rasterise.js';
import { bodySize, buildLines, isHeading, joinLines, marginKey, marginLines, readingOrder, toBlocks, type Block, type PageText, type Run } from './layout.js';
import { OcrSession } from './ocr-engine.js';

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

/** Opens the PDF (a copy of `bytes`; 400-style job error when unreadable). */
export async function openPdf(bytes: Uint8Array, field: string): Promise<PDFDocumentProxy> {
  try {
    return await openPdfjsDocument(new Uint8Array(bytes));
  } catch (err) {
    const e = err as Error;
    if (e.name === 'PasswordException') throw new PluginError('PDF_ENCRYPTED', `${field} is password-protected; remove the password and upload it again.`);
    throw new PluginError('PDF_UNREADABLE', `${field} is not a readable PDF (${e.message}); upload an intact PDF.`);
  }
}

/** Reads the 0-based `indices` of the document. */
export async function readPdf(doc: PDFDocumentProxy, indices: number[]): Promise<PdfText> {
  const raw: Array<{ lines: ReturnType<typeof buildLines>; width: number; height: number; ocr: string | null }> = [];
  let raster: PdfRasteriser | undefined;
  const ocr = new OcrSession();
  try {
    for (const i of indices) {
      const page = await doc.getPage(i + 1);
      const view = page.getViewport({ scale: 1 });
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
      const letters = runs.reduce((n, r) => n + (r.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0), 0);
      if (letters >= MIN_TEXT_CHARS) {
        raw.push({ lines: readingOrder(buildLines(runs), view.width), width: view.width, height: view.height, ocr: null });
      } else {
        raster ??= PdfRasteriser.of(doc);
        const inches = (view.width / 72) * (view.height / 72);
        const dpi = Math.min(OCR_DPI, Math.floor(Math.sqrt(MAX_OCR_PIXELS / inches)));
        const png = await raster.render(i + 1, dpi, 'png');
        raw.push({ lines: [], width: view.width, height: view.height, ocr: await ocr.recognise(png) });
      }
      page.cleanup();
    }
  } finally {
    await ocr.close();
  }

  // Running header/footer: margin-band lines whose text (digits folded) repeats on at least two of the
  // pages read, or a bare page number. They are kept apart from the body.
  const seen = new Map<string, number>();
  const split = raw.map((p) => marginLines(p.lines, p.height));
  for (const s of split) for (const key of new Set([...s.top, ...s.bottom].map((l) => marginKey(l.text)))) seen.set(key, (seen.get(key) ?? 0) + 1);
  const running = (text: string) => (seen.get(marginKey(text)) ?? 0) >= 2 || /^(page\s*)?\d+(\s*(of|\/)\s*\d+)?$/i.test(text.trim());

  // Margin-band lines that do not repeat stay where reading order put them (the end of a column reaches low).
  const bodies = raw.map((p, k) => p.lines.filter((l) => !((split[k]!.top.includes(l) || split[k]!.bottom.includes(l)) && running(l.text))));
  const allLines = bodies.flat();
  const body = bodySize(allLines);
  // Heading levels over the whole selection: the largest heading size is level 1.
  const headingSizes = [...new Set(allLines.filter((l) => isHeading(l, body)).map((l) => Math.round(l.size * 2) / 2))].sort((a, b) => b - a);

  const pages = raw.map((p, k): PageText => {
    if (p.ocr !== null) return { blocks: ocrBlocks(p.ocr), header: [], footer: [], source: 'ocr', bodySize: body };
    return {
      blocks: toBlocks(bodies[k]!, body, headingSizes),
      header: split[k]!.top.filter((l) => running(l.text)).map((l) => l.text),
      footer: split[k]!.bottom.filter((l) => running(l.text)).map((l) => l.text),
      source: 'text-layer',
      bodySize: body,
    };
  });
  const first = raw[0];
  const info = (await doc.getMetadata().catch(() => null))?.info as { Title?: unknown } | undefined;
  return {
    pageCount: doc.numPages,
    pages,
    pageSize: { width: first?.width ?? 595, height: first?.height ?? 842 },
    title: typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : null,
  };
}

/** A line that starts with a short label and a colon ("Invoice number: …") starts a paragraph of its own. */
const LABEL_LINE = /^\s*[\p{L}#][\p{L}\p{N}#.\/ -]{0,30}:/u;

/**
 * Tesseract's text: paragraphs are separated by blank lines; lines inside one are joined (hyphens too),
 * except that label lines stay apart, so "Label: value" pairs survive for extraction.
 */
export function ocrBlocks(text: string): Block[] {
  const paragraphs: string[][] = [];
  for (const para of text.split(/\n\s*\n/)) {
    let current: string[] = [];
    for (const line of para.split('\n').filter((l) => l.trim())) {
      if (current.length && LABEL_LINE.test(line)) {
        paragraphs.push(current);
        current = [];
      }
      current.push(line);
    }
    if (current.length) paragraphs.push(current);
  }
  return paragraphs.map((p) => joinLines(p)).filter((t) => t !== '').map((t) => ({ kind: 'paragraph' as const, text: t }));
}
