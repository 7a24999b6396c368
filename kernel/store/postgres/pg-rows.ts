// How records become rows of the PostgreSQL store: each table's columns beside `data`, upserts, reads and transactions.
import type pg from 'pg';
import type { AssetRecord, BlockRecord, BulkJobRecord, DocumentRecord, TemplateRecord } from '../../model.js';
import type { ApiKeyRecord, FileRecord, JobRecord, Organization, ResourceTokenRecord, StylePresetRecord } from '../../model.js';
import type { IntegrationClient, WebhookDeliveryRecord, WebhookEndpointRecord } from '../../model.js';
import type { FilloutRecord, FormRecord } from '../../model.js';
import type { OperatorAuditEntry } from '../../model.js';
import type { PageKey } from '../store.js';

export type Db = pg.Pool | pg.PoolClient;

interface TableSpec<R> {
  /** The columns beside `id` and `data`, and their values taken from the record. */
  columns: string[];
  values(rec: R): unknown[];
}

const spec = <R>(columns: string[], values: (rec: R) => unknown[]): TableSpec<R> => ({ columns, values });

/** Table → its record type; the names are constants of this file, never values from a caller. */
const TABLES = {
  // The balance column is the organization's balance (pg-jobs.ts changes it by an amount); data keeps the first one.
  organizations: spec<Organization>(['balance'], (o) => [o.balance]),
  api_keys: spec<ApiKeyRecord>(['org_id', 'hash'], (k) => [k.orgId, k.hash]),
  integration_clients: spec<IntegrationClient>([], () => []),
  resource_tokens: spec<ResourceTokenRecord>(['org_id', 'hash'], (t) => [t.orgId, t.hash]),
  files: spec<FileRecord>(['org_id', 'expires_at'], (f) => [f.orgId, f.expiresAt]),
  jobs: spec<JobRecord>(['org_id', 'status', 'created_at', 'completed_at', 'bulk_id', 'estimated_credits'], (j) => [j.orgId, j.status, j.createdAt, j.completedAt || null, j.bulk?.id ?? null, j.estimatedCredits ?? 0]),
  style_presets: spec<StylePresetRecord>(['org_id', 'created_at'], (p) => [p.orgId, p.createdAt]),
  documents: spec<DocumentRecord>(['org_id', 'created_at'], (d) => [d.orgId, d.createdAt]),
  templates: spec<TemplateRecord>(['org_id', 'created_at'], (t) => [t.orgId, t.createdAt]),
  blocks: spec<BlockRecord>(['org_id', 'created_at'], (b) => [b.orgId, b.createdAt]),
  assets: spec<AssetRecord>(['org_id', 'source_image_id'], (a) => [a.orgId, a.sourceImageId ?? null]),
  bulk_jobs: spec<BulkJobRecord>(['org_id', 'status', 'completed_at', 'created_at'], (b) => [b.orgId, b.status, b.completedAt || null, b.createdAt]),
  webhook_endpoints: spec<WebhookEndpointRecord>(['org_id', 'enabled', 'events', 'created_at'], (e) => [e.orgId, e.enabled, e.events, e.createdAt]),
  // A delivery's lease is in its own columns (lease_owner, lease_until), written by claims and attempts only.
  webhook_deliveries: spec<WebhookDeliveryRecord>(['org_id', 'endpoint_id', 'status', 'next_attempt_at', 'created_at'], (d) => [d.orgId, d.endpointId, d.status, d.nextAttemptAt, d.createdAt]),
  forms: spec<FormRecord>(['org_id', 'document_id', 'created_at'], (f) => [f.orgId, f.documentId, f.createdAt]),
  fillouts: spec<FilloutRecord>(['org_id', 'form_id', 'document_id', 'created_at'], (r) => [r.orgId, r.formId, r.documentId, r.createdAt]),
  operator_audit: spec<OperatorAuditEntry>(['created_at'], (e) => [e.createdAt]),
};

export type Tables = typeof TABLES;
export type Table = keyof Tables;
export type RecordOf<T extends Table> = Tables[T] extends TableSpec<infer R> ? R : never;

/** The tables whose records use assets: documents, templates, reusable blocks and form records. */
export type AssetUserTable = 'documents' | 'templates' | 'blocks' | 'fillouts';

const upserts = new Map<Table, string>();

/** INSERT … ON CONFLICT (id) DO UPDATE: a record written again replaces the stored one (and keeps its place in lists). */
function upsertSql(table: Table): string {
  let sql = upserts.get(table);
  if (!sql) {
    const cols = ['id', ...TABLES[table].columns, 'data'];
    const set = cols.slice(1).map((c) => `${c} = EXCLUDED.${c}`).join(', ');
    sql = `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT (id) DO UPDATE SET ${set}`;
    upserts.set(table, sql);
  }
  return sql;
}

/**
 * A query PostgreSQL parses and plans once per connection and then only executes (a prepared statement): for the
 * statements every request or job sends. `name` stands for `text` alone, and `text` is a constant of the code.
 */
export function prepared<R extends pg.QueryResultRow = pg.QueryResultRow>(db: Db, name: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
  return db.query<R>({ name, text, values });
}

/** Writes the whole record: `data` and the columns taken from it, in one statement. */
export async function put<T extends Table>(db: Db, table: T, rec: RecordOf<T>): Promise<void> {
  const values = (TABLES[table] as TableSpec<RecordOf<T>>).values(rec);
  await prepared(db, `put_${table}`, upsertSql(table), [(rec as { id: string }).id, ...values, JSON.stringify(rec)]);
}

/** The stored record (a fresh object), or undefined; `forUpdate` locks its row until the transaction ends. */
export async function readOne<T extends Table>(db: Db, table: T, id: string, forUpdate = false): Promise<RecordOf<T> | undefined> {
  const lock = forUpdate ? ' FOR UPDATE' : '';
  const { rows } = await prepared<{ data: RecordOf<T> }>(db, `one_${table}${forUpdate ? '_locked' : ''}`, `SELECT data FROM ${table} WHERE id = $1${lock}`, [id]);
  return rows[0]?.data;
}

/** The organization's record, or undefined when it is unknown or another organization's. */
export async function readOwn<T extends Table>(db: Db, table: T, orgId: string, id: string, forUpdate = false): Promise<RecordOf<T> | undefined> {
  const lock = forUpdate ? ' FOR UPDATE' : '';
  const { rows } = await prepared<{ data: RecordOf<T> }>(db, `own_${table}${forUpdate ? '_locked' : ''}`, `SELECT data FROM ${table} WHERE id = $1 AND org_id = $2${lock}`, [id, orgId]);
  return rows[0]?.data;
}

/** The `data` of each row `sql` selects, in its order. */
export async function readAll<R>(db: Db, sql: string, params: unknown[] = []): Promise<R[]> {
  const { rows } = await db.query<{ data: R }>(sql, params);
  return rows.map((r) => r.data);
}

/** The organization's records of a table in the order they were first written. */
export function listOwn<T extends Table>(db: Db, table: T, orgId: string): Promise<Array<RecordOf<T>>> {
  return readAll<RecordOf<T>>(db, `SELECT data FROM ${table} WHERE org_id = $1 ORDER BY seq`, [orgId]);
}

/** A page of the newest first, as documents are listed: ids compare by code point (COLLATE "C"). */
export function page<R>(db: Db, table: Table, where: string, params: unknown[], limit: number, after?: PageKey): Promise<R[]> {
  const n = params.length;
  const order = `ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $${n + 1}`;
  if (!after) return readAll(db, `SELECT data FROM ${table} WHERE ${where} ${order}`, [...params, limit]);
  return readAll(db, `SELECT data FROM ${table} WHERE ${where} AND (created_at < $${n + 2} OR (created_at = $${n + 2} AND id COLLATE "C" < $${n + 3})) ${order}`, [...params, limit, after.createdAt, after.id]);
}

/**
 * Runs `work` in one transaction on one pooled connection: committed when it resolves, rolled back (and its error
 * rethrown) when it throws. A connection that cannot even roll back is closed instead of going back to the pool.
 */
export async function transaction<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

/** `asset_users` follows the record's `assetIds` (absent: none), as the embedded store's index does. */
export async function setAssetUsers(tx: Db, userId: string, assetIds: string[] | undefined): Promise<void> {
  await tx.query('DELETE FROM asset_users WHERE user_id = $1', [userId]);
  if (assetIds?.length) await tx.query('INSERT INTO asset_users (asset_id, user_id) SELECT a, $1 FROM unnest($2::text[]) AS a ON CONFLICT DO NOTHING', [userId, assetIds]);
}

/** A deep copy (records are JSON: what the database would give back). */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Host, port and database of a connection URL, for messages: never its password. */
export function databaseName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return '(an unreadable URL)';
  }
}
