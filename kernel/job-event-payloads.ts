// The port through which the kernel asks what a finished job's webhook event says: the event shapes, file names and
// download links belong to the service layer (services/job-events.ts); the composition root plugs one into the other.
import type { JobRecord } from './model.js';

export interface JobEventPayloads {
  /** The JSON body of the job's event (`job.completed` or `job.failed`). */
  payloadOf(job: JobRecord): Record<string, unknown>;
}
