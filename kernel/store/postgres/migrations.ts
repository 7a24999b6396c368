// The PostgreSQL schema as versioned, forward-only migrations, applied under an advisory lock so nodes starting together migrate once.
import type pg from 'pg';
import { BLOB_CHUNKS_SQL } from './pg-blob-store.js';
import { RATE_BUCKETS_SQL } from './pg-rate-limiter.js';
import { JOB_LEASES_SQL } from './pg-job-queue.js';
import { ADMISSION_SQL, HOT_COLUMNS_SQL } from './pg-jobs.js';
import { IDEMPOTENCY_SQL } from './pg-idempotency.js';
import { WEBHOOKS_SQL } from './pg-webhooks.js';
import { FORMS_SQL } from './pg-forms.js';
import { OPERATORS_SQL } from './pg-operators.js';
import { JOB_LIST_SQL } from './pg-job-list.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// Every record is kept whole in `data`, as `json` rather than `jsonb`: `json` keeps the text as written, so a record
// reads back with its keys in the order they were written (a document's config answers byte for byte as it did from
// the embedded store); jsonb would re-order them. The other columns are what queries filter, order or lock by, written
// with `data` in the same statement. `seq` keeps the order records were first written in, which lists follow.
const INITIAL = `
CREATE TABLE organizations (id text PRIMARY KEY, seq bigserial NOT NULL, data json NOT NULL);
CREATE TABLE api_keys (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, hash text NOT NULL UNIQUE, data json NOT NULL);
CREATE INDEX api_keys_org ON api_keys (org_id);
CREATE TABLE integration_clients (id text PRIMARY KEY, seq bigserial NOT NULL, data json NOT NULL);
CREATE TABLE resource_tokens (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, hash text NOT NULL UNIQUE, data json NOT NULL);
CREATE INDEX resource_tokens_org ON resource_tokens (org_id);
CREATE TABLE files (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, expires_at timestamptz NOT NULL, data json NOT NULL);
CREATE INDEX files_expires_at ON files (expires_at);
CREATE TABLE jobs (
  id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL,
  completed_at timestamptz, bulk_id text, data json NOT NULL
);
CREATE INDEX jobs_status ON jobs (status);
CREATE INDEX jobs_org_status ON jobs (org_id, status);
CREATE INDEX jobs_completed_at ON jobs (completed_at);
CREATE TABLE ledger (seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE, org_id text NOT NULL, created_at timestamptz NOT NULL, data json NOT NULL);
CREATE INDEX ledger_org_seq ON ledger (org_id, seq);
CREATE TABLE style_presets (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, created_at timestamptz NOT NULL, data json NOT NULL);
CREATE INDEX style_presets_org ON style_presets (org_id);
CREATE TABLE documents (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, created_at timestamptz NOT NULL, data json NOT NULL);
CREATE INDEX documents_org_created ON documents (org_id, created_at DESC, id COLLATE "C" DESC);
CREATE TABLE templates (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, created_at timestamptz NOT NULL, data json NOT NULL);
CREATE INDEX templates_org ON templates (org_id);
CREATE TABLE blocks (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, created_at timestamptz NOT NULL, data json NOT NULL);
CREATE INDEX blocks_org ON blocks (org_id);
CREATE TABLE assets (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, source_image_id text, data json NOT NULL);
CREATE INDEX assets_org_source ON assets (org_id, source_image_id);
CREATE TABLE asset_users (asset_id text NOT NULL, user_id text NOT NULL, PRIMARY KEY (asset_id, user_id));
CREATE INDEX asset_users_user ON asset_users (user_id);
CREATE TABLE bulk_jobs (id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, status text NOT NULL, completed_at timestamptz, data json NOT NULL);
CREATE INDEX bulk_jobs_status ON bulk_jobs (status);
CREATE INDEX bulk_jobs_completed_at ON bulk_jobs (completed_at);
`;

/** In order; a new migration is appended with the next version and never edited once released. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: '0001_initial', sql: INITIAL },
  { version: 2, name: '0002_blob_chunks', sql: BLOB_CHUNKS_SQL },
  { version: 3, name: '0003_shared_limits', sql: RATE_BUCKETS_SQL },
  { version: 4, name: '0004_job_leases', sql: JOB_LEASES_SQL },
  { version: 5, name: '0005_hot_columns', sql: HOT_COLUMNS_SQL },
  { version: 6, name: '0006_admission', sql: ADMISSION_SQL },
  { version: 7, name: '0007_webhooks', sql: WEBHOOKS_SQL },
  { version: 8, name: '0008_idempotency', sql: IDEMPOTENCY_SQL },
  { version: 9, name: '0009_forms', sql: FORMS_SQL },
  { version: 10, name: '0010_operators', sql: OPERATORS_SQL },
  { version: 11, name: '0011_job_list', sql: JOB_LIST_SQL },
];

/** The advisory lock key all Quire nodes migrate under ("quire-mg" as a 64-bit integer). */
const MIGRATION_LOCK = '8175556638605667687';

export class DatabaseTooNewError extends Error {
  override name = 'DatabaseTooNewError';
}

/**
 * Brings the database up to the newest migration: each missing one in its own transaction, recorded in
 * quire_migrations. Holds a session advisory lock meanwhile, so a second node starting at the same time waits and then
 * finds nothing to do. Returns the versions it applied. A database migrated by a newer Quire is refused.
 */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS quire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      const { rows } = await client.query<{ version: number }>('SELECT version FROM quire_migrations ORDER BY version');
      const applied = new Set(rows.map((r) => r.version));
      const newest = rows.length ? rows[rows.length - 1]!.version : 0;
      const known = migrations.length ? migrations[migrations.length - 1]!.version : 0;
      if (newest > known) {
        throw new DatabaseTooNewError(`The database is at schema version ${newest}, but this Quire knows versions up to ${known} only: it was migrated by a newer Quire. Run that version (migrations are forward-only), or restore a backup taken before the upgrade.`);
      }
      const done: number[] = [];
      for (const m of migrations) {
        if (applied.has(m.version)) continue;
        try {
          await client.query('BEGIN');
          await client.query(m.sql);
          await client.query('INSERT INTO quire_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch((e: Error) => (broken = e));
          throw new Error(`Migration ${m.name} (version ${m.version}) failed: ${(err as Error).message}`, { cause: err });
        }
        done.push(m.version);
      }
      return done;
    } finally {
      if (!broken) await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch((e: Error) => (broken = e));
    }
  } finally {
    // A connection that could not roll back or unlock is closed rather than reused: closing it ends its session and lock.
    client.release(broken);
  }
}
