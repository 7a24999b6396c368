// Calls from a worker thread to its plugin's main-process services, over a MessagePort handed over with each task.
import type { MessagePort } from 'node:worker_threads';
import type { PluginServices } from '../sdk/plugin-api.js';
import { wholeBuffer } from './transferable.js';

interface CallMessage {
  id: number;
  method: string;
  arg: unknown;
}

type ReplyMessage = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: { code: string; message: string } };

/** Main side: answers the worker's calls until the task ends (the caller closes the port). */
export function serveCalls(port: MessagePort, services: PluginServices): void {
  port.on('message', (msg: CallMessage) => {
    void (async () => {
      let reply: ReplyMessage;
      try {
        const fn = Object.hasOwn(services.methods, msg.method) ? services.methods[msg.method] : undefined;
        if (!fn) throw Object.assign(new Error(`The plugin's services have no method ${msg.method}.`), { code: 'UNEXPECTED' });
        reply = { id: msg.id, ok: true, value: await fn(msg.arg) };
      } catch (err) {
        const e = err as { code?: unknown; message?: unknown };
        reply = { id: msg.id, ok: false, error: { code: typeof e.code === 'string' ? e.code : 'UNEXPECTED', message: typeof e.message === 'string' ? e.message : String(err) } };
      }
      try {
        port.postMessage(reply, movable(reply.ok ? reply.value : null));
      } catch {
        // The task ended (port closed) before the answer: nobody waits for it.
      }
    })();
  });
}

/** Worker side: the `call` function of WorkerInput. A failure rejects with a PluginError-shaped error carrying the service's code. */
export function callerFor(port: MessagePort): { call: (method: string, arg?: unknown) => Promise<unknown>; close: () => void } {
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  port.on('message', (msg: ReplyMessage) => {
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.ok) w.resolve(msg.value);
    else w.reject(Object.assign(new Error(msg.error.message), { name: 'PluginError', code: msg.error.code }));
  });
  return {
    call(method, arg) {
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        port.postMessage({ id, method, arg } satisfies CallMessage, movable(arg));
      });
    },
    close: () => port.close(),
  };
}

/** The buffers of whole Uint8Arrays in a value (top level or one level down), moved rather than copied. */
function movable(value: unknown): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  const add = (v: unknown) => {
    if (v instanceof Uint8Array) {
      const b = wholeBuffer(v);
      if (b && !out.includes(b)) out.push(b);
    }
  };
  add(value);
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) for (const v of Object.values(value)) add(v);
  return out;
}
