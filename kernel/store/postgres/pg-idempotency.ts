// Idempotency keys on PostgreSQL: one row per organization and key, taken with INSERT … ON CONFLICT, shared by every node.
import type pg from 'pg';
import { prepared, readAll, type Db } from './pg-rows.js';
import type { IdempotencyBegin, IdempotencyClaim, IdempotencyDone, IdempotencyRecord, IdempotentJob, StoredResponse } from '../store.js';
import type { BulkJobRecord, JobRecord } from '../../model.js';

/**
 * Migration 0008: the keys, and the lookup of a job or bulk job by the key it was admitted with (inside its `data`,
 * written by the admission itself: partial expression indexes, so jobs without a key cost nothing).
 */
export const IDEMPOTENCY_SQL = `
CREATE TABLE idempotency_keys (
  org_id text NOT NULL, key text NOT NULL, owner text NOT NULL, state text NOT NULL, lease_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, fingerprint text, response json,
  PRIMARY KEY (org_id, key)
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
CREATE INDEX jobs_idempotency_key ON jobs (org_id, (data->>'idempotencyKey')) WHERE data->>'idempotencyKey' IS NOT NULL;
CREATE INDEX bulk_jobs_idempotency_key ON bulk_jobs (org_id, (data->>'idempotencyKey')) WHERE data->>'idempotencyKey' IS NOT NULL;
`;

// A new key is inserted; an expired record is replaced as if absent; a lapsed in-flight record is taken over (owner and
// lease only). ON CONFLICT locks the existing row and checks the WHERE on its newest version, so of concurrent callers
// exactly one writes. `fresh` tells a new record (created now) from a takeover (it keeps its creation).
const TAKE_SQL = `
INSERT INTO idempotency_keys AS k (org_id, key, owner, state, lease_until, created_at, expires_at)
VALUES ($1, $2, $3, 'in-flight', $4, $5, $6)
ON CONFLICT (org_id, key) DO UPDATE SET
  owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until,
  state = CASE WHEN k.expires_at <= EXCLUDED.created_at THEN 'in-flight' ELSE k.state END,
  created_at = CASE WHEN k.expires_at <= EXCLUDED.created_at THEN EXCLUDED.created_at ELSE k.created_at END,
  expires_at = CASE WHEN k.expires_at <= EXCLUDED.created_at THEN EXCLUDED.expires_at ELSE k.expires_at END,
  fingerprint = CASE WHEN k.expires_at <= EXCLUDED.created_at THEN NULL ELSE k.fingerprint END,
  response = CASE WHEN k.expires_at <= EXCLUDED.created_at THEN NULL ELSE k.response END
WHERE k.expires_at <= EXCLUDED.created_at OR (k.state = 'in-flight' AND k.lease_until <= EXCLUDED.created_at)
RETURNING k.created_at = $5::timestamptz AS fresh`;

interface KeyRow {
  state: 'in-flight' | 'done';
  lease_until: Date;
  fingerprint: string | null;
  response: StoredResponse | null;
}

export async function beginIdempotency(pool: pg.Pool, orgId: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyBegin> {
  // A row deleted (released, swept) between the two statements is looked for again.
  for (;;) {
    const taken = await prepared<{ fresh: boolean }>(pool, 'idempotency_take', TAKE_SQL, [orgId, key, claim.owner, claim.leaseUntil, claim.now, claim.expiresAt]);
    if (taken.rows[0]) return { state: taken.rows[0].fresh ? 'started' : 'taken-over' };
    const { rows } = await prepared<KeyRow>(pool, 'idempotency_read', 'SELECT state, lease_until, fingerprint, response FROM idempotency_keys WHERE org_id = $1 AND key = $2', [orgId, key]);
    const row = rows[0];
    if (!row) continue;
    if (row.state === 'done') return { state: 'done', fingerprint: row.fingerprint!, response: row.response! };
    return { state: 'in-flight', leaseUntil: row.lease_until.toISOString() };
  }
}

export async function renewIdempotency(pool: pg.Pool, orgId: string, key: string, owner: string, leaseUntil: string): Promise<boolean> {
  const { rowCount } = await prepared(pool, 'idempotency_renew', "UPDATE idempotency_keys SET lease_until = $4 WHERE org_id = $1 AND key = $2 AND owner = $3 AND state = 'in-flight'", [orgId, key, owner, leaseUntil]);
  return rowCount === 1;
}

export async function completeIdempotency(pool: pg.Pool, orgId: string, key: string, owner: string, done: IdempotencyDone): Promise<boolean> {
  const { rowCount } = await prepared(
    pool,
    'idempotency_complete',
    "UPDATE idempotency_keys SET state = 'done', fingerprint = $4, response = $5 WHERE org_id = $1 AND key = $2 AND owner = $3 AND state = 'in-flight'",
    [orgId, key, owner, done.fingerprint, JSON.stringify(done.response)],
  );
  return rowCount === 1;
}

export async function releaseIdempotency(pool: pg.Pool, orgId: string, key: string, owner: string): Promise<void> {
  await prepared(pool, 'idempotency_release', "DELETE FROM idempotency_keys WHERE org_id = $1 AND key = $2 AND owner = $3 AND state = 'in-flight'", [orgId, key, owner]);
}

export async function deleteIdempotencyExpiredBy(pool: pg.Pool, instant: string): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM idempotency_keys WHERE expires_at <= $1', [instant]);
  return rowCount ?? 0;
}

export async function findJobByIdempotencyKey(pool: pg.Pool, orgId: string, key: string): Promise<IdempotentJob | undefined> {
  const [bulk] = await readAll<BulkJobRecord>(pool, "SELECT data FROM bulk_jobs WHERE org_id = $1 AND data->>'idempotencyKey' = $2", [orgId, key]);
  if (bulk) return { kind: 'bulk', bulk };
  const [job] = await readAll<JobRecord>(pool, "SELECT data FROM jobs WHERE org_id = $1 AND data->>'idempotencyKey' = $2", [orgId, key]);
  return job && { kind: 'job', job };
}

/** migrate-to-postgres: one record of the embedded store, as it was. */
export async function copyIdempotencyRecord(db: Db, r: IdempotencyRecord): Promise<void> {
  await db.query(
    'INSERT INTO idempotency_keys (org_id, key, owner, state, lease_until, created_at, expires_at, fingerprint, response) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    [r.orgId, r.key, r.owner, r.state, r.leaseUntil, r.createdAt, r.expiresAt, r.fingerprint, r.response && JSON.stringify(r.response)],
  );
}
