// The second drawing thread of a render-images job (see two-threads.ts): draws the pages it is sent from its own copy of the PDF.
import { parentPort } from 'node:worker_threads';
import { loadPdfjs, PageRasterError, PdfRasteriser, type RasterFormat } from './rasterise.js';

export interface DrawRequest {
  id: number;
  pdf: Uint8Array;
  pages: number[];
  dpi: number;
  format: RasterFormat;
}

export type DrawReply = { id: number; images: Uint8Array[] } | { id: number; failedPage: number | null; message: string };

const port = parentPort!;

// pdfjs is loaded at once, so the thread is ready when the first job needs it.
void loadPdfjs().catch(() => undefined);

port.on('message', (req: DrawRequest) => void draw(req).then((reply) => port.postMessage(reply)));

async function draw(req: DrawRequest): Promise<DrawReply> {
  let raster: PdfRasteriser | undefined;
  try {
    raster = await PdfRasteriser.open(req.pdf);
    return { id: req.id, images: await raster.renderPages(req.pages, req.dpi, req.format) };
  } catch (err) {
    return { id: req.id, failedPage: err instanceof PageRasterError ? err.page : null, message: err instanceof Error ? err.message : String(err) };
  } finally {
    await raster?.close().catch(() => undefined);
  }
}
