// One Piscina pool per plugin: resource limits, a bounded queue and a deadline per action.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { JobError } from './errors.js';
import type { PluginDefinition, PoolLimits, WorkerInput, WorkerOutput } from './plugin-api.js';
import { wholeBuffer } from './transferable.js';
import type { HostReply, HostTask } from './worker-host.js';

const HOST = fileURLToPath(new URL('./worker-host.js', import.meta.url));

export class PluginPool {
  readonly #piscina: Piscina<HostTask, HostReply>;

  constructor(
    readonly pluginId: string,
    workerUrl: string,
    readonly limits: PoolLimits,
  ) {
    this.#piscina = new Piscina<HostTask, HostReply>({
      filename: HOST,
      workerData: { workerUrl },
      minThreads: 0,
      maxThreads: limits.maxThreads,
      maxQueue: limits.maxQueue,
      idleTimeout: 30_000,
      resourceLimits: {
        maxOldGenerationSizeMb: limits.memoryMb,
        maxYoungGenerationSizeMb: Math.max(16, Math.min(64, Math.floor(limits.memoryMb / 8))),
      },
    });
  }

  /** The pool of a plugin, with its manifest's limits unless the operator overrides them. */
  static forPlugin(def: PluginDefinition, limits: PoolLimits = def.manifest.pool): PluginPool {
    const workerUrl = typeof def.worker === 'string' ? def.worker : def.worker.href;
    return new PluginPool(def.manifest.id, workerUrl, limits);
  }

  /**
   * How many jobs the runner hands over at once: one per thread, so a job is PROCESSING (and its
   * deadline runs) only while a thread works on it; the rest wait PENDING in the runner's queue.
   */
  get capacity(): number {
    return this.limits.maxThreads;
  }

  /** Names of the functions the plugin's worker module exports (checked against the manifest at boot). */
  async describe(): Promise<string[]> {
    const reply = await this.#piscina.run({ kind: 'describe' });
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    return reply.exports ?? [];
  }

  /** Runs one action; every failure comes back as a JobError with a code and a message for the client. */
  async run(exportName: string, input: WorkerInput, timeoutMs = this.limits.timeoutMs): Promise<WorkerOutput> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const transferList: ArrayBuffer[] = [];
    for (const f of input.files) {
      const buffer = wholeBuffer(f.bytes);
      if (buffer && !transferList.includes(buffer)) transferList.push(buffer);
    }
    try {
      const reply = await this.#piscina.run({ kind: 'run', exportName, input }, { signal: controller.signal, transferList: transferList as never });
      if (!reply.ok) throw new JobError(reply.error.code, reply.error.message, reply.error.details);
      return reply.output ?? {};
    } catch (err) {
      if (err instanceof JobError) throw err;
      if (controller.signal.aborted) {
        throw new JobError('DEADLINE_EXCEEDED', `The ${this.pluginId} action took longer than its ${formatMs(timeoutMs)} deadline and was stopped.`);
      }
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new JobError('WORKER_CRASHED', `The ${this.pluginId} worker ran out of memory (limit ${this.limits.memoryMb} MB) on this input.`);
      }
      throw new JobError('WORKER_CRASHED', `The ${this.pluginId} worker crashed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.#piscina.close({ force: true });
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
