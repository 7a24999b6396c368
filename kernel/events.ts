// In-process event bus: the job runner announces state changes; webhooks and logs listen.
import { EventEmitter } from 'node:events';
import type { JobRecord } from './model.js';

export interface KernelEvents {
  'job.finished': [job: JobRecord];
  'job.started': [job: JobRecord];
  /** This node queued webhook deliveries (with a job's finish, a ping, a redelivery): the dispatcher looks at once. */
  'webhooks.queued': [];
}

export class EventBus {
  readonly #emitter = new EventEmitter();

  on<K extends keyof KernelEvents>(event: K, listener: (...args: KernelEvents[K]) => void): void {
    this.#emitter.on(event, listener as (...args: unknown[]) => void);
  }

  off<K extends keyof KernelEvents>(event: K, listener: (...args: KernelEvents[K]) => void): void {
    this.#emitter.off(event, listener as (...args: unknown[]) => void);
  }

  emit<K extends keyof KernelEvents>(event: K, ...args: KernelEvents[K]): void {
    // A listener's failure must never fail the job that emitted the event.
    for (const listener of this.#emitter.listeners(event)) {
      try {
        (listener as (...a: KernelEvents[K]) => void)(...args);
      } catch {
        /* listeners log their own failures */
      }
    }
  }
}
