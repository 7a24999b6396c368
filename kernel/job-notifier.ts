// Turns finished jobs into per-request webhook calls (spec "Events"); delivery never touches the job.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from './tokens.js';
import type { JobRecord } from './model.js';
import { WebhookDelivery } from './webhook-delivery.js';
import type { JobLinks } from './job-links.js';
import type { Logger } from './logger.js';
import type { EventBus } from './events.js';

export function toolsJobEvent(job: JobRecord, downloadUrl: string | null): Record<string, unknown> {
  if (job.status === 'COMPLETED') {
    return {
      event: 'job.completed',
      jobType: 'tools',
      jobId: job.id,
      action: job.action,
      status: job.status,
      ...(downloadUrl ? { downloadUrl } : {}),
      completedAt: job.completedAt,
    };
  }
  return { event: 'job.failed', jobType: 'tools', jobId: job.id, action: job.action, status: job.status, error: job.error, errorCode: job.errorCode, completedAt: job.completedAt };
}

/** Payload of a render job's event (spec "Events": jobType render). */
export function renderJobEvent(job: JobRecord): Record<string, unknown> {
  if (job.status === 'COMPLETED') {
    return { event: 'job.completed', jobType: 'render', jobId: job.id, status: job.status, filename: renderFilename(job), completedAt: job.completedAt };
  }
  return { event: 'job.failed', jobType: 'render', jobId: job.id, status: job.status, error: job.error, errorCode: job.errorCode, completedAt: job.completedAt };
}

/** The download name of a render: `document.filename` (or `document`) plus the output's extension. */
export function renderFilename(job: JobRecord): string {
  const doc = (job.params.document ?? {}) as { document?: { filename?: string; type?: string } };
  const image = job.params.image as { format: 'png' | 'jpeg'; pages: string[] } | undefined;
  return `${doc.document?.filename ?? 'document'}.${image ? imageExtension(job, image) : (doc.document?.type ?? 'pdf')}`;
}

/**
 * Page images: one selected page is the image itself, several a ZIP. Until the job completes the page
 * count is unknown, so the name follows the request: one spec naming one page (`3`, `3-3`) is an image.
 */
function imageExtension(job: JobRecord, image: { format: 'png' | 'jpeg'; pages: string[] }): string {
  const single = image.format === 'jpeg' ? 'jpg' : 'png';
  const selected = (job.result as { selectedPages?: number[] } | null)?.selectedPages;
  if (selected) return selected.length === 1 ? single : 'zip';
  const one = image.pages.length === 1 && /^\s*(\d+)\s*(?:-\s*\1\s*)?$/.test(image.pages[0]!);
  return one ? single : 'zip';
}

/** Delivers every finished job's per-request webhook; subscribed to the event bus when the container builds it. */
@injectable()
export class JobNotifier {
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(
    @inject(WebhookDelivery) private readonly delivery: WebhookDelivery,
    @inject(TOKENS.JobLinks) private readonly links: JobLinks,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(TOKENS.Events) events: EventBus,
  ) {
    events.on('job.finished', (job) => this.notify(job));
  }

  notify(job: JobRecord): void {
    if (!job.webhook) return;
    const payload = job.kind === 'render' ? renderJobEvent(job) : toolsJobEvent(job, this.links.downloadUrl(job));
    const p = this.delivery.deliver(job.webhook, payload).then((outcome) => {
      this.log.info({ jobId: job.id, event: payload.event, delivered: outcome.delivered, status: outcome.status, error: outcome.error }, 'webhook delivery');
    });
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
  }

  /** Lets deliveries already started finish during shutdown (each is bounded by its own timeout). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#inflight]);
  }
}
