// Long polling: a status request may wait (`?waitMs=`) until its job finishes instead of asking again and again.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from './tokens.js';
import type { EventBus } from './events.js';
import type { JobRecord } from './model.js';

/** Longest wait one status request may ask for (`?waitMs=`). */
export const MAX_WAIT_MS = 30_000;
/** Longest wait of any request: a render-creating POST may wait 60 s (`?wait=`, server/long-poll.ts). */
export const LONGEST_WAIT_MS = 60_000;

@injectable()
export class JobWaiter {
  readonly #waiting = new Map<string, Set<(finished?: JobRecord) => void>>();

  constructor(@inject(TOKENS.Events) events: EventBus) {
    events.on('job.finished', (job) => this.#wake(job.id, job));
  }

  /**
   * Resolves when the job finishes, after `ms`, when `signal` aborts (the client went away) or when
   * the waiter is closed, whichever comes first. `read` is called after the wait is registered, so a job
   * that finishes in between is not missed; when it already reports a final state, there is no wait. `reuse` turns
   * the record of a job that finished in this process into the answer without reading it again (undefined: read).
   */
  async wait<T extends Pick<JobRecord, 'status'>>(jobId: string, ms: number, read: () => Promise<T>, signal?: AbortSignal, reuse?: (finished: JobRecord) => T | undefined): Promise<T> {
    let wake!: (finished?: JobRecord) => void;
    const woken = new Promise<JobRecord | undefined>((resolve) => (wake = resolve));
    const set = this.#waiting.get(jobId) ?? new Set();
    set.add(wake);
    this.#waiting.set(jobId, set);
    const timer = setTimeout(() => wake(), Math.min(ms, LONGEST_WAIT_MS));
    const onAbort = () => wake();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const first = await read();
      if (first.status === 'COMPLETED' || first.status === 'FAILED' || signal?.aborted) return first;
      const finished = await woken;
      return (finished && reuse?.(finished)) || (await read());
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      set.delete(wake);
      if (!set.size && this.#waiting.get(jobId) === set) this.#waiting.delete(jobId);
    }
  }

  /** Answers the requests waiting for `id` now: a finished job of another kind than the runner's (a bulk render). */
  wake(id: string): void {
    this.#wake(id);
  }

  /** Answers every waiting request now (shutdown). */
  close(): void {
    for (const set of this.#waiting.values()) for (const wake of set) wake();
  }

  #wake(jobId: string, finished?: JobRecord): void {
    for (const wake of this.#waiting.get(jobId) ?? []) wake(finished);
  }
}
