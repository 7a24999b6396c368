// Public shapes of stored records: exactly the fields the contracts list, so nothing internal leaks.
import type { FileRecord, JobRecord } from '../kernel/model.js';
import type { ToolFile, ToolsJob } from '../contracts/common.js';
import type { DownloadLinks } from '../services/download-links.js';
import { renderFilename } from '../services/job-events.js';
import type { ImageSettings } from '../services/render-service.js';
import { RENDER_TARGETS, type RenderJob, type PdfProfile, type PdfCompliance } from '../contracts/render.js';

export function toolsJobView(links: DownloadLinks, job: JobRecord): ToolsJob {
  const downloadUrl = links.downloadUrl(job);
  return {
    id: job.id,
    action: job.action,
    status: job.status,
    inputFileIds: job.inputFileIds,
    outputFileId: job.outputFileId,
    error: job.error,
    errorCode: job.errorCode,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
    ...(downloadUrl ? { downloadUrl } : {}),
    result: job.result,
    metadata: job.result,
    progress: job.progress,
    creditCost: job.estimatedCredits,
  };
}

/** Files the tools endpoints show: uploads and outputs, never temporary images. */
export type ToolFileRecord = FileRecord & { kind: ToolFile['kind'] };

export function toolFileView(file: ToolFileRecord): ToolFile {
  return {
    id: file.id,
    filename: file.filename,
    mimeType: file.mimeType,
    sizeBytes: file.sizeBytes,
    kind: file.kind,
    sourceAction: file.sourceAction,
    expiresAt: file.expiresAt,
    createdAt: file.createdAt,
    ...(file.mimeType === 'application/pdf' ? { pageCount: file.pageCount } : {}),
  };
}

/** A job's `format`: the target it was rendered to, in capitals (PDF for a record that names none). */
function formatOf(target: string): RenderJob['format'] {
  return RENDER_TARGETS.includes(target) ? target.toUpperCase() : 'PDF';
}

export function renderJobView(links: DownloadLinks, job: JobRecord): RenderJob {
  const doc = (job.params.document ?? {}) as { document?: { type?: string } };
  const image = job.params.image as ImageSettings | undefined;
  const result = (job.result ?? {}) as { pdfCompliance?: PdfCompliance; pageCount?: number; warnings?: RenderJob['warnings']; selectedPages?: number[] };
  return {
    jobId: job.id,
    status: job.status,
    format: formatOf(image?.format ?? doc.document?.type ?? 'pdf'),
    creditCost: job.estimatedCredits,
    createdAt: job.createdAt,
    downloadUrl: links.downloadUrl(job),
    filename: renderFilename(job),
    filloutId: (job.params.filloutId as string | undefined) ?? null,
    error: job.error,
    errorCode: job.errorCode,
    completedAt: job.completedAt,
    progress: job.progress,
    pdfProfile: (job.params.pdfProfile as PdfProfile | undefined) ?? 'standard',
    pdfCompliance: result.pdfCompliance ?? null,
    pageCount: result.pageCount ?? null,
    warnings: [...(job.warnings ?? []), ...(result.warnings ?? [])],
    image: image ? { format: image.format, dpi: image.dpi, pages: image.pages, selectedPages: result.selectedPages ?? null } : null,
  };
}
