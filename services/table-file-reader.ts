// Reads bulk-render variables files (CSV, JSON, XLSX) in a thread of its own: a big or hostile file costs that thread
// its time and memory, never the server's event loop, and a deadline ends a read that takes too long.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { HttpError } from '../contracts/errors.js';
import { TableFileError, type ReadItemsResult } from '../engines/tabular/read-items.js';
import type { TableFileTaskResult } from './table-file-worker.js';

const WORKER = fileURLToPath(new URL('./table-file-worker.js', import.meta.url));

export interface TableFileReaderOptions {
  /** Deadline of one read; past it the thread is killed and the file refused with LIMIT_EXCEEDED. Default 20 s. */
  timeoutMs?: number;
  /** Old-generation heap of the reading thread. Default 512 MB (exceljs holds a whole workbook). */
  memoryMb?: number;
  /** Reads waiting for the thread; past it requests answer 503 SERVICE_BUSY. Default 16. */
  maxQueue?: number;
}

export class TableFileReader {
  readonly #piscina: Piscina<{ bytes: Uint8Array; maxItems: number }, TableFileTaskResult>;
  readonly #timeoutMs: number;

  constructor(opts: TableFileReaderOptions = {}) {
    this.#timeoutMs = opts.timeoutMs ?? 20_000;
    this.#piscina = new Piscina({
      filename: WORKER,
      // Bulk uploads are rare: no thread (and no exceljs) is kept loaded between them, and one reads at a time.
      minThreads: 0,
      maxThreads: 1,
      maxQueue: opts.maxQueue ?? 16,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb ?? 512, maxYoungGenerationSizeMb: 64, stackSizeMb: 8 },
    });
  }

  /** The file's items; a file that is refused rejects with a TableFileError (its code and message as the thread set them). */
  async read(bytes: Uint8Array, maxItems: number): Promise<ReadItemsResult> {
    if (this.#piscina.queueSize >= this.#piscina.options.maxQueue) {
      throw new HttpError('SERVICE_BUSY', 'Too many bulk-render files are being read at once; retry shortly.', undefined, { 'Retry-After': '2' });
    }
    // A copy of just these bytes in a buffer of their own, moved to the thread: cloning the view would copy its whole
    // underlying buffer (a Buffer's may be the shared pool), and moving it would take it from the caller.
    const copy = new Uint8Array(bytes);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    let answer: TableFileTaskResult;
    try {
      answer = await this.#piscina.run({ bytes: copy, maxItems }, { signal: controller.signal, transferList: [copy.buffer as ArrayBuffer] });
    } catch (e) {
      if (controller.signal.aborted) throw new TableFileError('LIMIT_EXCEEDED', `the file took too long to read (more than ${this.#timeoutMs / 1000} s); split it into smaller files`);
      if ((e as NodeJS.ErrnoException)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new TableFileError('LIMIT_EXCEEDED', 'the file needs more memory to read than a bulk render allows; split it into smaller files');
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
    if (!answer.ok) throw new TableFileError(answer.code, answer.message);
    return answer.result;
  }

  async close(): Promise<void> {
    await this.#piscina.close({ force: true });
  }
}
