// The payloads of job events (spec "Events"): tools and render jobs, completed or failed, with the download link or
// the render's file name. The kernel's notifier delivers them; what they say is decided here.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import type { JobRecord } from '../kernel/model.js';
import type { JobEventPayloads } from '../kernel/job-event-payloads.js';
import { DownloadLinks } from './download-links.js';

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

/** Payload of a render job's event (spec "Events": jobType render); with `filloutId` when it renders a form's record. */
export function renderJobEvent(job: JobRecord): Record<string, unknown> {
  if (job.status === 'COMPLETED') {
    return { event: 'job.completed', jobType: 'render', jobId: job.id, status: job.status, filename: renderFilename(job), ...fillout(job), completedAt: job.completedAt };
  }
  return { event: 'job.failed', jobType: 'render', jobId: job.id, status: job.status, error: job.error, errorCode: job.errorCode, ...fillout(job), completedAt: job.completedAt };
}

/** A render of a form's record names the record (`filloutId`), so a receiver can match the event to the submission. */
function fillout(job: JobRecord): { filloutId?: string } {
  const id = job.params.filloutId;
  return typeof id === 'string' ? { filloutId: id } : {};
}

/**
 * What a render job's answers (renderJobView) and events (renderFilename, filloutId) read of its params: all that is
 * kept of them once the job has finished (JobRecord.paramsShown), not the whole document.
 */
export function renderParamsShown(params: { document: { document: { type: string; filename?: string } }; pdfProfile: string; createdAt: string; image?: unknown; filloutId?: string }): Record<string, unknown> {
  const { type, filename } = params.document.document;
  return {
    document: { document: { type, ...(filename !== undefined ? { filename } : {}) } },
    pdfProfile: params.pdfProfile,
    createdAt: params.createdAt,
    ...(params.image ? { image: params.image } : {}),
    ...(params.filloutId ? { filloutId: params.filloutId } : {}),
  };
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

@injectable()
export class JobEvents implements JobEventPayloads {
  constructor(@inject(DownloadLinks) private readonly links: DownloadLinks) {}

  payloadOf(job: JobRecord): Record<string, unknown> {
    return job.kind === 'render' ? renderJobEvent(job) : toolsJobEvent(job, this.links.downloadUrl(job));
  }
}
