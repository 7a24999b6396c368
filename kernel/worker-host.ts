// Runs inside every plugin worker thread: loads the plugin's worker module and calls one export per task.
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { workerData, type MessagePort } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { SerializedError } from '../contracts/errors.js';
import { wholeBuffer } from './transferable.js';
import type { WarmUpPause, WorkerInput, WorkerOutput } from '../sdk/plugin-api.js';
import { callerFor } from './service-port.js';
import { writeBlobSync, type BlobTarget } from './store/blob-store.js';

/**
 * `port` reaches the plugin's main-process services (when it provisions any). `describe` lists the module's exports;
 * with `warm` the thread then warms the engine in its spare time (the pool keeps it), else it stays cold (the pool
 * ends it). `warm` loads the module and
 * runs its `warmUp` export to the end: the pool sends it to fresh threads before they take over jobs. It
 * leaves `pauseMs` between its costly steps (the import, and each step the plugin marks with `pause()`),
 * so that a warm-up never holds a core the working threads need.
 */
export type HostTask =
  | { kind: 'describe'; warm?: boolean }
  | { kind: 'warm'; pauseMs: number }
  | { kind: 'run'; exportName: string; input: WorkerInput; port?: MessagePort; storeAt?: BlobTarget };

/** `heapMb`: the thread's V8 heap after a `run` task (total_heap_size), by which the pool recycles a grown thread. */
export type HostReply =
  | { ok: true; exports?: string[]; output?: WorkerOutput; heapMb?: number }
  | { ok: false; error: SerializedError; heapMb?: number };

function heapMb(): number {
  return getHeapStatistics().total_heap_size / 1048576;
}

const { workerUrl } = workerData as { workerUrl: string };
let loaded: Promise<Record<string, unknown>> | undefined;
let warmed: Promise<void> | undefined;

const noPause: WarmUpPause = () => Promise.resolve();

/**
 * Imports the worker module once per thread. A thread that takes jobs at once (the pool's first threads)
 * runs the module's `warmUp` in its spare time after the import; a `warm` task runs it itself, paced.
 */
function load(warmInSpareTime: boolean): Promise<Record<string, unknown>> {
  loaded ??= (import(workerUrl) as Promise<Record<string, unknown>>).then((mod) => {
    if (warmInSpareTime) setImmediate(() => void warmUp(mod, noPause));
    return mod;
  });
  return loaded;
}

/** Runs the module's `warmUp()` once per thread (what the first job would otherwise pay: engines, fonts); a failure only leaves the thread cold. */
function warmUp(mod: Record<string, unknown>, pause: WarmUpPause): Promise<void> {
  warmed ??= (async () => {
    if (typeof mod.warmUp === 'function') await (mod.warmUp as (pause: WarmUpPause) => unknown)(pause);
  })().catch(() => undefined);
  return warmed;
}

function serialize(err: unknown): SerializedError {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; message?: unknown; details?: unknown; name?: unknown };
    const isPluginError = e.name === 'PluginError' && typeof e.code === 'string';
    return {
      code: isPluginError ? (e.code as string) : 'UNEXPECTED',
      message: typeof e.message === 'string' && e.message ? e.message : String(err),
      details: isPluginError ? e.details : { name: typeof e.name === 'string' ? e.name : undefined, code: typeof e.code === 'string' ? e.code : undefined },
    };
  }
  return { code: 'UNEXPECTED', message: String(err) };
}

export default async function host(task: HostTask): Promise<HostReply> {
  const caller = task.kind === 'run' && task.port ? callerFor(task.port) : null;
  try {
    if (task.kind === 'warm') {
      const pause: WarmUpPause = () => sleep(task.pauseMs);
      const mod = await load(false);
      await pause();
      await warmUp(mod, pause);
      return { ok: true };
    }
    const mod = await load(task.kind === 'run' || task.warm === true);
    if (task.kind === 'describe') {
      return { ok: true, exports: Object.keys(mod).filter((k) => typeof mod[k] === 'function') };
    }
    const fn = mod[task.exportName];
    if (typeof fn !== 'function') {
      return { ok: false, error: { code: 'UNEXPECTED', message: `The worker has no export ${task.exportName}.` } };
    }
    const input = caller ? { ...task.input, call: caller.call } : task.input;
    const output = (await (fn as (input: WorkerInput) => Promise<WorkerOutput>)(input)) ?? {};
    if (output.file && task.storeAt) writeBlobSync(task.storeAt, output.file.bytes);
    const reply: HostReply = { ok: true, output, heapMb: heapMb() };
    // Move the output bytes to the main thread instead of copying them.
    const buffer = output.file ? wholeBuffer(output.file.bytes) : null;
    if (buffer) {
      const movable = { [transferableSymbol]: [buffer], [valueSymbol]: reply };
      return move(movable as never) as unknown as HostReply;
    }
    return reply;
  } catch (err) {
    return { ok: false, error: serialize(err), ...(task.kind === 'run' ? { heapMb: heapMb() } : {}) };
  } finally {
    caller?.close();
  }
}
