// The live worker threads all plugin pools may hold at once: a task waits for a slot, and an idle thread of any pool is ended to make room.
import os from 'node:os';

/** What a process holds besides its plugin threads (main thread, the inspector, Markdown and table threads, fonts): MB. */
export const BASE_MEMORY_MB = 250;
/**
 * What one plugin thread adds at peak when the threads of several kinds of work share the budget (its isolate, young
 * generation and engine; docs/benchmarks.md "Soak": 4 threads peaked at 0.78 GB, 8 at 0.95 GB with a 0.23 GB base): MB.
 */
export const THREAD_MEMORY_MB = 128;
/** The memory budget when QUIRE_MEMORY_BUDGET_MB is not set: the target of issue 28 for 8 clients. */
export const DEFAULT_MEMORY_BUDGET_MB = 800;

/**
 * How many plugin threads may live at once for a memory budget: what the budget leaves after the base, one thread's
 * share each, and at least one per core and never fewer than 2 (a job and a preview may always run). Fewer threads
 * than kinds of work in use make the pools take threads from each other, and each taken thread costs its engine's
 * cold start when that kind comes back (docs/benchmarks.md): the budget is a memory bound, not a CPU one.
 */
export function threadLimit(memoryBudgetMb: number, cores = os.availableParallelism()): number {
  const byMemory = Math.floor((memoryBudgetMb - BASE_MEMORY_MB) / THREAD_MEMORY_MB);
  return Math.max(2, cores, byMemory);
}

/** A pool as the budget sees it. */
export interface BudgetMember {
  /** Threads started and not ended (busy or idle). */
  liveThreads(): number;
  /** Since when (ms, monotonic) its longest-idle thread has had nothing to do; null when none is idle. */
  idleSince(): number | null;
  /** Ends its longest-idle thread (it has no task, running or queued). */
  shedIdle(): void;
}

export class ThreadBudget {
  readonly #members = new Set<BudgetMember>();
  #running = 0;
  /** Tasks waiting for a slot, first come first served across pools. */
  readonly #waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`thread budget ${limit}: needs a whole number ≥ 1`);
  }

  join(member: BudgetMember): void {
    this.#members.add(member);
  }

  leave(member: BudgetMember): void {
    this.#members.delete(member);
  }

  /** Tasks on threads now (holding a slot). */
  get running(): number {
    return this.#running;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Threads of every member, busy or idle. */
  liveThreads(): number {
    let n = 0;
    for (const m of this.#members) n += m.liveThreads();
    return n;
  }

  /** Waits for a slot (one task on one thread); the returned function gives it back (once, however often called). */
  async acquire(): Promise<() => void> {
    if (this.#running < this.limit && !this.#waiting.length) this.#running++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve)); // the releaser hands its slot over
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    };
  }

  /**
   * Called by a slot holder about to start a thread: while the live threads are at the limit, the thread idle the
   * longest, in whichever pool, is ended. Never ends a busy thread; above the limit only by threads still exiting
   * or warming (a recycle's successor).
   */
  makeRoom(): void {
    let live = this.liveThreads();
    while (live >= this.limit) {
      let oldest: BudgetMember | null = null;
      let since = Infinity;
      for (const m of this.#members) {
        const s = m.idleSince();
        if (s !== null && s < since) {
          since = s;
          oldest = m;
        }
      }
      if (!oldest) return;
      oldest.shedIdle();
      const after = this.liveThreads();
      if (after >= live) return; // nothing ended: do not spin
      live = after;
    }
  }
}
