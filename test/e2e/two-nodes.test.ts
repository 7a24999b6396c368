// Two servers on one PostgreSQL database share the job queue: jobs one admits are run by both, a long poll on one
// answers when the other finishes, downloads work through either, and when one is killed its running jobs are taken
// over by the other once their claims lapse — none lost, none charged twice. A bulk render is settled by one of them.
// An Idempotency-Key is one key for both.
// test-stores: once (its servers use a PostgreSQL cluster of its own).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { admin, cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.js';
import { BULK, pdfText, saveLetter, zipEntries } from '../helpers/bulk-jobs.js';

type Json = Record<string, any>;

const API = '/api/v1/dev';
const RENDER = `${API}/render`;
/** Short claims, so that a killed node's jobs are taken over within seconds. */
const LEASE_SECONDS = 3;

let cluster: ThrowawayPostgres;
let db: pg.Pool;
const dirs = [tempDir('quire-node-a-'), tempDir('quire-node-b-')];
let a: RunningServer;
let b: RunningServer;
let apiA: ApiClient;
let apiB: ApiClient;

function env(): Record<string, string> {
  return { QUIRE_DATABASE_URL: cluster.url, QUIRE_SIGNING_SECRET: 'two-nodes-share-this-signing-secret-0123456789', QUIRE_JOB_LEASE_SECONDS: String(LEASE_SECONDS) };
}

/** A one-page PDF whose text says which render it is; `paragraphs` makes it longer to render. */
function invoice(n: number, paragraphs = 1): Json {
  const content = Array.from({ length: paragraphs }, (_, i) => ({ type: 'text', text: `Invoice ${n} line ${i}: the tide tables of Pier ${n} were normal.` }));
  return { document: { type: 'pdf' }, sections: [{ type: 'flow', content }] };
}

/** The JSON lines a server logged. */
function logLines(server: RunningServer): Json[] {
  return server
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Json);
}

/** The ids of the jobs a server's log says it completed. */
function completedBy(server: RunningServer): Set<string> {
  return new Set(logLines(server).filter((l) => l.msg === 'job completed').map((l) => l.jobId as string));
}

/** Which node logged the completion of each job: waits (a little) for log lines still on their way from the servers. */
async function whoRan(ids: string[]): Promise<[Set<string>, Set<string>]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const [byA, byB] = [completedBy(a), completedBy(b)];
    if (ids.every((id) => byA.has(id) || byB.has(id)) || Date.now() > deadline) return [byA, byB];
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The node id a server's job queue claims under (logged at start). */
function nodeOf(server: RunningServer): string {
  const line = logLines(server).find((l) => l.msg === 'job queue shared through PostgreSQL');
  assert.ok(line, 'the server logs its node id');
  return line.node;
}

async function createRenders(api: ApiClient, count: number, paragraphs = 1): Promise<Array<{ jobId: string; creditCost: number }>> {
  const created = await Promise.all(Array.from({ length: count }, (_, i) => api.post(RENDER, { config: invoice(i, paragraphs) })));
  for (const r of created) assert.is(r.status, 202, r.bytes.toString());
  return created.map((r) => ({ jobId: r.body.jobId, creditCost: r.body.creditCost }));
}

/** Long polls until the job finishes (at most `ms`). */
async function finished(api: ApiClient, jobId: string, ms = 30_000): Promise<Json> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await api.get(`${RENDER}/${jobId}?waitMs=${Math.max(1, Math.min(10_000, deadline - Date.now()))}`);
    assert.is(r.status, 200, r.bytes.toString());
    if (r.body.status === 'COMPLETED' || r.body.status === 'FAILED' || Date.now() >= deadline) return r.body;
  }
}

/** A download link as served by the client's node. */
function through(api: ApiClient, url: string): string {
  return url.replace(/^https?:\/\/[^/]+/, api.baseUrl);
}

/** Every charge of the organization's ledger, by job id. */
async function charges(api: ApiClient): Promise<Map<string, Json[]>> {
  const r = await api.get(`${API}/credits?limit=500`);
  assert.is(r.status, 200, r.bytes.toString());
  const byJob = new Map<string, Json[]>();
  for (const e of r.body.entries.filter((e: Json) => e.kind === 'charge')) byJob.set(e.jobId, [...(byJob.get(e.jobId) ?? []), e]);
  return byJob;
}

test.before(async () => {
  cluster = await startPostgres();
  db = new pg.Pool({ connectionString: cluster.url, max: 2 });
  db.on('error', () => undefined);
  // Made before the servers start, so that their bootstraps (which may race) find the organization there.
  const main = await admin(dirs[0]!, ['org', 'create', '--name', 'Main', '--credits', '1000'], env());
  assert.is(main.code, 0, main.stderr);
  [a, b] = await Promise.all(dirs.map((dataDir) => startServer({ dataDir, env: env() })));
  apiA = new ApiClient(a.baseUrl, OWNER_KEY);
  apiB = new ApiClient(b.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.end();
  await cluster?.stop();
  for (const d of dirs) cleanup(d);
});

test('renders created on one node are run by both, each charged once; a long poll on the other node answers at the finish; downloads work through either', async () => {
  const jobs = await createRenders(apiA, 20);
  // A long poll on B for a job A admitted: answered when the job finishes, on whichever node.
  const polled = await finished(apiB, jobs[0]!.jobId, 20_000);
  assert.is(polled.status, 'COMPLETED', `${polled.errorCode}: ${polled.error}`);
  const done = await Promise.all(jobs.map((j) => finished(apiA, j.jobId)));
  for (const job of done) assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);

  const [byA, byB] = await whoRan(jobs.map((j) => j.jobId));
  for (const j of jobs) assert.ok(byA.has(j.jobId) !== byB.has(j.jobId), `job ${j.jobId} was completed by exactly one node`);
  assert.ok(byA.size > 0 && byB.size > 0, `both nodes ran some (A ${byA.size}, B ${byB.size})`);

  const ledger = await charges(apiB);
  for (const j of jobs) assert.equal(ledger.get(j.jobId)?.map((e) => e.amount), [-j.creditCost], `job ${j.jobId} is charged once`);

  // The output of a job B ran, downloaded through A, and of one A ran through B (one signing secret, one database).
  const ranByB = done.find((j) => byB.has(j.jobId))!;
  const ranByA = done.find((j) => byA.has(j.jobId))!;
  for (const [job, api] of [[ranByB, apiA], [ranByA, apiB]] as const) {
    const file = await api.download(through(api, job.downloadUrl));
    assert.is(file.status, 200);
    const n = jobs.findIndex((j) => j.jobId === job.jobId);
    assert.match(await pdfText(file.bytes), `Invoice ${n} line 0`);
  }
});

test('a bulk render created on one node is settled once, answers a long poll on the other node, and its ZIP downloads through either', async () => {
  const letter = await saveLetter(apiA);
  const names = ['Ada', 'Bob', 'Cleo', 'Dan', 'Eve', 'Fay'];
  const created = await apiA.post(BULK, { documentId: letter, items: names.map((name) => ({ name })) });
  assert.is(created.status, 202, created.bytes.toString());
  const id = created.body.bulkJobId;
  const deadline = Date.now() + 30_000;
  let bulk: Json;
  do {
    const r = await apiB.get(`${BULK}/${id}?waitMs=10000`);
    assert.is(r.status, 200, r.bytes.toString());
    bulk = r.body;
  } while (bulk.status !== 'COMPLETED' && bulk.status !== 'FAILED' && Date.now() < deadline);
  assert.is(bulk.status, 'COMPLETED', JSON.stringify(bulk));
  assert.is(bulk.completedItems, names.length);
  const zip = await apiA.download(through(apiA, bulk.downloadUrl));
  assert.is(zip.status, 200);
  const entries = await zipEntries(zip.bytes);
  assert.is(entries.size, names.length);
  for (const [i, name] of names.entries()) assert.match(await pdfText(entries.get(`letter-00${i + 1}.pdf`)!), `Dear ${name}`);
  // The long poll answers at the commit; the settling node's log line may still be on its way.
  const settled = () => [a, b].flatMap((s) => logLines(s).filter((l) => l.msg === 'bulk render finished' && l.bulkJobId === id));
  for (const end = Date.now() + 5000; !settled().length && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));
  assert.is(settled().length, 1, 'one node settled the bulk job');
});

test('an Idempotency-Key is shared by both nodes: identical POSTs sent to either make one job, charged once, and every 202 names it', async () => {
  const body = { config: invoice(99) };
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? apiA : apiB).post(RENDER, body, { 'Idempotency-Key': 'two-nodes' })));
  const accepted = answers.filter((r) => r.status === 202);
  assert.is(accepted.length + answers.filter((r) => r.status === 409).length, 20, answers.map((r) => r.status).join(' '));
  assert.is(accepted.filter((r) => r.headers.get('idempotency-replayed') === null).length, 1);
  const ids = new Set(accepted.map((r) => r.body.jobId as string));
  assert.is(ids.size, 1);
  const [jobId] = [...ids];
  assert.is((await finished(apiA, jobId!)).status, 'COMPLETED');
  assert.equal((await charges(apiB)).get(jobId!)?.length, 1);
  // Each node replays the stored answer.
  for (const api of [apiA, apiB]) {
    const again = await api.post(RENDER, body, { 'Idempotency-Key': 'two-nodes' });
    assert.is(again.headers.get('idempotency-replayed'), 'true');
    assert.is(again.body.jobId, jobId);
  }
});

test('when a node is killed while it runs jobs, the other completes every one of them once their claims lapse, each charged once', async () => {
  const nodeA = nodeOf(a);
  // A burst of long renders (300 paragraphs each); A is killed the moment it is seen running one of them.
  const jobs = await createRenders(apiA, 10, 300);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { rows } = await db.query<{ id: string }>("SELECT id FROM jobs WHERE status = 'PROCESSING' AND lease_owner = $1", [nodeA]);
    if (rows.length || Date.now() > deadline) break;
  }
  await a.kill();
  const killedAt = Date.now();
  const { rows } = await db.query<{ id: string }>("SELECT id FROM jobs WHERE status = 'PROCESSING' AND lease_owner = $1", [nodeA]);
  const interrupted = rows.map((r) => r.id);
  assert.ok(interrupted.length > 0, 'node A was killed while it ran a job');

  const done = await Promise.all(jobs.map((j) => finished(apiB, j.jobId, 40_000)));
  for (const job of done) assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  const takenOver = Date.now() - killedAt;
  assert.ok(takenOver < (LEASE_SECONDS + 25) * 1000, `the jobs were finished ${takenOver} ms after the kill`);
  const [, byB] = await whoRan(interrupted);
  for (const id of interrupted) assert.ok(byB.has(id), `job ${id}, interrupted on A, was completed by B`);
  assert.match(b.logs(), 'the claim on a running job lapsed');

  const ledger = await charges(apiB);
  for (const j of jobs) assert.equal(ledger.get(j.jobId)?.map((e) => e.amount), [-j.creditCost], `job ${j.jobId} is charged once`);
  const file = await apiB.download(through(apiB, done[jobs.findIndex((j) => j.jobId === interrupted[0])]!.downloadUrl));
  assert.is(file.status, 200);
});

test.run();
