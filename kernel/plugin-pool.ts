// The worker threads of a plugin (Piscina pools): resource limits, a bounded queue, a deadline per action, and recycling.
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { JobError } from '../contracts/errors.js';
import type { PluginDefinition, PluginServices, PoolLimits, WorkerInput, WorkerOutput } from '../sdk/plugin-api.js';
import { wholeBuffer } from './transferable.js';
import { serveCalls } from './service-port.js';
import type { HostReply, HostTask } from './worker-host.js';
import type { BlobTarget } from './store/blob-store.js';
import { releaseFreedMemory } from './release-memory.js';

const HOST = fileURLToPath(new URL('./worker-host.js', import.meta.url));
/** A recycle's warm-up pauses WARM_PAUSE_MS between its costly steps. */
const WARM_PAUSE_MS = 100;

/**
 * A Piscina pool, what was started on it and, while a recycle warms its replacement, the successor.
 * Without recycling a plugin has one lane with all its threads; with recycling each thread is a lane of
 * its own, so threads are replaced one at a time.
 */
interface Lane {
  piscina: Piscina<HostTask, HostReply>;
  /** Tasks started on the current thread (recycling only); at recycleAfter it is replaced. */
  tasks: number;
  /** Tasks handed to the current threads and not yet settled (running or queued in Piscina). */
  pending: Set<Promise<unknown>>;
  /** The pool that replaces the current one, while its thread warms up. */
  successor: Piscina<HostTask, HostReply> | null;
}

export class PluginPool {
  readonly #lanes: Lane[];
  /** Where the search for the least busy lane starts: the lane after the last one chosen. */
  #nextLane = 0;
  readonly #retiring = new Set<Promise<void>>();
  /** The warm-up of the last recycle asked for: lanes warm their successors one after another. */
  #warming: Promise<unknown> = Promise.resolve();
  #closed = false;
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
  ) {
    const recycleAfter = limits.recycleAfter ?? 0;
    const lanes = recycleAfter > 0 ? limits.maxThreads : 1;
    const threads = limits.maxThreads / lanes;
    // Lane i starts i/n of the way into its first generation, so that the lanes' recycles come evenly
    // spread: one thread warms at a time, and the native memory the threads hold is at different ages.
    this.#lanes = Array.from({ length: lanes }, (_, i) => ({
      piscina: this.#create(threads, lanes),
      tasks: Math.floor((i * recycleAfter) / lanes),
      pending: new Set(),
      successor: null,
    }));
  }

  #create(threads: number, lanes: number): Piscina<HostTask, HostReply> {
    const limits = this.limits;
    return new Piscina<HostTask, HostReply>({
      filename: HOST,
      workerData: { workerUrl: this.workerUrl },
      minThreads: 0,
      maxThreads: threads,
      // The plugin's queue is shared out between its lanes.
      maxQueue: Math.ceil(limits.maxQueue / lanes),
      idleTimeout: limits.idleTimeoutMs ?? 30_000,
      // 'sync' parks an idle thread in Atomics.wait (no timers, no I/O); 'async' waits with Atomics.waitAsync.
      atomics: limits.runBetweenTasks ? 'async' : 'sync',
      resourceLimits: {
        maxOldGenerationSizeMb: limits.memoryMb,
        maxYoungGenerationSizeMb: Math.max(16, Math.min(64, Math.floor(limits.memoryMb / 8))),
      },
    });
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

  /** The lane with the fewest unsettled tasks; of equals, the first after the lane chosen last (round robin). */
  #pickLane(): Lane {
    const lanes = this.#lanes;
    let best = lanes[this.#nextLane % lanes.length]!;
    for (let k = 1; k < lanes.length; k++) {
      const lane = lanes[(this.#nextLane + k) % lanes.length]!;
      if (lane.pending.size < best.pending.size) best = lane;
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
    const next = this.#create(1, this.#lanes.length);
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
      const closing = Promise.allSettled(pending)
        .then(() => old.close())
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
  static forPlugin(def: PluginDefinition, limits: PoolLimits = def.manifest.pool): PluginPool {
    const workerUrl = typeof def.worker === 'string' ? def.worker : def.worker.href;
    return new PluginPool(def.manifest.id, workerUrl, limits);
  }

  /**
   * How many jobs the runner has on threads at once: one per thread, so a job is PROCESSING (and its
   * deadline runs) only while a thread works on it or its output is stored; the rest wait PENDING in
   * the runner's queue.
   */
  get capacity(): number {
    return this.limits.maxThreads;
  }

  /** Names of the functions the plugin's worker module exports (checked against the manifest at boot). */
  async describe(): Promise<string[]> {
    const reply = await this.#lanes[0]!.piscina.run({ kind: 'describe' });
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    return reply.exports ?? [];
  }

  /**
   * Runs one action; every failure comes back as a JobError with a code and a message for the client. With
   * `storeAt`, the thread writes the output file there itself before it answers (writeBlobSync).
   */
  async run(exportName: string, input: WorkerInput, timeoutMs = this.limits.timeoutMs, storeAt?: BlobTarget): Promise<WorkerOutput> {
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
    const recycleAfter = this.limits.recycleAfter ?? 0;
    if (recycleAfter > 0 && ++lane.tasks >= recycleAfter) this.#recycle(lane);
    // Taken after the recycle: a task handed to the pool that is closing would be aborted.
    const pending = lane.pending;
    const task = lane.piscina.run({ kind: 'run', exportName, input, ...(channel ? { port: channel.port2 } : {}), ...(storeAt ? { storeAt } : {}) }, { signal: controller.signal, transferList: transferList as never });
    pending.add(task);
    try {
      const reply = await task;
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

  async close(): Promise<void> {
    this.#closed = true;
    const successors = this.#lanes.map((lane) => lane.successor);
    for (const lane of this.#lanes) lane.successor = null;
    // A successor runs no job: its threads, maybe still warming, are ended at once.
    await Promise.all([...this.#lanes.map((lane) => lane.piscina.close({ force: true })), ...successors.map((s) => s?.destroy()), ...this.#retiring]);
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
