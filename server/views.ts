// Public shapes of stored records: exactly the fields the contracts list, so nothing internal leaks.
import type { FileRecord, JobRecord } from '../kernel/model.js';
import type { ToolFile, ToolsJob } from '../contracts/common.js';
import type { DownloadLinks } from '../services/download-links.js';

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
