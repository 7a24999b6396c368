// The shared rate limiter on a real throw-away PostgreSQL: concurrent takes from two limiters (two nodes) on one
// bucket never hand out more than the limit, a bucket refills on the database's clock, and full buckets are pruned.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { migrate } from '../../kernel/store/postgres/migrations.js';
import { PgRateLimiter } from '../../kernel/store/postgres/pg-rate-limiter.js';
import { MemoryRateLimiter } from '../../kernel/rate-limiter.js';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.js';

let cluster: ThrowawayPostgres;
let pool: pg.Pool;
let nodes: PgRateLimiter[];

test.before(async () => {
  cluster = await startPostgres();
  pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
  pool.on('error', () => undefined);
  await migrate(pool);
  nodes = [new PgRateLimiter(cluster.url, 10), new PgRateLimiter(cluster.url, 10)];
});

test.after(async () => {
  for (const n of nodes ?? []) await n.close();
  await pool?.end();
  await cluster?.stop();
});

test('forty requests at once through two limiters on one key: exactly ten are allowed', async () => {
  const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => nodes[i % 2]!.take('key:concurrent')));
  assert.is(decisions.filter((d) => d.allowed).length, 10);
  const refused = decisions.filter((d) => !d.allowed);
  assert.ok(refused.every((d) => d.remaining === 0 && d.retryAfterSeconds >= 1 && d.retryAfterSeconds <= 6));
});

test('the answers match the in-memory limiter for the same sequence of requests', async () => {
  const memory = new MemoryRateLimiter(10, () => 0);
  for (let i = 0; i < 12; i++) {
    const shared = await nodes[i % 2]!.take('key:same-answers');
    const local = await memory.take('k');
    assert.equal({ ...shared, resetSeconds: 0 }, { ...local, resetSeconds: 0 }, `request ${i + 1}`);
    // The database's clock moved on a little between requests: the reset is at most a second shorter.
    assert.ok(local.resetSeconds - shared.resetSeconds <= 1 && shared.resetSeconds <= local.resetSeconds, `request ${i + 1}`);
  }
});

test('a bucket refills with the time passed on the database clock, and one full again is pruned', async () => {
  for (let i = 0; i < 10; i++) await nodes[0]!.take('key:refill');
  assert.not.ok((await nodes[1]!.take('key:refill')).allowed);
  // Thirty seconds ago on the database's clock: half the limit has come back.
  await pool.query("UPDATE rate_buckets SET updated_at = clock_timestamp() - interval '30 seconds' WHERE key = 'key:refill'");
  const after = await nodes[1]!.take('key:refill');
  assert.ok(after.allowed);
  assert.is(after.remaining, 4);
  await pool.query("UPDATE rate_buckets SET updated_at = clock_timestamp() - interval '61 seconds' WHERE key = 'key:refill'");
  await nodes[0]!.prune();
  const { rows } = await pool.query("SELECT key FROM rate_buckets WHERE key = 'key:refill'");
  assert.equal(rows, []);
  assert.ok((await pool.query("SELECT 1 FROM rate_buckets WHERE key = 'key:concurrent'")).rowCount === 1, 'a recent bucket stays');
  assert.is((await nodes[0]!.take('key:refill')).remaining, 9, 'a pruned key starts full, as an unknown one does');
});

test.run();
