// The embedded store's job list (GET /jobs): an organization's render and tools jobs and bulk jobs, newest first, filtered and paged.
import type { BulkJobRecord, JobRecord } from '../model.js';
import { before, newestFirst } from './newest-first.js';
import type { JobListFilter, JobListRow, PageKey } from './store.js';

const wanted = <T>(list: T[] | undefined, value: T): boolean => !list?.length || list.includes(value);

/** `copyJob` and `copyBulk` give readers their own copies (the store's records never leave it). */
export function listJobs(
  data: { jobs: Record<string, JobRecord>; bulkJobs: Record<string, BulkJobRecord> },
  orgId: string,
  filter: JobListFilter,
  limit: number,
  after: PageKey | undefined,
  copyJob: (j: JobRecord) => JobRecord,
  copyBulk: (b: BulkJobRecord) => BulkJobRecord,
): JobListRow[] {
  const rows: Array<{ createdAt: string; id: string; row: () => JobListRow }> = [];
  for (const j of Object.values(data.jobs)) {
    // A bulk job's items are listed by their bulk job (GET /bulk-render/{id}), not one by one.
    if (j.orgId !== orgId || j.bulk || !wanted(filter.kinds, j.kind ?? 'tools') || !wanted(filter.statuses, j.status) || !before(j, after)) continue;
    rows.push({ createdAt: j.createdAt, id: j.id, row: () => ({ kind: 'job', job: copyJob(j) }) });
  }
  if (wanted(filter.kinds, 'bulk')) {
    for (const b of Object.values(data.bulkJobs)) {
      if (b.orgId !== orgId || !wanted(filter.statuses, b.status) || !before(b, after)) continue;
      rows.push({ createdAt: b.createdAt, id: b.id, row: () => ({ kind: 'bulk', bulk: copyBulk(b) }) });
    }
  }
  return rows
    .sort(newestFirst)
    .slice(0, limit)
    .map((r) => r.row());
}
