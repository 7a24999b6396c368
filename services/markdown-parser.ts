// Parses Extended Markdown for the HTTP layer in a small pool of threads: a big or hostile source costs a
// thread its time, never the server's event loop, and a deadline ends a parse that takes too long.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { MarkdownOf, ParseOptions, ParseResult } from '../document/markdown/index.js';
import { CHUNKED_CONVERSION_BYTES } from '../document/markdown/parse.js';
import type { DocumentJson } from '../contracts/document-json.js';
import { HttpError } from '../contracts/errors.js';

const WORKER = fileURLToPath(new URL('./markdown-parse-worker.js', import.meta.url));

export interface MarkdownParserOptions {
  /** Deadline of one parse; past it the thread is killed and the source is refused. Default 20 s. */
  timeoutMs?: number;
  /** Old-generation heap of a parsing thread. Default 1024 MB (a 1 MiB source builds a large tree). */
  memoryMb?: number;
  /** Threads parsing at once in each of the two pools (sources below 256 KiB, and larger ones). Default 1. */
  maxThreads?: number;
  /** Parses waiting for a thread; past it requests answer 503 SERVICE_BUSY. Default 64. */
  maxQueue?: number;
}

/**
 * V8 limits of a parsing thread (bench/markdown.ts measures a parse with these). For large sources the young
 * generation stays at 64 MB: a source above 256 KiB is converted chunk by chunk, so what a 1 MB parse holds live is
 * 10–14 times the source with any young generation tried (16, 32, 64 MB); a smaller one lowers the heap's peak (75 →
 * 37–49 times) but in a thread that has parsed before costs about twice the CPU of a 1 MB parse (docs/benchmarks.md,
 * "Chunk by chunk for large sources"). Small sources get 16 MB (`youngMb`): with 64 MB a thread validating 4 KB
 * documents grew 160 MB, with 16 MB 76 MB (docs/benchmarks.md "What each kind of work leaves in the idle server").
 */
export function markdownThreadLimits(memoryMb = 1024, youngMb = 64): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number; stackSizeMb: number } {
  return { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: youngMb, stackSizeMb: 8 };
}

export class MarkdownParser {
  /** Sources converted whole (up to CHUNKED_CONVERSION_BYTES) and documents written as Markdown: a 16 MB young generation. */
  readonly #small: Piscina;
  /** Sources converted chunk by chunk (above CHUNKED_CONVERSION_BYTES, parse.ts's own rule): a 64 MB young generation. */
  readonly #large: Piscina;
  readonly #timeoutMs: number;

  constructor(opts: MarkdownParserOptions = {}) {
    this.#timeoutMs = opts.timeoutMs ?? 20_000;
    const pool = (youngMb: number) =>
      new Piscina({
        filename: WORKER,
        // No thread is kept once its pool has been idle for a minute: a thread that has parsed keeps the heap it grew
        // to while it lives, 30–45 MB of an idle server; the first parse after that pays a thread start (~0.6 s;
        // docs/benchmarks.md "What each kind of work leaves in the idle server").
        minThreads: 0,
        maxThreads: Math.max(1, opts.maxThreads ?? 1),
        maxQueue: opts.maxQueue ?? 64,
        idleTimeout: 60_000,
        resourceLimits: markdownThreadLimits(opts.memoryMb, youngMb),
      });
    this.#small = pool(16);
    this.#large = pool(64);
  }

  /** The parse result; a source that overruns the deadline or the memory limit is an error of the result, not an exception. */
  async parse(source: string, options: ParseOptions): Promise<ParseResult> {
    return this.#run<ParseResult>(Buffer.byteLength(source, 'utf8') > CHUNKED_CONVERSION_BYTES ? this.#large : this.#small, { source, options }, undefined, 'read', (timedOut, e) => {
      const message = timedOut
        ? `the Markdown took longer than ${this.#timeoutMs / 1000} s to read; split it into smaller documents`
        : `the Markdown could not be read within the parser's limits (${(e as Error)?.message ?? String(e)}); split it into smaller documents`;
      return { document: null, errors: [{ path: '(markdown)', message, code: 'LIMIT_EXCEEDED', line: 1, column: 1 }], warnings: [] };
    });
  }

  /**
   * The document as Extended Markdown, with what the Markdown cannot carry (document/markdown/markdown-of.ts);
   * `check: false` skips reading it back, for a document Markdown parsed to.
   */
  async toMarkdown(document: DocumentJson, check = true): Promise<MarkdownOf> {
    return this.#run<MarkdownOf>(this.#small, { document, check }, 'toMarkdown', 'written', (timedOut, e) => {
      const why = timedOut ? `took longer than ${this.#timeoutMs / 1000} s` : `failed (${(e as Error)?.message ?? String(e)})`;
      return { markdown: '', lost: { path: '(document)', what: `writing it as Markdown ${why}` } };
    });
  }

  /**
   * One task on the pool: 503 when the queue is full (`verb` says what is done to the documents), the deadline
   * enforced; a task that overruns it or fails becomes `failed`'s answer, not an exception.
   */
  async #run<T>(piscina: Piscina, task: object, name: string | undefined, verb: string, failed: (timedOut: boolean, e: unknown) => T): Promise<T> {
    if (piscina.queueSize >= piscina.options.maxQueue) {
      throw new HttpError('SERVICE_BUSY', `Too many Markdown documents are being ${verb} at once; retry shortly.`, undefined, { 'Retry-After': '2' });
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    try {
      return (await piscina.run(task, { ...(name ? { name } : {}), signal: controller.signal })) as T;
    } catch (e) {
      return failed(controller.signal.aborted, e);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#small.close({ force: true }), this.#large.close({ force: true })]);
  }
}
