// The hot path of a job on PostgreSQL in as few round trips as it can take: admission, claim and finish are each one
// statement (claim and finish read the job first only when another writer changed it since this server wrote it), and
// no row lock is held while this process waits for an answer.
import type pg from 'pg';
import { copy, prepared, put, readAll } from './pg-rows.js';
import { fanOutSql } from './pg-webhooks.js';
import type { BulkJobRecord, FileRecord, JobRecord, LedgerEntry, WebhookEvent } from '../../model.js';
import type { Admission, ClaimPatch, CreditCheck, JobLease } from '../store.js';

/** Channel of admitted jobs: the payload is `{ id, pluginId, orgId }` as JSON (sent in the admitting statement). */
export const JOBS_CHANNEL = 'quire_jobs';
/** Channel of finished jobs and bulk jobs: the payload is the id (sent in the finishing statement). */
export const FINISHED_CHANNEL = 'quire_job_finished';

/**
 * Migration 0005: an organization's balance in its own column, changed by one UPDATE (`balance = balance + amount`)
 * inside the statement that finishes a job, and read back over `data.balance`, which keeps the balance the
 * organization was created with (a double precision, as the embedded store's JavaScript numbers are). A job's
 * estimate in its own column too, so that summing what unfinished jobs promise (at every admission) reads an index,
 * not the text of every waiting job's document.
 */
export const HOT_COLUMNS_SQL = `
ALTER TABLE organizations ADD COLUMN balance double precision NOT NULL DEFAULT 0;
UPDATE organizations SET balance = coalesce((data->>'balance')::double precision, 0);
ALTER TABLE jobs ADD COLUMN estimated_credits double precision NOT NULL DEFAULT 0;
UPDATE jobs SET estimated_credits = coalesce((data->>'estimatedCredits')::double precision, 0) WHERE status IN ('PENDING', 'PROCESSING');
CREATE INDEX jobs_unfinished_org ON jobs (org_id) INCLUDE (estimated_credits) WHERE status IN ('PENDING', 'PROCESSING');
`;

/** Organizations with the balance of the `balance` column; `where` is a constant of the caller. */
export async function readOrganizations<R extends { balance: number }>(db: pg.Pool | pg.PoolClient, where: string, params: unknown[] = []): Promise<R[]> {
  const { rows } = await prepared<{ data: R; balance: number }>(db, `organizations_${where}`, `SELECT data, balance FROM organizations ${where}`, params);
  return rows.map((r) => ({ ...r.data, balance: r.balance }));
}

/** What the organization's unfinished jobs promise (their estimates); read from an index, not from their documents. */
const OUTSTANDING = "SELECT coalesce(sum(estimated_credits), 0) AS sum FROM jobs WHERE org_id = $1 AND status IN ('PENDING', 'PROCESSING')";

export async function outstandingEstimate(pool: pg.Pool | pg.PoolClient, orgId: string): Promise<number> {
  const { rows } = await prepared<{ sum: number }>(pool, 'outstanding_estimate', OUTSTANDING, [orgId]);
  return Number(rows[0]!.sum);
}

/** The balance and the outstanding estimate in one query (the credit check of JobService.hold; admissions check in quire_admit_job). */
export async function creditState(pool: pg.Pool, orgId: string): Promise<{ balance: number; outstanding: number } | undefined> {
  const { rows } = await prepared<{ balance: number; outstanding: number }>(pool, 'credit_state', `SELECT balance, (${OUTSTANDING}) AS outstanding FROM organizations WHERE id = $1`, [orgId]);
  return rows[0] && { balance: rows[0].balance, outstanding: Number(rows[0].outstanding) };
}

/**
 * Migration 0006: an admission in one round trip, atomic for every server. The organization's row is locked first;
 * PL/pgSQL takes a new snapshot for each statement, so the sum that follows sees every admission committed while
 * this one waited for the lock. The row stays locked only until the calling statement commits.
 */
export const ADMISSION_SQL = `
CREATE FUNCTION quire_admit_job(
  p_org text, p_cost double precision, p_held double precision, p_id text, p_status text, p_created timestamptz,
  p_bulk text, p_estimate double precision, p_data json, p_notice text
) RETURNS TABLE (admitted boolean, balance double precision, outstanding double precision, version text)
LANGUAGE plpgsql AS $$
DECLARE
  b double precision;
  o double precision;
  v text;
BEGIN
  SELECT organizations.balance INTO b FROM organizations WHERE id = p_org FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT coalesce(sum(estimated_credits), 0) INTO o FROM jobs WHERE org_id = p_org AND status IN ('PENDING', 'PROCESSING');
  IF b - o - p_held < p_cost THEN
    RETURN QUERY SELECT false, b, o, NULL::text;
    RETURN;
  END IF;
  INSERT INTO jobs (id, org_id, status, created_at, completed_at, bulk_id, estimated_credits, data)
  VALUES (p_id, p_org, p_status, p_created, NULL, p_bulk, p_estimate, p_data)
  RETURNING xmin::text INTO v;
  IF p_status = 'PENDING' THEN PERFORM pg_notify('${JOBS_CHANNEL}', p_notice); END IF;
  RETURN QUERY SELECT true, b, o, v;
END
$$;
`;

/** admitJob of the Store: the check and the insert in one call of quire_admit_job. */
export async function admitJob(pool: pg.Pool, job: JobRecord, check: CreditCheck): Promise<{ admission: Admission; written?: KnownJob }> {
  const { rows } = await prepared<{ admitted: boolean; balance: number; outstanding: number; version: string | null }>(
    pool,
    'admit_job',
    'SELECT admitted, balance, outstanding, version FROM quire_admit_job($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
    [job.orgId, check.cost, check.held, job.id, job.status, job.createdAt, job.bulk?.id ?? null, job.estimatedCredits ?? 0, JSON.stringify(job), jobNotice(job)],
  );
  const row = rows[0];
  if (!row) return { admission: { admitted: false, credit: undefined } };
  if (!row.admitted) return { admission: { admitted: false, credit: { balance: row.balance, outstanding: row.outstanding } } };
  return { admission: { admitted: true, durable: Promise.resolve() }, written: { job, version: row.version! } };
}

/**
 * The credit check of a bulk admission inside the caller's transaction: the organization's row locked, then what its
 * unfinished jobs hold (a statement after the lock: it sees every admission committed meanwhile). Undefined: admitted.
 */
export async function checkCredit(tx: pg.PoolClient, orgId: string, check: CreditCheck): Promise<Admission | undefined> {
  const { rows } = await tx.query<{ balance: number }>('SELECT balance FROM organizations WHERE id = $1 FOR UPDATE', [orgId]);
  if (!rows[0]) return { admitted: false, credit: undefined };
  const outstanding = await outstandingEstimate(tx, orgId);
  return rows[0].balance - outstanding - check.held < check.cost ? { admitted: false, credit: { balance: rows[0].balance, outstanding } } : undefined;
}

/** The notice of an admitted job, as PgJobQueue reads it. */
export function jobNotice(job: Pick<JobRecord, 'id' | 'pluginId' | 'orgId'>): string {
  return JSON.stringify({ id: job.id, pluginId: job.pluginId, orgId: job.orgId });
}

const STAGE_SQL = `
WITH job AS (
  INSERT INTO jobs (id, org_id, status, created_at, completed_at, bulk_id, estimated_credits, data) VALUES ($1, $2, $3, $4, $5, $6, $9, $7)
  ON CONFLICT (id) DO UPDATE SET org_id = EXCLUDED.org_id, status = EXCLUDED.status, created_at = EXCLUDED.created_at,
    completed_at = EXCLUDED.completed_at, bulk_id = EXCLUDED.bulk_id, estimated_credits = EXCLUDED.estimated_credits, data = EXCLUDED.data
  RETURNING status, xmin::text AS version
)
SELECT version FROM job LEFT JOIN LATERAL (SELECT pg_notify('${JOBS_CHANNEL}', $8) WHERE job.status = 'PENDING') AS notice ON true`;

/** Writes a job and, when it waits to run, tells every node at commit: one statement. Resolves with what was written. */
export async function stageJob(pool: pg.Pool, job: JobRecord): Promise<KnownJob> {
  const { rows } = await prepared<{ version: string }>(pool, 'stage_job', STAGE_SQL, [job.id, job.orgId, job.status, job.createdAt, job.completedAt || null, job.bulk?.id ?? null, JSON.stringify(job), jobNotice(job), job.estimatedCredits ?? 0]);
  return { job, version: rows[0]!.version };
}

/** A job with the row version it was read at (`xmin`): a write conditioned on it fails when anything changed the row since. */
async function readVersioned(pool: pg.Pool, id: string): Promise<{ job: JobRecord; version: string } | undefined> {
  const { rows } = await prepared<{ data: JobRecord; version: string }>(pool, 'job_versioned', 'SELECT data, xmin::text AS version FROM jobs WHERE id = $1', [id]);
  return rows[0] && { job: rows[0].data, version: rows[0].version };
}

const CLAIM_SQL = `
UPDATE jobs SET status = $3, data = $4, lease_owner = $5, lease_until = now() + $6 * interval '1 millisecond'
WHERE id = $1 AND xmin = $2::xid AND status = 'PENDING'
RETURNING xmin::text AS version`;

/** A job as this process last wrote it, and the row version that write made. */
export interface KnownJob {
  job: JobRecord;
  version: string;
}

/**
 * PENDING → the patched record with the attempt counted, written with the lease, if the row did not change between
 * the read and the write (another node claimed it, or a check took it back): the write is conditioned on the version
 * read, and a lost race reads again. Undefined when the job is unknown or not PENDING.
 */
export async function claimJob(pool: pg.Pool, id: string, patch: ClaimPatch, lease?: JobLease, known?: KnownJob): Promise<KnownJob | undefined> {
  // The version this process wrote (its admission) is tried first: unless another node claimed the job, no read.
  for (let read = known; ; read = undefined) {
    read ??= await readVersioned(pool, id);
    if (!read || read.job.status !== 'PENDING') return undefined;
    const updated: JobRecord = { ...read.job, ...copy(patch), attempts: read.job.attempts + 1 };
    const { rows } = await prepared<{ version: string }>(pool, 'claim_job', CLAIM_SQL, [id, read.version, updated.status, JSON.stringify(updated), lease?.owner ?? null, lease ? lease.ms : null]);
    if (rows[0]) return { job: updated, version: rows[0].version };
  }
}

// The job, its output file, the charge and its event's webhook deliveries in one statement (one transaction): a file, a
// charge or a delivery is written only when the job's row is the version that was read, and the organization's row is
// locked only while PostgreSQL runs it. Without an event ($15 null) the fan-out reads nothing.
// The ledger entry's text is completed with the balance after the charge (`$13` ends with `"balanceAfter":`); a
// charge to an organization that does not exist leaves it null, which the NOT NULL of `data` refuses, and the whole
// statement is undone.
const FINISH_SQL = `
WITH job AS (
  UPDATE jobs SET status = $3, completed_at = $4, data = $5, lease_owner = NULL, lease_until = NULL
  WHERE id = $1 AND xmin = $2::xid
  RETURNING id
), file AS (
  INSERT INTO files (id, org_id, expires_at, data) SELECT $6, $7, $8, $9 FROM job WHERE $6::text IS NOT NULL
), org AS (
  UPDATE organizations SET balance = balance + $10 WHERE id = $11 AND $12::text IS NOT NULL AND EXISTS (SELECT 1 FROM job)
  RETURNING balance
), entry AS (
  INSERT INTO ledger (id, org_id, created_at, data)
  SELECT $12, $11, $14, ($13 || org.balance::text || '}')::json FROM job LEFT JOIN org ON true WHERE $12::text IS NOT NULL
), hooks AS (
  ${fanOutSql({ eventId: '$15', event: '$16', at: '$17', orgId: '$18', subjectId: '$1' }, 'job', 'job')}
)
SELECT pg_notify('${FINISHED_CHANNEL}', job.id) FROM job`;

const NOT_NULL_VIOLATION = '23502';

/**
 * COMPLETED or FAILED with the output file and the charge, committed together; throws when the job is unknown or
 * already finished (a finished job never moves again). A row changed since the read (a lease renewal) is read again.
 */
export async function finishJob(pool: pg.Pool, id: string, patch: Partial<JobRecord>, charge: Omit<LedgerEntry, 'balanceAfter'> | null, output?: FileRecord, known?: KnownJob, event?: WebhookEvent): Promise<JobRecord> {
  const entry = charge && JSON.stringify(copy(charge));
  const entryHead = entry && `${entry.slice(0, -1)}${entry === '{}' ? '' : ','}"balanceAfter":`;
  // The version this process wrote last (its claim) is tried first: unless a renewal or a check changed the row since,
  // the finish needs no read.
  for (let read = known; ; read = undefined) {
    read ??= await readVersioned(pool, id);
    if (!read) throw new Error(`Job ${id} does not exist.`);
    if (read.job.status === 'COMPLETED' || read.job.status === 'FAILED') throw new Error(`Job ${id} is already ${read.job.status}; a finished job never moves again.`);
    const updated = { ...read.job, ...copy(patch) };
    const { rowCount } = await prepared(pool, 'finish_job', FINISH_SQL, [
      id, read.version, updated.status, updated.completedAt || null, JSON.stringify(updated),
      output?.id ?? null, output?.orgId ?? null, output?.expiresAt ?? null, output ? JSON.stringify(output) : null,
      charge?.amount ?? 0, charge?.orgId ?? null, charge?.id ?? null, entryHead, charge?.createdAt ?? null,
      event?.id ?? null, event?.event ?? null, event?.createdAt ?? null, updated.orgId,
    ]).catch((err: Error & { code?: string; table?: string }) => {
      if (err.code === NOT_NULL_VIOLATION && err.table === 'ledger') throw new Error(`Organization ${charge!.orgId} does not exist.`);
      throw err;
    });
    if (rowCount) return updated;
  }
}

/** The ledger entry and the organization's new balance, in one statement of the caller's transaction. */
export async function addLedger(db: pg.Pool | pg.PoolClient, entry: Omit<LedgerEntry, 'balanceAfter'>): Promise<LedgerEntry> {
  const [row] = await readAll<number>(db, 'UPDATE organizations SET balance = balance + $2 WHERE id = $1 RETURNING balance AS data', [entry.orgId, entry.amount]);
  if (row === undefined) throw new Error(`Organization ${entry.orgId} does not exist.`);
  const written: LedgerEntry = { ...copy(entry), balanceAfter: row };
  await db.query('INSERT INTO ledger (id, org_id, created_at, data) VALUES ($1, $2, $3, $4)', [written.id, written.orgId, written.createdAt, JSON.stringify(written)]);
  return written;
}

/** The bulk job and its jobs, written and announced in the caller's transaction. */
export async function stageBulk(tx: pg.PoolClient, bulk: BulkJobRecord, jobs: JobRecord[]): Promise<void> {
  for (const j of jobs) await put(tx, 'jobs', copy(j));
  await put(tx, 'bulk_jobs', copy(bulk));
  for (const j of jobs) await announce(tx, j);
}

/** Tells every node, when the transaction commits, that a job waits to be run (PgJobQueue listens). */
async function announce(tx: pg.PoolClient, job: JobRecord): Promise<void> {
  if (job.status === 'PENDING') await tx.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, jobNotice(job)]);
}
