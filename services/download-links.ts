// Download links of finished jobs and stored files: signed, expiring tokens in URLs that name the public routes.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { signDownloadToken } from '../kernel/signed-download-token.js';
import type { Clock } from '../kernel/clock.js';
import type { QuireConfig } from '../kernel/config.js';
import type { JobRecord } from '../kernel/model.js';

/** What a render download token is bound to: the job, in a scope no file id can take. */
export function renderTokenScope(jobId: string): string {
  return `render:${jobId}`;
}

/** What a bulk render's ZIP download token is bound to. */
export function bulkTokenScope(bulkJobId: string): string {
  return `bulk:${bulkJobId}`;
}

@injectable()
export class DownloadLinks {
  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Secrets) private readonly secret: Buffer,
  ) {}

  /** Absolute, signed, expiring download URL of a job's output file (null without one). */
  downloadUrl(job: Pick<JobRecord, 'id' | 'kind' | 'orgId' | 'outputFileId' | 'status'>): string | null {
    if (job.status !== 'COMPLETED' || !job.outputFileId) return null;
    if (job.kind === 'render') {
      const token = signDownloadToken(this.secret, { fileId: renderTokenScope(job.id), orgId: job.orgId, expiresAt: this.#tokenExpiry() });
      return `${this.config.publicUrl}/api/v1/dev/render/${job.id}/download?token=${encodeURIComponent(token)}`;
    }
    return this.fileDownloadUrl(job.orgId, job.outputFileId);
  }

  /** The signed URL of a finished bulk render's ZIP (null without one). */
  bulkDownloadUrl(bulk: { id: string; orgId: string; outputFileId: string | null }): string | null {
    if (!bulk.outputFileId) return null;
    const token = signDownloadToken(this.secret, { fileId: bulkTokenScope(bulk.id), orgId: bulk.orgId, expiresAt: this.#tokenExpiry() });
    return `${this.config.publicUrl}/api/v1/dev/bulk-render/${bulk.id}/download?token=${encodeURIComponent(token)}`;
  }

  fileDownloadUrl(orgId: string, fileId: string): string {
    const token = signDownloadToken(this.secret, { fileId, orgId, expiresAt: this.#tokenExpiry() });
    return `${this.config.publicUrl}/api/v1/dev/tools/files/${fileId}/download?token=${encodeURIComponent(token)}`;
  }

  #tokenExpiry(): number {
    return Math.floor(this.clock.now().getTime() / 1000) + this.config.downloadTokenTtlSeconds;
  }
}
