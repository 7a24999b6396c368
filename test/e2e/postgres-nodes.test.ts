// Two servers on one PostgreSQL database (different ports and data dirs, one QUIRE_DATABASE_URL): started at once on
// an empty database they bootstrap one default organization, and a key's rate limit is one budget across both.
// test-stores: once (its servers use a PostgreSQL cluster of its own).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { admin, cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.js';

const API = '/api/v1/dev';
const LIMIT = 10;

let cluster: ThrowawayPostgres;
let env: Record<string, string>;
const dirs = [tempDir('quire-pg-node-a-'), tempDir('quire-pg-node-b-')];
let nodes: RunningServer[] = [];

async function cli(args: string[]): Promise<any> {
  const r = await admin(dirs[0]!, args, env);
  assert.is(r.code, 0, r.stderr);
  return r.json;
}

test.before(async () => {
  cluster = await startPostgres();
  env = {
    QUIRE_DATABASE_URL: cluster.url,
    QUIRE_SIGNING_SECRET: 'a-signing-secret-both-nodes-share-0123456789',
    QUIRE_RATE_LIMIT_PER_MINUTE: String(LIMIT),
  };
  // At the same time, on an empty database: both migrate and bootstrap concurrently.
  nodes = await Promise.all(dirs.map((dataDir) => startServer({ dataDir, env })));
});

test.after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await cluster?.stop();
  dirs.forEach(cleanup);
});

test('two servers started at once on an empty database create exactly one default organization, and its bootstrap key works on both', async () => {
  const orgs = await cli(['org', 'list']);
  assert.equal(orgs.map((o: any) => o.name), ['Default organization']);
  const keys = await cli(['key', 'list', '--org', orgs[0].id]);
  assert.equal(keys.map((k: any) => k.name), ['bootstrap owner key'], 'the QUIRE_BOOTSTRAP_API_KEY owner key is made once');
  for (const node of nodes) {
    const credits = await new ApiClient(node.baseUrl, OWNER_KEY).get(`${API}/credits`);
    assert.is(credits.status, 200, credits.bytes.toString());
    assert.is(credits.body.balance, 10000);
  }
  const logs = nodes.map((n) => n.logs()).join('\n');
  assert.is(logs.split('created the default organization').length - 1, 1, 'one node created it');
});

test('a key has one rate-limit budget across both servers: the 11th request on either is refused, another key is not', async () => {
  const org = (await cli(['org', 'list']))[0];
  const [first, second] = [
    (await cli(['key', 'create', '--org', org.id, '--role', 'member', '--name', 'spread'])).key as string,
    (await cli(['key', 'create', '--org', org.id, '--role', 'member', '--name', 'other'])).key as string,
  ];
  const on = (i: number, key: string) => new ApiClient(nodes[i % 2]!.baseUrl, key);
  const remaining: number[] = [];
  for (let i = 0; i < LIMIT; i++) {
    const r = await on(i, first).get(`${API}/credits`);
    assert.is(r.status, 200, `request ${i + 1} on node ${i % 2}`);
    assert.is(r.headers.get('ratelimit-limit'), String(LIMIT));
    remaining.push(Number(r.headers.get('ratelimit-remaining')));
  }
  assert.equal(remaining, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 'each request, on either node, took from the same bucket');
  for (const i of [0, 1]) {
    const refused = await on(i, first).get(`${API}/credits`);
    assert.is(refused.status, 429, `node ${i}`);
    assert.is(refused.body.code, 'RATE_LIMITED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 6, String(retryAfter));
    assert.is(refused.headers.get('ratelimit-remaining'), '0');
  }
  for (const i of [0, 1]) {
    const r = await on(i, second).get(`${API}/credits`);
    assert.is(r.status, 200, `the other key on node ${i}`);
    assert.is(r.headers.get('ratelimit-remaining'), String(LIMIT - 1 - i));
  }
});

test('the buckets hold key ids, never the keys themselves', async () => {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string }>('SELECT key FROM rate_buckets ORDER BY key');
    assert.ok(rows.length >= 3, JSON.stringify(rows));
    for (const { key } of rows) {
      assert.match(key, /^key:[0-9a-f-]{36}$/);
      assert.not.ok(key.includes('ak_'));
    }
  } finally {
    await client.end();
  }
});

test.run();
