// JSON Schema of GET /jobs: one list of an organization's render, tools and bulk render jobs, newest first.
import { Type, type Static } from '@sinclair/typebox';
import { JobStatusSchema } from './common.js';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, description?: string) => Type.Union([t, Type.Null()], description ? { description } : {});

export const JOB_LIST_KINDS = ['render', 'tools', 'bulk'] as const;
export const JOB_LIST_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;

export const JobListItemSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: Type.Union(JOB_LIST_KINDS.map((k) => Type.Literal(k)), { description: 'render: GET /render/{id}; tools: GET /tools/jobs/{id}; bulk: GET /bulk-render/{id}.' }),
  action: Type.String({ description: 'What the job does: render.pdf, pdf.merge, … (`bulk-render` for a bulk job).' }),
  status: JobStatusSchema,
  createdAt: Timestamp,
  finishedAt: Nullable(Timestamp, 'When it reached COMPLETED or FAILED.'),
  error: Nullable(Type.String(), 'Why it failed.'),
  errorCode: Nullable(Type.String(), 'Machine-readable code of the failure (docs/errors.md); null for a bulk job.'),
  statusPath: Type.String({ description: 'The path to poll, under the API base (/api/v1/dev): /render/{id}, /tools/jobs/{id} or /bulk-render/{id}.' }),
  downloadUrl: Nullable(Type.String(), 'Signed, time-limited URL of the output (a bulk job\'s ZIP) once COMPLETED with one; null otherwise.'),
  creditCost: Type.Number({ description: 'Credits it costs (a bulk job: every item that can run).' }),
  progress: Type.Number({ description: 'Percent done, 0 to 100 (a bulk job: its ended items of all).' }),
  items: Nullable(
    Type.Object({ total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer() }),
    'A bulk job\'s items: how many there are, have completed and have failed (null for other jobs).',
  ),
});
export type JobListItem = Static<typeof JobListItemSchema>;

export const JobListSchema = Type.Object({ items: Type.Array(JobListItemSchema), nextCursor: Nullable(Type.String(), 'Pass as `cursor` for the next page; null on the last.') });
export type JobList = Static<typeof JobListSchema>;
