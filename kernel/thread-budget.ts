// The live worker threads all plugin pools may hold at once: a task waits for its slots, and an idle thread of any pool is ended to make room.
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

/**
 * The slots one thread of a pool takes: its manifest's `threadMemoryMb` (what a thread holds at peak, engine and
 * native memory included) in THREAD_MEMORY_MB shares, at least one and never more than the whole budget. A Lens
 * thread reading a scan with PP-OCR holds about 350 MB at peak: three slots, so two scans never run beside a full
 * budget of other threads (docs/benchmarks.md "Soak").
 */
export function slotsPerThread(threadMemoryMb: number | undefined, limit: number): number {
  return Math.min(limit, Math.max(1, Math.ceil((threadMemoryMb ?? THREAD_MEMORY_MB) / THREAD_MEMORY_MB)));
}

/** A pool as the budget sees it. */
export interface BudgetMember {
  /** Threads started and not ended (busy or idle). */
  liveThreads(): number;
  /** Slots each of its threads takes (slotsPerThread). */
  readonly slots: number;
  /** Since when (ms, monotonic) its longest-idle thread has had nothing to do; null when none is idle. */
  idleSince(): number | null;
  /** Ends its longest-idle thread (it has no task, running or queued). */
  shedIdle(): void;
}

export class ThreadBudget {
  readonly #members = new Set<BudgetMember>();
  /** Slots held by tasks on threads. */
  #running = 0;
  /** Tasks waiting for their slots, first come first served across pools (a heavy task is not overtaken for ever). */
  readonly #waiting: Array<{ slots: number; start: () => void }> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`thread budget ${limit}: needs a whole number ≥ 1`);
  }

  join(member: BudgetMember): void {
    this.#members.add(member);
  }

  leave(member: BudgetMember): void {
    this.#members.delete(member);
  }

  /** Slots held by tasks on threads now. */
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

  /** Slots the live threads of every member take, busy or idle. */
  liveSlots(): number {
    let n = 0;
    for (const m of this.#members) n += m.liveThreads() * m.slots;
    return n;
  }

  /**
   * Waits until `slots` slots are free (one task on one thread of a pool whose threads take that many); the returned
   * function gives them back (once, however often called).
   */
  async acquire(slots = 1): Promise<() => void> {
    const n = Math.min(this.limit, Math.max(1, slots));
    if (this.#running + n <= this.limit && !this.#waiting.length) this.#running += n;
    else await new Promise<void>((start) => this.#waiting.push({ slots: n, start })); // #startWaiting counts them
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= n;
      this.#startWaiting();
    };
  }

  /** Starts the waiting tasks, oldest first, while the oldest one's slots are free. */
  #startWaiting(): void {
    for (let next = this.#waiting[0]; next && this.#running + next.slots <= this.limit; next = this.#waiting[0]) {
      this.#waiting.shift();
      this.#running += next.slots;
      next.start();
    }
  }

  /**
   * Called by a slot holder about to start a thread that takes `slots` slots: while the live threads' slots leave too
   * few, the thread idle the longest, in whichever pool, is ended. Never ends a busy thread; above the limit only by
   * threads still exiting or warming (a recycle's successor).
   */
  makeRoom(slots = 1): void {
    let live = this.liveSlots();
    while (live + Math.min(this.limit, slots) > this.limit) {
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
      const after = this.liveSlots();
      if (after >= live) return; // nothing ended: do not spin
      live = after;
    }
  }
}
