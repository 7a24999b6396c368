// A server whose metadata lives in PostgreSQL (QUIRE_DATABASE_URL, a throw-away cluster), through the public HTTP API:
// organizations made by the admin CLI on the database, a document rendered and charged once, everything still there after
// a restart (and nothing of it in the data dir), reusable blocks versioned and inserted, one organization's records
// hidden from another.
// test-stores: once (its server uses a PostgreSQL cluster of its own).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { admin, cleanup, OWNER_KEY, startExpectingFailure, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.js';
import { waitForRender } from '../helpers/render-jobs.js';
import { pdfText } from '../helpers/bulk-jobs.js';

const API = '/api/v1/dev';
const DOCS = `${API}/documents`;
const BLOCKS = `${API}/reusable-blocks`;

let cluster: ThrowawayPostgres;
let env: Record<string, string>;
const dataDir = tempDir('quire-pg-e2e-');
let server: RunningServer;
let owner: ApiClient;
let other: ApiClient;
let otherKey = '';
/** What the first test made, checked again after the restart. */
const made: { documentId?: string; jobId?: string; charge?: any; pdf?: string } = {};

async function cli(args: string[]): Promise<any> {
  const r = await admin(dataDir, args, env);
  assert.is(r.code, 0, r.stderr);
  return r.json;
}

async function start(): Promise<void> {
  server = await startServer({ dataDir, env });
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  other = owner.withKey(otherKey);
}

/** Renders the saved document by id and returns the finished job and its PDF's text. */
async function renderDocument(id: string): Promise<{ job: any; text: string }> {
  const created = await owner.post(`${API}/render/document/${id}`, {});
  assert.is(created.status, 202, created.bytes.toString());
  const job = await waitForRender(owner, created.body.jobId);
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  const file = await owner.download(job.downloadUrl);
  assert.is(file.status, 200);
  return { job: { ...job, id: created.body.jobId }, text: await pdfText(file.bytes) };
}

test.before(async () => {
  cluster = await startPostgres();
  env = { QUIRE_DATABASE_URL: cluster.url };
  // Made before the first start, as on a new installation: "Main" first, so the bootstrap owner key joins it.
  await cli(['org', 'create', '--name', 'Main', '--credits', '100']);
  const otherOrg = await cli(['org', 'create', '--name', 'Other', '--credits', '10']);
  otherKey = (await cli(['key', 'create', '--org', otherOrg.id, '--role', 'owner'])).key;
  await start();
});

test.after(async () => {
  await server?.stop();
  await cluster?.stop();
  cleanup(dataDir);
});

test('the admin CLI works on the database: both organizations are listed from it, with their grants', async () => {
  const boot = server.logs().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => String(l.msg).startsWith('Quire listening'));
  assert.is(boot?.metadata, 'postgresql');
  const orgs = await cli(['org', 'list']);
  assert.equal(orgs.map((o: any) => [o.name, o.balance]), [['Main', 100], ['Other', 10]]);
  const credits = await owner.get(`${API}/credits`);
  assert.is(credits.status, 200, credits.bytes.toString());
  assert.is(credits.body.balance, 100);
  assert.equal(credits.body.entries.map((e: any) => [e.kind, e.amount, e.note]), [['grant', 100, 'initial grant']]);
});

test('a Markdown document saved, rendered by id to a PDF with its text, and charged exactly once', async () => {
  const saved = await owner.post(`${DOCS}/markdown`, { name: 'Stored in PostgreSQL', content: '# Harbour report\n\nTides recorded at Pier 42 were normal.\n' });
  assert.is(saved.status, 201, saved.bytes.toString());
  made.documentId = saved.body.id;
  assert.is((await owner.get(`${DOCS}/${saved.body.id}`)).status, 200);
  // Another organization does not see it.
  assert.is((await other.get(`${DOCS}/${saved.body.id}`)).status, 404);

  const { job, text } = await renderDocument(saved.body.id);
  assert.match(text, /Harbour report Tides recorded at Pier 42 were normal\./);
  made.jobId = job.id;
  made.pdf = text;

  const credits = await owner.get(`${API}/credits`);
  assert.is(credits.status, 200);
  const charges = credits.body.entries.filter((e: any) => e.kind === 'charge');
  assert.is(charges.length, 1, JSON.stringify(credits.body.entries));
  assert.is(charges[0].jobId, job.id);
  assert.ok(charges[0].amount < 0);
  assert.is(credits.body.balance, 100 + charges[0].amount);
  assert.is(charges[0].balanceAfter, credits.body.balance);
  assert.is(credits.body.reserved, 0);
  made.charge = charges[0];
});

test('after a restart on the same database the document, the job and the single charge are still there; the data dir holds no metadata', async () => {
  assert.ok(made.documentId && made.jobId, 'the previous test saved and rendered the document');
  const before = await owner.get(`${DOCS}/${made.documentId}`);
  assert.is(await server.stop(), 0);
  await start();

  const doc = await owner.get(`${DOCS}/${made.documentId}`);
  assert.is(doc.status, 200, doc.bytes.toString());
  assert.equal(doc.bytes.toString(), before.bytes.toString());
  const job = await waitForRender(owner, made.jobId!);
  assert.is(job.status, 'COMPLETED');
  const file = await owner.download(job.downloadUrl);
  assert.is(file.status, 200);
  assert.is(await pdfText(file.bytes), made.pdf);
  const credits = await owner.get(`${API}/credits`);
  assert.equal(credits.body.entries.filter((e: any) => e.kind === 'charge'), [made.charge]);

  // The embedded store's files never appear: the metadata is in the database, and so are the file bytes (the
  // rendered PDF was downloaded above, after the restart, with no blob on disk).
  for (const name of ['quire.json', 'quire.journal']) assert.not.ok(existsSync(path.join(dataDir, name)), name);
  const blobsDir = path.join(dataDir, 'blobs');
  assert.equal(existsSync(blobsDir) ? readdirSync(blobsDir) : [], []);
  // A second render of it is a second job and a second charge.
  const again = await renderDocument(made.documentId!);
  assert.is.not(again.job.id, made.jobId);
  const after = await owner.get(`${API}/credits`);
  assert.is(after.body.entries.filter((e: any) => e.kind === 'charge').length, 2);
});

test('a reusable block created, given a second version, activated and inserted renders its current version', async () => {
  const created = await owner.post(BLOCKS, { name: 'Payment terms', title: 'Terms', markdown: '## Payment terms\n\nPay within 30 days.\n' });
  assert.is(created.status, 201, created.bytes.toString());
  const id = created.body.id;
  const v2 = await owner.post(`${BLOCKS}/${id}/versions`, { title: 'Terms', markdown: '## Payment terms\n\nPay within 14 days.\n', changeNote: 'Shorter' });
  assert.is(v2.status, 201, v2.bytes.toString());
  assert.equal(v2.body.versions.map((v: any) => v.version), [1, 2]);
  // Only an active block can be inserted.
  const active = await owner.post(`${BLOCKS}/${id}/status`, { status: 'ACTIVE' });
  assert.is(active.status, 200, active.bytes.toString());
  assert.is(active.body.status, 'ACTIVE');
  assert.is((await other.get(`${BLOCKS}/${id}`)).status, 404);

  const doc = await owner.post(DOCS, {
    name: 'Agreement',
    config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Agreement' }, { type: 'blockRef', blockId: id, mode: 'linked' }, { type: 'blockRef', blockId: id, mode: 'linked', version: 1 }] }] },
  });
  assert.is(doc.status, 201, doc.bytes.toString());
  const { text } = await renderDocument(doc.body.id);
  assert.match(text, /Agreement Payment terms Pay within 14 days\. Payment terms Pay within 30 days\./);

  // The block and its versions read back the same after a restart.
  const read = await owner.get(`${BLOCKS}/${id}`);
  assert.is(await server.stop(), 0);
  await start();
  const reread = await owner.get(`${BLOCKS}/${id}`);
  assert.is(reread.status, 200);
  assert.equal(reread.bytes.toString(), read.bytes.toString());
});

test('a QUIRE_DATABASE_URL that is not a PostgreSQL URL stops the server before it listens, naming the setting', async () => {
  const dir = tempDir('quire-pg-e2e-bad-');
  try {
    const { code, output } = await startExpectingFailure({ dataDir: dir, env: { QUIRE_DATABASE_URL: 'mysql://quire@127.0.0.1/quire' } });
    assert.is(code, 78, output);
    assert.match(output, /QUIRE_DATABASE_URL: must match pattern/);
  } finally {
    cleanup(dir);
  }
});

test('a database that cannot be reached stops the server, naming the database but not the password', async () => {
  const dir = tempDir('quire-pg-e2e-down-');
  // The cluster's port with a database that does not exist: refused by PostgreSQL itself, on loopback.
  const url = new URL(cluster.url);
  url.password = 'Secret-Never-Logged';
  url.pathname = '/no_such_database';
  try {
    const { code, output } = await startExpectingFailure({ dataDir: dir, env: { QUIRE_DATABASE_URL: url.href } });
    assert.is.not(code, 0, output);
    assert.match(output, new RegExp(`Cannot open the PostgreSQL database 127\\.0\\.0\\.1:${url.port}/no_such_database`));
    assert.match(output, /no_such_database" does not exist/);
    assert.not.match(output, /Secret-Never-Logged/);
  } finally {
    cleanup(dir);
  }
});

test.run();
