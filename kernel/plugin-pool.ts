// The worker threads of a plugin (Piscina pools): resource limits, a bounded queue, a deadline per action, and recycling.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { JobError } from '../contracts/errors.js';
import type { PluginDefinition, PluginServices, PoolLimits, WorkerInput, WorkerOutput } from '../sdk/plugin-api.js';
import { wholeBuffer } from './transferable.js';
import { serveCalls } from './service-port.js';
import type { HostReply, HostTask } from './worker-host.js';
import type { BlobTarget } from './store/blob-store.js';
import { releaseFreedMemory, releaseWhenIdle } from './release-memory.js';
import { ThreadBudget, slotsPerThread, type BudgetMember } from './thread-budget.js';

const HOST = fileURLToPath(new URL('./worker-host.js', import.meta.url));
/** A recycle's warm-up pauses WARM_PAUSE_MS between its costly steps. */
const WARM_PAUSE_MS = 100;

/**
 * One thread of a plugin: a Piscina pool of at most one thread, what was started on it and, while a recycle warms its
 * replacement, the successor. One thread per lane lets a thread be replaced (recycled, or ended for the thread budget)
 * on its own while the plugin's other threads work on.
 */
interface Lane {
  piscina: Piscina<HostTask, HostReply>;
  /** When (performance.now()) its last task settled: the budget ends the thread idle the longest first. */
  idleSince: number;
  /** Tasks started on the current thread (recycling only); at recycleAfter it is replaced. */
  tasks: number;
  /** Tasks handed to the current threads and not yet settled (running or queued in Piscina). */
  pending: Set<Promise<unknown>>;
  /** The pool that replaces the current one, while its thread warms up. */
  successor: Piscina<HostTask, HostReply> | null;
}

export class PluginPool implements BudgetMember {
  readonly #lanes: Lane[];
  /** The live threads all pools share (the registry's); a pool made alone has a budget of its own threads. */
  readonly #budget: ThreadBudget;
  /** Where the search for the least busy lane starts: the lane after the last one chosen. */
  #nextLane = 0;
  readonly #retiring = new Set<Promise<void>>();
  /** Pools of replaced threads still finishing their tasks (ended at once by close). */
  readonly #retiringPools = new Set<Piscina<HostTask, HostReply>>();
  /** The warm-up of the last recycle asked for: lanes warm their successors one after another. */
  #warming: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** Slots of the budget each of its threads takes (the manifest's threadMemoryMb). */
  readonly slots: number;
  #recycled = 0;
  /** Actions whose thread died under them (WORKER_CRASHED): out of memory, a native crash, an exit. */
  #crashes = 0;
  /** What releaseFreedMemory gave after each recycle, oldest first (the last 20). */
  readonly #releases: Array<boolean | null> = [];
  /** The plugin's provisioned services; each task then gets a port to call them (`input.call`). */
  services: PluginServices | null = null;

  constructor(
    readonly pluginId: string,
    private readonly workerUrl: string,
    readonly limits: PoolLimits,
    budget?: ThreadBudget,
  ) {
    const recycleAfter = limits.recycleAfter ?? 0;
    const lanes = limits.maxThreads;
    // Lane i starts i/n of the way into its first generation, so that the lanes' recycles come evenly
    // spread: one thread warms at a time, and the native memory the threads hold is at different ages.
    this.#lanes = Array.from({ length: lanes }, (_, i) => ({
      piscina: this.#create(lanes),
      idleSince: performance.now(),
      tasks: Math.floor((i * recycleAfter) / lanes),
      pending: new Set(),
      successor: null,
    }));
    this.#budget = budget ?? new ThreadBudget(limits.maxThreads * slotsPerThread(limits.threadMemoryMb, Infinity));
    this.slots = slotsPerThread(limits.threadMemoryMb, this.#budget.limit);
    this.#budget.join(this);
  }

  #create(lanes: number): Piscina<HostTask, HostReply> {
    const limits = this.limits;
    return new Piscina<HostTask, HostReply>({
      filename: HOST,
      workerData: { workerUrl: this.workerUrl },
      minThreads: 0,
      maxThreads: 1,
      // The plugin's queue is shared out between its lanes.
      maxQueue: Math.ceil(limits.maxQueue / lanes),
      idleTimeout: limits.idleTimeoutMs ?? 30_000,
      // 'sync' parks an idle thread in Atomics.wait (no timers, no I/O); 'async' waits with Atomics.waitAsync.
      atomics: limits.runBetweenTasks ? 'async' : 'sync',
      resourceLimits: {
        maxOldGenerationSizeMb: limits.memoryMb,
        maxYoungGenerationSizeMb: youngGenerationMb(limits),
      },
    });
  }

  /** Threads started and not ended, busy or idle (a recycle's successor still warming is not counted). */
  liveThreads(): number {
    let n = 0;
    for (const lane of this.#lanes) n += lane.piscina.threads.length;
    return n;
  }

  /** The lane whose thread has been idle the longest (no task running or queued, no recycle under way), or null. */
  #idlest(): Lane | null {
    let best: Lane | null = null;
    for (const lane of this.#lanes) {
      if (lane.pending.size || lane.successor || !lane.piscina.threads.length) continue;
      if (!best || lane.idleSince < best.idleSince) best = lane;
    }
    return best;
  }

  idleSince(): number | null {
    return this.#closed ? null : (this.#idlest()?.idleSince ?? null);
  }

  shedIdle(): void {
    const lane = this.#idlest();
    if (lane) void this.#endThread(lane);
  }

  /** Ends a lane's idle thread now (a fresh, threadless pool takes its place) and hands the freed memory back. */
  #endThread(lane: Lane): Promise<void> {
    const old = lane.piscina;
    lane.piscina = this.#create(this.#lanes.length);
    this.#retiringPools.add(old);
    const closing = old
      .close()
      .finally(() => this.#retiringPools.delete(old))
      .then(() => releaseFreedMemory())
      .then(() => undefined)
      .catch(() => undefined);
    this.#retiring.add(closing);
    void closing.finally(() => this.#retiring.delete(closing));
    return closing;
  }

  /** How many times threads were replaced (recycleAfter): each recycle replaces one lane's threads. */
  get recycled(): number {
    return this.#recycled;
  }

  /** How many actions ended WORKER_CRASHED because their thread died (the metrics read it when scraped). */
  get crashes(): number {
    return this.#crashes;
  }

  /**
   * The threads taking this plugin's tasks now, busy (running a task) or idle (started, waiting for one); a recycle's
   * successor, still warming, is not counted. Read when the metrics are scraped, never on a task's path.
   */
  threadStates(): { busy: number; idle: number } {
    let busy = 0;
    let idle = 0;
    for (const lane of this.#lanes) {
      const threads = lane.piscina.threads.length;
      const running = Math.min(lane.pending.size, threads);
      busy += running;
      idle += threads - running;
    }
    return { busy, idle };
  }

  /**
   * After each recycle whose old threads have exited, what handing their freed memory back to the
   * system gave (see releaseFreedMemory): true released, false nothing to release, null not available.
   */
  get memoryReleases(): ReadonlyArray<boolean | null> {
    return this.#releases;
  }

  /**
   * The lane with the fewest unsettled tasks, a lane with a live thread before one that would start a thread; of
   * equals, the first after the lane chosen last (round robin).
   */
  #pickLane(): Lane {
    const lanes = this.#lanes;
    const cost = (lane: Lane) => lane.pending.size * 2 + (lane.piscina.threads.length ? 0 : 1);
    let best = lanes[this.#nextLane % lanes.length]!;
    for (let k = 1; k < lanes.length; k++) {
      const lane = lanes[(this.#nextLane + k) % lanes.length]!;
      if (cost(lane) < cost(best)) best = lane;
    }
    this.#nextLane = (lanes.indexOf(best) + 1) % lanes.length;
    return best;
  }

  /**
   * Replaces a lane's thread without a cold start: a fresh pool starts a thread and runs its `warmUp`
   * while the current thread keeps taking tasks; then new tasks go to the fresh pool, and the old one
   * finishes every task it was given (running or queued: Piscina's close would end queued ones) and
   * exits, and with it goes whatever native memory its thread held.
   */
  #recycle(lane: Lane): void {
    if (lane.successor || this.#closed) return;
    const next = this.#create(this.#lanes.length);
    lane.successor = next;
    // The new thread runs the worker's warmUp (paced) before it takes a task. Recycles that come close
    // together wait their turn: starting a thread, importing the module and each step of warmUp take tens
    // of ms of CPU, and two warm-ups at once held every job in flight back by hundreds of ms while the old
    // threads were busy.
    const warming = this.#warming
      .then(() => (lane.successor === next ? next.run({ kind: 'warm', pauseMs: WARM_PAUSE_MS }) : undefined)) // a closed pool warms nothing
      .catch(() => undefined); // a thread that died warming: Piscina starts another for the next task
    this.#warming = warming;
    void warming.then(() => {
      if (lane.successor !== next) return; // closed meanwhile
      lane.successor = null;
      const old = lane.piscina;
      const pending = lane.pending;
      lane.piscina = next;
      lane.pending = new Set();
      lane.tasks = 0;
      this.#recycled++;
      // Once the old threads have exited, the memory they freed goes back to the system.
      this.#retiringPools.add(old);
      const closing = Promise.allSettled(pending)
        .then(() => old.close())
        .finally(() => this.#retiringPools.delete(old))
        .then(async () => {
          this.#releases.push(await releaseFreedMemory());
          if (this.#releases.length > 20) this.#releases.shift();
        })
        .catch(() => undefined);
      this.#retiring.add(closing);
      void closing.finally(() => this.#retiring.delete(closing));
    });
  }

  /** The pool of a plugin, with its manifest's limits unless the operator overrides them. */
  static forPlugin(def: PluginDefinition, limits: PoolLimits = def.manifest.pool, budget?: ThreadBudget): PluginPool {
    const workerUrl = typeof def.worker === 'string' ? def.worker : def.worker.href;
    // Held by the main thread for the process's life, so a thread after the first finds the addon registered.
    if (def.manifest.nativeModules?.length) {
      const load = createRequire(workerUrl);
      for (const name of def.manifest.nativeModules) load(name);
    }
    return new PluginPool(def.manifest.id, workerUrl, limits, budget);
  }

  /**
   * How many jobs the runner has on threads at once: one per thread, so a job is PROCESSING (and its
   * deadline runs) only while a thread works on it or its output is stored; the rest wait PENDING in
   * the runner's queue.
   */
  get capacity(): number {
    return this.limits.maxThreads;
  }

  /**
   * Names of the functions the plugin's worker module exports (checked against the manifest at boot). The thread that
   * loads the module to list them ends at once, unless the manifest asks for a warm thread at boot (`warmAtBoot`): then
   * it warms the engine in its spare time and stays, so the first job finds it ready.
   */
  async describe(): Promise<string[]> {
    // Not through the budget: at boot every pool lists its exports at once, as fast as the cores allow.
    const lane = this.#lanes[0]!;
    try {
      const reply = await lane.piscina.run({ kind: 'describe', warm: this.limits.warmAtBoot === true });
      if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
      return reply.exports ?? [];
    } finally {
      lane.idleSince = performance.now();
      if (!this.limits.warmAtBoot) await this.#endThread(lane);
    }
  }

  /**
   * Runs one action; every failure comes back as a JobError with a code and a message for the client. With
   * `storeAt`, the thread writes the output file there itself before it answers (writeBlobSync).
   */
  async run(exportName: string, input: WorkerInput, timeoutMs = this.limits.timeoutMs, storeAt?: BlobTarget): Promise<WorkerOutput> {
    // A slot of the shared thread budget first: the deadline counts the time on a thread, not the wait for one.
    const slot = await this.#budget.acquire(this.slots);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const transferList: Array<ArrayBuffer | MessagePort> = [];
    for (const f of input.files) {
      const buffer = wholeBuffer(f.bytes);
      if (buffer && !transferList.includes(buffer)) transferList.push(buffer);
    }
    const channel = this.services ? new MessageChannel() : null;
    if (channel) {
      serveCalls(channel.port1, this.services!);
      transferList.push(channel.port2);
    }
    const lane = this.#pickLane();
    if (!lane.piscina.threads.length) this.#budget.makeRoom(this.slots); // this task starts a thread
    const recycleAfter = this.limits.recycleAfter ?? 0;
    if (recycleAfter > 0 && ++lane.tasks >= recycleAfter) this.#recycle(lane);
    // Taken after the recycle: a task handed to the pool that is closing would be aborted.
    const pending = lane.pending;
    const pendingPiscina = lane.piscina;
    const task = lane.piscina.run({ kind: 'run', exportName, input, ...(channel ? { port: channel.port2 } : {}), ...(storeAt ? { storeAt } : {}) }, { signal: controller.signal, transferList: transferList as never });
    pending.add(task);
    try {
      const reply = await task;
      // A thread whose heap has grown past the bound is replaced like one that reached recycleAfter.
      if (reply.heapMb !== undefined && reply.heapMb > recycleHeapMb(this.limits) && lane.piscina === pendingPiscina) this.#recycle(lane);
      if (!reply.ok) throw new JobError(reply.error.code, reply.error.message, reply.error.details);
      return reply.output ?? {};
    } catch (err) {
      if (err instanceof JobError) throw err;
      if (controller.signal.aborted) {
        throw new JobError('DEADLINE_EXCEEDED', `The ${this.pluginId} action took longer than its ${formatMs(timeoutMs)} deadline and was stopped.`);
      }
      const code = (err as NodeJS.ErrnoException).code;
      this.#crashes++;
      if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new JobError('WORKER_CRASHED', `The ${this.pluginId} worker ran out of memory (limit ${this.limits.memoryMb} MB) on this input.`);
      }
      throw new JobError('WORKER_CRASHED', `The ${this.pluginId} worker crashed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
      channel?.port1.close();
      pending.delete(task);
      if (!pending.size) lane.idleSince = performance.now();
      slot();
      releaseWhenIdle();
    }
  }

  /**
   * Closes the pool once every task already handed to it has settled, running or still queued in Piscina (whose own
   * close would end the queued ones): a plugin disabled at runtime lets the jobs it started finish.
   */
  async closeWhenIdle(): Promise<void> {
    await Promise.allSettled(this.#lanes.flatMap((lane) => [...lane.pending]));
    await this.close();
  }

  /**
   * Ends every thread at once. The kernel closes its pools after its drain (kernel.ts stop): a task still running then
   * belongs to a job the runner has abandoned (it resumes on the next start), and waiting for it — Piscina's close
   * waits up to 30 s, then emitted an error nobody handled, which crashed the stop (a Chromium job stuck on a page) —
   * only delays the exit. closeWhenIdle waits for the tasks first.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#budget.leave(this);
    const successors = this.#lanes.map((lane) => lane.successor);
    for (const lane of this.#lanes) lane.successor = null;
    await Promise.all([...this.#lanes.map((lane) => lane.piscina.destroy()), ...successors.map((s) => s?.destroy()), ...[...this.#retiringPools].map((p) => p.destroy())]);
    await Promise.all(this.#retiring);
  }
}

/**
 * Young generation of each thread: the manifest's `youngGenerationMb`, else memoryMb / 8 between 16 and 64 MB. V8
 * keeps it reserved whole once it has grown, so a light tool's threads are given less (docs/benchmarks.md "Soak").
 */
export function youngGenerationMb(limits: PoolLimits): number {
  return limits.youngGenerationMb ?? Math.max(16, Math.min(64, Math.floor(limits.memoryMb / 8)));
}

/** The V8 heap (MB) past which a thread is replaced after its task: the manifest's `recycleHeapMb`, else half of memoryMb. */
export function recycleHeapMb(limits: PoolLimits): number {
  return limits.recycleHeapMb ?? Math.floor(limits.memoryMb / 2);
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
