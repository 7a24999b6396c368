// migrate-to-postgres: copies an embedded data dir (the lowdb store's records and the blobs under <dir>/blobs) into an
// empty PostgreSQL database, then checks the copy: rows counted per table and every blob's SHA-256 read back.
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import pg from 'pg';
import { LowdbStore } from '../lowdb-store.js';
import type { Data } from '../store-state.js';
import { migrate } from './migrations.js';
import { PgBlobStore } from './pg-blob-store.js';
import { databaseName, put, setAssetUsers, transaction, type Table } from './pg-rows.js';
import { copyIdempotencyRecord } from './pg-idempotency.js';

/** Each keyed collection of the data dir and its table, in an order where nothing refers to a row not yet written. */
const COLLECTIONS = [
  ['organizations', 'organizations'],
  ['apiKeys', 'api_keys'],
  ['integrationClients', 'integration_clients'],
  ['resourceTokens', 'resource_tokens'],
  ['files', 'files'],
  ['jobs', 'jobs'],
  ['bulkJobs', 'bulk_jobs'],
  ['stylePresets', 'style_presets'],
  ['assets', 'assets'],
  ['documents', 'documents'],
  ['templates', 'templates'],
  ['blocks', 'blocks'],
  ['forms', 'forms'],
  ['fillouts', 'fillouts'],
  ['webhookEndpoints', 'webhook_endpoints'],
  ['webhookDeliveries', 'webhook_deliveries'],
  ['operatorAudit', 'operator_audit'],
] as const satisfies ReadonlyArray<readonly [keyof Data, Table]>;

/** The collections whose records use assets (asset_users rows: an asset goes with the last of them). */
const ASSET_USERS = ['documents', 'templates', 'blocks', 'fillouts'] as const satisfies ReadonlyArray<keyof Data>;

const BLOB_ID = /^[0-9a-f-]{36}$/;

export interface MigrationSummary {
  from: string;
  /** Host, port and database of the target (never the password). */
  to: string;
  /** Per table: the records in the data dir and the rows in the database after the copy. */
  tables: Record<string, { source: number; database: number }>;
  blobs: { count: number; bytes: number; checksums: 'match' | 'mismatch'; mismatched: string[]; skipped: string[] };
  ok: boolean;
}

export class TargetNotEmptyError extends Error {
  override name = 'TargetNotEmptyError';
}

/**
 * Copies `dataDir` into the database at `url` (migrating its schema first). The caller holds the data dir's lock.
 * Refuses a database that already holds an organization: records are copied with their ids and balances, and mixing
 * them into another deployment's would merge two ledgers. The blobs are copied first, each in its own transaction, the
 * records then in one: a copy that fails part way leaves no organization, so it can simply be run again.
 */
export async function migrateEmbeddedToPostgres(dataDir: string, url: string): Promise<MigrationSummary> {
  const source = new LowdbStore(dataDir);
  await source.init();
  const pool = new pg.Pool({ connectionString: url, max: 2, options: '-c TimeZone=UTC' });
  pool.on('error', () => undefined);
  const blobs = new PgBlobStore(url, dataDir);
  try {
    const data = source.exportData();
    await migrate(pool);
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM organizations');
    if (Number(rows[0]!.n) > 0) {
      throw new TargetNotEmptyError(`The database ${databaseName(url)} already holds ${rows[0]!.n} organization(s); migrate-to-postgres copies into an empty database only (run it before the first server starts on the database, or use a new database).`);
    }
    const blobDir = path.join(dataDir, 'blobs');
    const names = (await readdir(blobDir).catch(() => [] as string[])).sort();
    const ids = names.filter((n) => BLOB_ID.test(n));
    let bytes = 0;
    for (const id of ids) {
      await blobs.copyFile(path.join(blobDir, id), id);
      bytes += (await stat(path.join(blobDir, id))).size;
    }
    await transaction(pool, async (tx) => {
      for (const [coll, table] of COLLECTIONS) {
        for (const rec of Object.values(data[coll])) await put(tx, table, rec as never);
      }
      // The balance of each organization came with it; entries keep their balanceAfter and their order.
      for (const e of data.ledger) await tx.query('INSERT INTO ledger (id, org_id, created_at, data) VALUES ($1, $2, $3, $4)', [e.id, e.orgId, e.createdAt, JSON.stringify(e)]);
      for (const coll of ASSET_USERS) {
        for (const rec of Object.values(data[coll])) await setAssetUsers(tx, rec.id, rec.assetIds);
      }
      // A key's stored answer goes with it: a client retrying across the move gets the same answer.
      for (const rec of Object.values(data.idempotencyKeys)) await copyIdempotencyRecord(tx, rec);
      // Plugins operators switched stay switched (one row a plugin; the embedded record's `id` is the plugin id).
      for (const { id: _id, ...override } of Object.values(data.pluginOverrides)) await tx.query('INSERT INTO plugin_overrides (plugin_id, data) VALUES ($1, $2)', [override.pluginId, JSON.stringify(override)]);
    });
    const mismatched: string[] = [];
    for (const id of ids) {
      const [want, got] = await Promise.all([sha256(createReadStream(path.join(blobDir, id))), blobs.openRead(id).then(sha256)]);
      if (want !== got) mismatched.push(id);
    }
    const tables = await countTables(pool, data);
    const counted = Object.values(tables).every((t) => t.source === t.database);
    return {
      from: path.resolve(dataDir),
      to: databaseName(url),
      tables,
      blobs: { count: ids.length, bytes, checksums: mismatched.length ? 'mismatch' : 'match', mismatched, skipped: names.filter((n) => !BLOB_ID.test(n)) },
      ok: counted && mismatched.length === 0,
    };
  } finally {
    await blobs.close();
    await pool.end();
    await source.close();
  }
}

async function countTables(pool: pg.Pool, data: Data): Promise<MigrationSummary['tables']> {
  const users = new Set<string>();
  for (const coll of ASSET_USERS) {
    for (const rec of Object.values(data[coll])) for (const a of rec.assetIds ?? []) users.add(`${a}\u0000${rec.id}`);
  }
  const expected: Array<[string, number]> = [...COLLECTIONS.map(([coll, table]) => [table, Object.keys(data[coll]).length] as [string, number]), ['ledger', data.ledger.length], ['asset_users', users.size], ['idempotency_keys', Object.keys(data.idempotencyKeys).length], ['plugin_overrides', Object.keys(data.pluginOverrides).length]];
  const tables: MigrationSummary['tables'] = {};
  for (const [table, source] of expected) {
    // Table names come from the constant list above, never from input.
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    tables[table] = { source, database: Number(rows[0]!.n) };
  }
  return tables;
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
