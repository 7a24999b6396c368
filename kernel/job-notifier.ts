// Turns finished jobs into per-request webhook calls (spec "Events"); delivery never touches the job. What an
// event says is the service layer's (services/job-events.ts), asked through the JobEventPayloads port.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from './tokens.js';
import type { JobRecord, WebhookConfig } from './model.js';
import { WebhookDelivery } from './webhook-delivery.js';
import type { JobEventPayloads } from './job-event-payloads.js';
import type { Logger } from './logger.js';
import type { EventBus } from './events.js';
import { Metrics } from './metrics.js';

/** Delivers every finished job's per-request webhook; subscribed to the event bus when the container builds it. */
@injectable()
export class JobNotifier {
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(
    @inject(WebhookDelivery) private readonly delivery: WebhookDelivery,
    @inject(TOKENS.JobEventPayloads) private readonly payloads: JobEventPayloads,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(TOKENS.Events) events: EventBus,
    @inject(Metrics) private readonly metrics: Metrics,
  ) {
    events.on('job.finished', (job) => this.notify(job));
  }

  notify(job: JobRecord): void {
    if (!job.webhook) return;
    this.send(job.webhook, this.payloads.payloadOf(job), job.id);
  }

  /** Delivers one event to a per-request webhook (a bulk render's, whose payload its service makes), tracked for shutdown. */
  send(webhook: WebhookConfig, payload: Record<string, unknown>, jobId: string): void {
    const p = this.delivery.deliver(webhook, payload).then((outcome) => {
      this.metrics.webhookDelivery('request', outcome.delivered);
      this.log.info({ jobId, event: payload.event, delivered: outcome.delivered, status: outcome.status, error: outcome.error }, 'webhook delivery');
    });
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
  }

  /** Lets deliveries already started finish during shutdown (each is bounded by its own timeout). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#inflight]);
  }
}
