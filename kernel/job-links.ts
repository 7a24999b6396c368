// The port through which the kernel asks for a finished job's download link: the kernel knows no routes or URLs,
// the service layer does (services/download-links.ts), and the composition root plugs one into the other.
import type { JobRecord } from './model.js';

export interface JobLinks {
  /** Absolute, signed, expiring download URL of a job's output file (null without one). */
  downloadUrl(job: Pick<JobRecord, 'id' | 'kind' | 'orgId' | 'outputFileId' | 'status'>): string | null;
}
