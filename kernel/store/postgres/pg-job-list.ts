// The job list of GET /jobs on PostgreSQL: migration 0011 (bulk jobs get a created_at column; both tables an index in
// the list's order) and one query that merges an organization's render and tools jobs with its bulk jobs.
import type { BulkJobRecord, JobRecord } from '../../model.js';
import type { JobListFilter, JobListRow, PageKey } from '../store.js';
import { prepared, type Db } from './pg-rows.js';

/**
 * Migration 0011. Bulk jobs had no created_at column: added (nullable, so a node still on 0010 can write), filled
 * from `data` for the rows there are, and written with every put from now on. The job index leaves out bulk items,
 * which the list never shows; each index is in the list's order, so a page reads only its rows.
 */
export const JOB_LIST_SQL = `
ALTER TABLE bulk_jobs ADD COLUMN created_at timestamptz;
UPDATE bulk_jobs SET created_at = (data->>'createdAt')::timestamptz;
CREATE INDEX jobs_org_listed ON jobs (org_id, created_at DESC, id COLLATE "C" DESC) WHERE bulk_id IS NULL;
CREATE INDEX bulk_jobs_org_created ON bulk_jobs (org_id, created_at DESC, id COLLATE "C" DESC);
`;

const ORDER = 'ORDER BY created_at DESC, id COLLATE "C" DESC';
// $1 org, $2 limit, $3 statuses and $4 kinds (null: every one), $5 and $6 the cursor (null: from the newest).
const AFTER = '($5::timestamptz IS NULL OR created_at < $5 OR (created_at = $5 AND id COLLATE "C" < $6))';
const STATUS = '($3::text[] IS NULL OR status = ANY($3))';
const LIST_SQL =
  `SELECT src, data FROM (` +
  `(SELECT 'job' AS src, id, created_at, data FROM jobs WHERE org_id = $1 AND bulk_id IS NULL AND ${STATUS} AND ($4::text[] IS NULL OR coalesce(data->>'kind', 'tools') = ANY($4)) AND ${AFTER} ${ORDER} LIMIT $2)` +
  ` UNION ALL ` +
  `(SELECT 'bulk' AS src, id, created_at, data FROM bulk_jobs WHERE org_id = $1 AND ${STATUS} AND ($4::text[] IS NULL OR 'bulk' = ANY($4)) AND ${AFTER} ${ORDER} LIMIT $2)` +
  `) AS listed ${ORDER} LIMIT $2`;

/** Both tables' part of the list, each at most `limit` rows in order, merged and cut to `limit` again. */
export async function listJobs(db: Db, orgId: string, filter: JobListFilter, limit: number, after?: PageKey): Promise<JobListRow[]> {
  const orNull = <T>(list: T[] | undefined) => (list?.length ? list : null);
  const params = [orgId, limit, orNull(filter.statuses), orNull(filter.kinds), after?.createdAt ?? null, after?.id ?? ''];
  const { rows } = await prepared<{ src: 'job' | 'bulk'; data: JobRecord | BulkJobRecord }>(db, 'list_jobs', LIST_SQL, params);
  return rows.map((r) => (r.src === 'job' ? { kind: 'job', job: r.data as JobRecord } : { kind: 'bulk', bulk: r.data as BulkJobRecord }));
}
