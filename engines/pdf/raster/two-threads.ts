// Multi-page jobs drawn on two threads: the job's own, and a helper thread it keeps (page-drawer.ts), each taking every other page.
import { resourceLimits, Worker } from 'node:worker_threads';
import type { DrawReply, DrawRequest } from './page-drawer.js';
import { PageRasterError, type PdfRasteriser, type RasterFormat } from './rasterise.js';

/**
 * A job shares its pages from this many on. The helper opens its own copy of the PDF and parses the fonts
 * again (30–45 ms of CPU), which a short job does not earn back.
 */
export const SHARE_FROM_PAGES = 4;

/**
 * ... and when no page is larger than this: each thread holds up to two canvases (one drawn, one encoding)
 * of 4 bytes a pixel, so a shared job holds at most 4 × 40 MB. Larger pages are drawn on the job's thread alone.
 */
export const SHARE_MAX_PIXELS = 10_000_000;

/** The helper thread and the requests it is drawing; replies come back by id. */
class DrawerThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, (reply: DrawReply) => void>();
  #next = 0;
  #stopped: string | null = null;

  constructor() {
    // The helper gets the heap limits of the thread that starts it (the plugin's pool limits); it ends with that thread.
    const limits = Object.fromEntries(Object.entries(resourceLimits).filter(([, v]) => typeof v === 'number' && v > 0));
    this.#worker = new Worker(new URL('./page-drawer.js', import.meta.url), { resourceLimits: limits });
    this.#worker.on('message', (reply: DrawReply) => {
      const done = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      if (!this.#waiting.size) this.#worker.unref();
      done?.(reply);
    });
    this.#worker.on('error', (err) => this.#stop(err.message));
    this.#worker.on('exit', (code) => this.#stop(`it exited with code ${code}`));
    // Idle, it must not keep its parent alive; while it draws, it does (see draw). After the listeners:
    // adding a 'message' listener refs the worker again.
    this.#worker.unref();
  }

  get stopped(): boolean {
    return this.#stopped !== null;
  }

  /** Draws `pages` of `pdf` (whose buffer is moved to the helper); never rejects: a failure is a reply with a message. */
  draw(req: Omit<DrawRequest, 'id'>): Promise<DrawReply> {
    const id = ++this.#next;
    if (this.#stopped) return Promise.resolve({ id, failedPage: null, message: `the second drawing thread stopped: ${this.#stopped}` });
    this.#worker.ref();
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#worker.postMessage({ ...req, id } satisfies DrawRequest, [req.pdf.buffer as ArrayBuffer]);
    });
  }

  #stop(why: string): void {
    if (this.#stopped) return;
    this.#stopped = why;
    for (const [id, done] of this.#waiting) done({ id, failedPage: null, message: `the second drawing thread stopped: ${why}` });
    this.#waiting.clear();
  }
}

let drawer: DrawerThread | null = null;

/** This thread's helper, started on first use (or at warm-up), and again after one stopped. */
export function drawerThread(): DrawerThread {
  if (!drawer || drawer.stopped) drawer = new DrawerThread();
  return drawer;
}

/**
 * Draws and encodes `pages` (1-based, as PdfRasteriser.renderPages) of the document `raster` has open. From
 * SHARE_FROM_PAGES pages of at most SHARE_MAX_PIXELS each, every other page is drawn by the helper thread from
 * `pdf`, a copy of the document's bytes that is moved to it; the images come back in the order of `pages`.
 * A page that fails throws a PageRasterError naming it.
 */
export async function renderPagesShared(raster: PdfRasteriser, pdf: Uint8Array, pages: number[], dpi: number, format: RasterFormat, largestPixels: number): Promise<Uint8Array[]> {
  if (pages.length < SHARE_FROM_PAGES || largestPixels > SHARE_MAX_PIXELS) return raster.renderPages(pages, dpi, format);
  const mine = pages.filter((_, i) => i % 2 === 0);
  const theirs = pages.filter((_, i) => i % 2 === 1);
  const remote = drawerThread().draw({ pdf, pages: theirs, dpi, format });
  // Both halves settle before anything is thrown: the helper's canvases are its own, but its reply must not be left unread.
  const [local, reply] = await Promise.all([raster.renderPages(mine, dpi, format).then((images) => ({ images }), (err: unknown) => ({ err })), remote]);
  if ('err' in local) throw local.err;
  if (!('images' in reply)) throw new PageRasterError(reply.failedPage ?? theirs[0]!, new Error(reply.message));
  return pages.map((_, i) => (i % 2 === 0 ? local.images[i / 2]! : reply.images[(i - 1) / 2]!));
}
