// The PostgreSQL schema migrations on a real throw-away cluster: applied once, idempotent, safe when two nodes start at once, and a newer database refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { migrate, MIGRATIONS } from '../../kernel/store/postgres/migrations.js';
import { PgStore } from '../../kernel/store/postgres/pg-store.js';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.js';

const TABLES = ['api_keys', 'asset_users', 'assets', 'blob_chunks', 'blocks', 'bulk_jobs', 'documents', 'files', 'fillouts', 'forms', 'idempotency_keys', 'integration_clients', 'jobs', 'ledger', 'operator_audit', 'organizations', 'plugin_overrides', 'quire_migrations', 'rate_buckets', 'resource_tokens', 'style_presets', 'templates', 'webhook_deliveries', 'webhook_endpoints'];

let cluster: ThrowawayPostgres;
const pools: pg.Pool[] = [];
let databases = 0;

/** A pool on a new, empty database of the cluster (each test its own). */
async function emptyDatabase(): Promise<{ url: string; pool: () => pg.Pool }> {
  const url = await cluster.database(`migrations_${++databases}`);
  return {
    url,
    pool: () => {
      const p = new pg.Pool({ connectionString: url, max: 2 });
      // pool.end() resolves before its idle connections have closed: the cluster's shutdown may still end one.
      p.on('error', () => undefined);
      pools.push(p);
      return p;
    },
  };
}

async function tables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
  return rows.map((r) => r.table_name);
}

async function versions(pool: pg.Pool): Promise<Array<{ version: number; name: string }>> {
  const { rows } = await pool.query<{ version: number; name: string }>('SELECT version, name FROM quire_migrations ORDER BY version');
  return rows;
}

test.before(async () => {
  cluster = await startPostgres();
});

test.after(async () => {
  for (const p of pools) await p.end();
  await cluster?.stop();
});

/** Every migration, as quire_migrations records it. */
const ALL = MIGRATIONS.map((m) => ({ version: m.version, name: m.name }));
const NEWEST = ALL[ALL.length - 1]!.version;

test('migrating an empty database creates every table and records every version', async () => {
  const db = await emptyDatabase();
  const pool = db.pool();
  assert.equal(await tables(pool), []);
  assert.equal(await migrate(pool), ALL.map((m) => m.version));
  assert.equal(await tables(pool), TABLES);
  assert.equal(await versions(pool), ALL);
  assert.equal(ALL.map((m) => m.version), Array.from({ length: NEWEST }, (_, i) => i + 1), 'versions are 1, 2, … without gaps');
});

test('a database at any earlier version is brought to the newest, keeping its rows', async () => {
  for (let at = 1; at < ALL.length; at++) {
    const db = await emptyDatabase();
    const pool = db.pool();
    assert.equal(await migrate(pool, MIGRATIONS.slice(0, at)), ALL.slice(0, at).map((m) => m.version));
    await pool.query("INSERT INTO organizations (id, data) VALUES ('org-1', '{\"id\":\"org-1\"}')");
    assert.equal(await migrate(pool), ALL.slice(at).map((m) => m.version), `from version ${at}`);
    assert.equal(await versions(pool), ALL);
    assert.equal(await tables(pool), TABLES);
    assert.equal((await pool.query('SELECT id FROM organizations')).rows, [{ id: 'org-1' }]);
  }
});

test('version 7 (0007_webhooks) adds the webhook tables, with the index on org_id that a job\'s finish reads', async () => {
  const db = await emptyDatabase();
  const pool = db.pool();
  await migrate(pool, MIGRATIONS.filter((m) => m.version <= 7));
  assert.equal((await versions(pool)).slice(-1), [{ version: 7, name: '0007_webhooks' }]);
  const { rows } = await pool.query<{ indexname: string; indexdef: string }>("SELECT indexname, indexdef FROM pg_indexes WHERE tablename LIKE 'webhook_%' ORDER BY indexname");
  const defs = Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
  assert.match(defs.webhook_endpoints_org ?? '', '(org_id)');
  assert.match(defs.webhook_deliveries_due ?? '', "WHERE (status = 'PENDING'::text)");
  // An organization without endpoints: the fan-out's read of webhook_endpoints is one probe of that index.
  await pool.query("INSERT INTO webhook_endpoints (id, org_id, enabled, events, created_at, data) SELECT 'e' || g, 'org-' || g, true, '{}', now(), '{}' FROM generate_series(1, 2000) g");
  await pool.query('ANALYZE webhook_endpoints');
  const plan = (await pool.query("EXPLAIN SELECT id FROM webhook_endpoints WHERE org_id = 'org-none' AND enabled")).rows.map((r) => Object.values(r)[0]).join('\n');
  assert.match(plan, 'webhook_endpoints_org');
});

test('migration 0008 lets a job admitted with an Idempotency-Key before it be found by that key, through its index', async () => {
  const db = await emptyDatabase();
  const pool = db.pool();
  const before = MIGRATIONS.filter((m) => m.version < 8);
  await migrate(pool, before);
  const job = { id: 'job-1', orgId: 'org-1', status: 'PENDING', idempotencyKey: 'retry-me' };
  await pool.query("INSERT INTO jobs (id, org_id, status, created_at, data) VALUES ('job-1', 'org-1', 'PENDING', now(), $1)", [JSON.stringify(job)]);
  assert.equal(await migrate(pool), MIGRATIONS.filter((m) => m.version >= 8).map((m) => m.version));
  const { rows } = await pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE indexname IN ('jobs_idempotency_key', 'bulk_jobs_idempotency_key', 'idempotency_keys_expires_at') ORDER BY indexname");
  assert.equal(rows.map((r) => r.indexname), ['bulk_jobs_idempotency_key', 'idempotency_keys_expires_at', 'jobs_idempotency_key']);
  const store = new PgStore(db.url, 1);
  try {
    const found = await store.findJobByIdempotencyKey('org-1', 'retry-me');
    assert.is(found?.kind === 'job' && found.job.id, 'job-1');
    assert.is(await store.findJobByIdempotencyKey('org-2', 'retry-me'), undefined);
  } finally {
    await store.close();
  }
});

test('migration 0009 adds the forms and fillouts tables, whose newest-first lists by form and by document read their indexes', async () => {
  const db = await emptyDatabase();
  const pool = db.pool();
  await migrate(pool, MIGRATIONS.filter((m) => m.version < 9));
  await pool.query("INSERT INTO documents (id, org_id, created_at, data) VALUES ('doc-1', 'org-1', now(), '{\"id\":\"doc-1\"}')");
  assert.equal(await migrate(pool, MIGRATIONS.filter((m) => m.version <= 9)), [9]);
  assert.equal((await versions(pool)).slice(-1), [{ version: 9, name: '0009_forms' }]);
  const { rows } = await pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename IN ('forms', 'fillouts') AND indexname NOT LIKE '%_pkey' ORDER BY indexname");
  assert.equal(rows.map((r) => r.indexname), ['fillouts_document', 'fillouts_form', 'fillouts_org_created', 'forms_document', 'forms_org_created']);
  await pool.query("INSERT INTO fillouts (id, org_id, form_id, document_id, created_at, data) SELECT 'r' || g, 'org-1', 'form-' || (g % 200), 'doc-' || (g % 100), now() - g * interval '1 second', '{}' FROM generate_series(1, 4000) g");
  await pool.query('ANALYZE fillouts');
  const plan = async (where: string) => (await pool.query(`EXPLAIN SELECT data FROM fillouts WHERE org_id = 'org-1' AND ${where} ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT 20`)).rows.map((r) => Object.values(r)[0]).join('\n');
  assert.match(await plan("form_id = 'form-7'"), 'fillouts_form');
  assert.match(await plan("document_id = 'doc-7'"), 'fillouts_document');
});

test('migration 0010 adds the plugin overrides and the operators\' audit log, which a store then reads', async () => {
  const db = await emptyDatabase();
  const pool = db.pool();
  await migrate(pool, MIGRATIONS.filter((m) => m.version <= 9));
  assert.equal(await migrate(pool, MIGRATIONS.filter((m) => m.version <= 10)), [10]);
  assert.equal((await versions(pool)).slice(-1), [{ version: 10, name: '0010_operators' }]);
  const store = new PgStore(db.url, 1);
  try {
    const override = { pluginId: 'pdf-merge', enabled: false, reason: 'maintenance', byKeyId: 'key-1', at: '2030-01-01T00:00:00.000Z' };
    const entry = { id: 'entry-1', action: 'plugin.disable' as const, pluginId: 'pdf-merge', reason: 'maintenance', keyId: 'key-1', keyName: 'ops', createdAt: override.at };
    await store.setPluginOverride(override, entry);
    assert.equal(await store.listPluginOverrides(), [override]);
    assert.equal(await store.listOperatorAudit(10), [entry]);
  } finally {
    await store.close();
  }
});

test('migration 0011 gives the bulk jobs already stored their created_at, so the job list shows them in order beside the jobs', async () => {
  const db = await emptyDatabase();
  const pool = db.pool();
  await migrate(pool, MIGRATIONS.filter((m) => m.version <= 10));
  const bulk = { id: 'bulk-1', orgId: 'org-1', status: 'COMPLETED', createdAt: '2030-01-01T00:02:00.000Z', items: [] };
  const job = { id: 'job-1', kind: 'render', orgId: 'org-1', status: 'PENDING', createdAt: '2030-01-01T00:01:00.000Z' };
  await pool.query("INSERT INTO bulk_jobs (id, org_id, status, data) VALUES ('bulk-1', 'org-1', 'COMPLETED', $1)", [JSON.stringify(bulk)]);
  await pool.query("INSERT INTO jobs (id, org_id, status, created_at, data) VALUES ('job-1', 'org-1', 'PENDING', $1, $2)", [job.createdAt, JSON.stringify(job)]);
  assert.equal(await migrate(pool), [11]);
  assert.equal((await versions(pool)).slice(-1), [{ version: 11, name: '0011_job_list' }]);
  const { rows } = await pool.query<{ created_at: Date }>("SELECT created_at FROM bulk_jobs WHERE id = 'bulk-1'");
  assert.is(rows[0]!.created_at.toISOString(), bulk.createdAt);
  const store = new PgStore(db.url, 1);
  try {
    assert.equal((await store.listJobs('org-1', {}, 10)).map((r) => r.kind), ['bulk', 'job']);
  } finally {
    await store.close();
  }
});

test('migrating a migrated database again applies nothing and changes nothing', async () => {
  const db = await emptyDatabase();
  const pool = db.pool();
  await migrate(pool);
  await pool.query("INSERT INTO organizations (id, data) VALUES ('org-1', '{\"id\":\"org-1\"}')");
  assert.equal(await migrate(pool), []);
  assert.equal(await versions(pool), ALL);
  const { rows } = await pool.query('SELECT id FROM organizations');
  assert.equal(rows, [{ id: 'org-1' }]);
});

test('two nodes migrating the same database at once both succeed and the migration is applied once', async () => {
  const db = await emptyDatabase();
  const [a, b] = await Promise.all([migrate(db.pool()), migrate(db.pool())]);
  assert.equal([a, b].sort((x, y) => y.length - x.length), [ALL.map((m) => m.version), []]);
  assert.equal(await versions(db.pool()), ALL);
  assert.equal(await tables(db.pool()), TABLES);
});

test('two stores starting on the same empty database at once both open it', async () => {
  const db = await emptyDatabase();
  const stores = [new PgStore(db.url, 2), new PgStore(db.url, 2)];
  try {
    await Promise.all(stores.map((s) => s.init()));
    await stores[0]!.createOrganization({ id: 'org-a', name: 'A', plan: 'free', balance: 0, createdAt: '2030-01-01T00:00:00.000Z' });
    assert.equal((await stores[1]!.getOrganization('org-a'))?.name, 'A');
  } finally {
    for (const s of stores) await s.close();
  }
  assert.equal(await versions(db.pool()), ALL);
});

test('a database migrated by a newer Quire is refused with both versions named', async () => {
  const db = await emptyDatabase();
  const pool = db.pool();
  await migrate(pool);
  await pool.query('INSERT INTO quire_migrations (version, name) VALUES ($1, $2)', [NEWEST + 1, 'from_the_future']);
  try {
    await migrate(pool);
    assert.unreachable('migrate accepted a database newer than the code');
  } catch (err) {
    assert.instance(err, Error);
    assert.is((err as Error).name, 'DatabaseTooNewError');
    assert.match((err as Error).message, `schema version ${NEWEST + 1}, but this Quire knows versions up to ${NEWEST}`);
  }
  const store = new PgStore(db.url, 1);
  try {
    await store.init();
    assert.unreachable('PgStore.init opened a database newer than the code');
  } catch (err) {
    assert.match((err as Error).message, `schema version ${NEWEST + 1}`);
  } finally {
    await store.close();
  }
  // The refusal released the advisory lock: a migration on another connection does not wait for it.
  const { rows } = await pool.query<{ locked: boolean }>("SELECT pg_try_advisory_lock('8175556638605667687') AS locked");
  assert.is(rows[0]!.locked, true);
});

test.run();
