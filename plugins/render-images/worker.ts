// Worker of render.png and render.jpeg: the PDF of render.pdf (same compile step), then the selected pages as images.
import { PluginError, type WarmUpPause, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import type { DocumentJson } from '../../contracts/document-json.js';
import { resolveSpecs } from '../../engines/pdf/page-selection.js';
import { storedZip } from '../../engines/archive/zip-store.js';
import { compileDocument, warmUpCompiler } from '../../engines/typst/compile.js';
import { PageRasterError, PdfRasteriser, type RasterFormat } from '../../engines/pdf/raster/rasterise.js';
import { drawerThread, renderPagesShared } from '../../engines/pdf/raster/two-threads.js';
import type { ImageParams, ImageResultBody } from './contract.js';

/** Bounds on what one job draws: a page's canvas is 4 bytes a pixel, and the encoded pages are held until zipped. */
export const PIXEL_LIMITS = { page: 100_000_000, total: 500_000_000 };

const MIME: Record<RasterFormat, string> = { png: 'image/png', jpeg: 'image/jpeg' };
const EXTENSION: Record<RasterFormat, string> = { png: 'png', jpeg: 'jpg' };

/** Run by the kernel once per thread, before the thread's first job when it can: Typst, and the second drawing thread with pdfjs. */
export async function warmUp(pause: WarmUpPause): Promise<void> {
  await warmUpCompiler(pause);
  await pause();
  drawerThread();
}

export async function renderImages(input: WorkerInput<ImageParams>): Promise<WorkerOutput> {
  const { format, dpi, pages: specs } = input.params.image;
  const { pdf, result } = compileDocument(input);
  // pdfjs may take the bytes it opens over: a copy is kept for the second drawing thread.
  const copy = new Uint8Array(pdf);
  const raster = await PdfRasteriser.open(new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  try {
    const pageCount = raster.pageCount;
    // Overlapping specs select a page once; the images come in page order.
    const selected = [...new Set(resolveSpecs('image.pages', specs, pageCount).flat())].sort((a, b) => a - b).map((i) => i + 1);
    const largest = await checkPixels(raster, selected, dpi);
    const images = await renderPagesShared(raster, copy, selected, dpi, format, largest).catch((err: unknown) => {
      if (!(err instanceof PageRasterError)) throw err;
      throw new PluginError('RASTERISE_FAILED', `Page ${err.page} of ${pageCount} could not be rasterised: ${err.message}.`);
    });
    const base = (input.params.document as unknown as DocumentJson).document.filename ?? 'document';
    const body: ImageResultBody = { pageCount, selectedPages: selected, warnings: result.warnings };
    if (images.length === 1) return { file: { bytes: images[0]!, mimeType: MIME[format], filename: `${base}.${EXTENSION[format]}` }, result: body };
    const zip = storedZip(images.map((bytes, i) => ({ name: `page-${selected[i]}.${EXTENSION[format]}`, bytes })));
    return { file: { bytes: zip, mimeType: 'application/zip', filename: `${base}.zip` }, result: body };
  } finally {
    await raster.close();
  }
}

/**
 * Refuses, before drawing anything, a page or a selection past PIXEL_LIMITS, with the figures and what to
 * change; returns the pixel count of the largest page.
 */
async function checkPixels(raster: PdfRasteriser, pages: number[], dpi: number): Promise<number> {
  let total = 0;
  let largest = 0;
  for (const page of pages) {
    const { width, height } = await raster.pixelSize(page, dpi);
    largest = Math.max(largest, width * height);
    if (width * height > PIXEL_LIMITS.page) {
      throw new PluginError('IMAGE_TOO_LARGE', `Page ${page} at ${dpi} dpi would be ${width} × ${height} px (${mp(width * height)} megapixels); a page image may have at most ${mp(PIXEL_LIMITS.page)}: lower image.dpi.`);
    }
    total += width * height;
  }
  if (total > PIXEL_LIMITS.total) {
    const fits = Math.floor(dpi * Math.sqrt(PIXEL_LIMITS.total / total));
    throw new PluginError(
      'IMAGE_TOO_LARGE',
      `The ${pages.length} selected pages at ${dpi} dpi would be ${mp(total)} megapixels in all; one render may produce at most ${mp(PIXEL_LIMITS.total)}: ` +
        `select fewer pages with image.pages, or lower image.dpi (at most ${fits} for these pages).`,
    );
  }
  return largest;
}

function mp(pixels: number): string {
  return String(Math.round(pixels / 100_000) / 10);
}
