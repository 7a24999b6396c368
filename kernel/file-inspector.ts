// Counts the pages of uploaded PDFs in a small sandboxed pool, so page specs can be checked when a job is created.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';

const WORKER = fileURLToPath(new URL('./file-inspect-worker.js', import.meta.url));

export interface FileInspectorOptions {
  /** Deadline of one inspection; past it the thread is killed and the answer is null. Default 10 s. */
  timeoutMs?: number;
  /** Old-generation heap of the inspecting thread. Default 256 MB. */
  memoryMb?: number;
  /** Threads inspecting at once (1 or 2). Default 1. */
  maxThreads?: number;
}

export interface FileInspection {
  /** Pages of a readable PDF; null for other types and for files that cannot be read safely in time. */
  pageCount: number | null;
}

export class FileInspector {
  readonly #piscina: Piscina<Uint8Array, number | null>;
  readonly #timeoutMs: number;
  #closed = false;

  constructor(opts: FileInspectorOptions = {}) {
    const memoryMb = opts.memoryMb ?? 256;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#piscina = new Piscina<Uint8Array, number | null>({
      filename: WORKER,
      minThreads: 0,
      maxThreads: Math.min(2, Math.max(1, opts.maxThreads ?? 1)),
      // Past this many waiting uploads the count is skipped (null); the worker still checks specs when the job runs.
      maxQueue: 256,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.max(16, Math.min(64, Math.floor(memoryMb / 8))) },
    });
  }

  /** Never throws for bad input: anything unreadable, hostile, too slow or too big gives `{pageCount: null}`. */
  async inspect(bytes: Uint8Array, mimeType: string): Promise<FileInspection> {
    if (mimeType !== 'application/pdf' || this.#closed) return { pageCount: null };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    // The caller keeps its bytes; the thread gets its own copy, moved rather than copied a second time.
    const copy = new Uint8Array(bytes);
    try {
      const pageCount = await this.#piscina.run(copy, { signal: controller.signal, transferList: [copy.buffer] as never });
      return { pageCount: Number.isInteger(pageCount) && pageCount! >= 0 ? pageCount : null };
    } catch {
      return { pageCount: null };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#piscina.close({ force: true });
  }
}
