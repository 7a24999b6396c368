// Idempotency-Key over HTTP: a retried POST never makes a second job or charge (50 at once, or after a kill -9 between
// admission and answer), replays the first answer byte for byte, refuses another request with the key, and expires.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { once } from 'node:events';
import { cleanup, mainAndOtherOrg, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { waitForRender } from '../helpers/render-jobs.js';
import { makePdf } from '../fixtures/pdfs.js';

const API = '/api/v1/dev';
const RENDER = `${API}/render`;
const KEY = 'Idempotency-Key';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const config = (title: string) => ({ document: { type: 'pdf', filename: 'idem' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: title }] }] });

/** The organization's charges in the ledger. */
async function charges(api: ApiClient): Promise<Array<{ jobId: string; amount: number }>> {
  const r = await api.get(`${API}/credits`);
  return r.body.entries.filter((e: { kind: string }) => e.kind === 'charge');
}

/**
 * A POST sent with node:http in `pieces` writes, each its own TCP segment a few milliseconds after the last, so the
 * server's parser hands the body over in as many chunks.
 */
function rawPost(baseUrl: string, path: string, headers: Record<string, string>, body: Buffer, pieces: number): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('socket', (s) => s.setNoDelay(true));
    void (async () => {
      const size = Math.ceil(body.length / pieces);
      for (let at = 0; at < body.length; at += size) {
        req.write(body.subarray(at, at + size));
        await sleep(3);
      }
      req.end();
    })();
  });
}

/** A multipart body of one part named "file", with a fixed boundary (a retry must send the same bytes). */
function multipart(filename: string, bytes: Uint8Array): { body: Buffer; type: string } {
  const boundary = 'quire-idempotency-test-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

function assertReplay(again: ApiResponse, first: ApiResponse): void {
  assert.is(again.status, first.status, again.bytes.toString());
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.ok(again.bytes.equals(first.bytes), `${again.bytes} ≠ ${first.bytes}`);
  assert.is(again.headers.get('content-type'), first.headers.get('content-type'));
  assert.is(again.headers.get('location'), first.headers.get('location'));
}

// ---------------------------------------------------------------- one server, two organizations

const s = suite('Idempotency-Key');
let server: RunningServer;
let api: ApiClient;
let other: ApiClient;

s.before(async () => {
  const dataDir = tempDir();
  const { otherKey } = await mainAndOtherOrg(dataDir, { main: 1000, other: 100 });
  server = await startServer({ dataDir });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  other = new ApiClient(server.baseUrl, otherKey);
});

s.after(async () => {
  await server?.stop();
  if (server) cleanup(server.dataDir);
});

s('50 identical POST /render at once with one key make one job and one charge; the others wait (409) or replay its answer', async () => {
  const before = await charges(api);
  const body = { config: config('Fifty at once') };
  const answers = await Promise.all(Array.from({ length: 50 }, () => api.post(RENDER, body, { [KEY]: 'fifty' })));
  const accepted = answers.filter((a) => a.status === 202);
  const waiting = answers.filter((a) => a.status === 409);
  assert.is(accepted.length + waiting.length, 50, answers.map((a) => a.status).join(' '));
  assert.is(accepted.filter((a) => a.headers.get('idempotency-replayed') === null).length, 1, 'one answer is the first');
  assert.equal([...new Set(accepted.map((a) => a.body.jobId))].length, 1, 'every 202 names the same job');
  for (const w of waiting) {
    assert.is(w.body.code, 'IDEMPOTENCY_IN_FLIGHT');
    assert.ok(Number(w.headers.get('retry-after')) >= 1);
  }
  const jobId = accepted[0]!.body.jobId;
  assert.is((await waitForRender(api, jobId)).status, 'COMPLETED');
  const after = await charges(api);
  assert.is(after.length - before.length, 1, 'one charge');
  assert.equal(after.filter((c) => c.jobId === jobId).length, 1);

  // A retry now replays the first answer byte for byte (the job as it was when created).
  const first = accepted.find((a) => a.headers.get('idempotency-replayed') === null)!;
  assertReplay(await api.post(RENDER, body, { [KEY]: 'fifty' }), first);
  assert.is((await charges(api)).length, after.length);
});

s('the same key with another body, path or query answers 422 IDEMPOTENCY_KEY_REUSED; in another organization it is independent', async () => {
  const first = await api.post(RENDER, { config: config('First') }, { [KEY]: 'reused' });
  assert.is(first.status, 202);
  for (const [path, body] of [[RENDER, { config: config('Second') }], [`${RENDER}?strict=true`, { config: config('First') }], [`${RENDER}/images`, { config: config('First') }]] as const) {
    const again = await api.post(path, body, { [KEY]: 'reused' });
    assert.is(again.status, 422, `${path}: ${again.bytes}`);
    assert.is(again.body.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.is(again.headers.get('idempotency-replayed'), null);
  }
  const elsewhere = await other.post(RENDER, { config: config('First') }, { [KEY]: 'reused' });
  assert.is(elsewhere.status, 202);
  assert.is(elsewhere.headers.get('idempotency-replayed'), null);
  assert.is.not(elsewhere.body.jobId, first.body.jobId);
});

s('a 400 answer is stored and replayed; a malformed key answers 400 naming the header and stores nothing', async () => {
  const first = await api.post(RENDER, { config: config('x'), unknown: true }, { [KEY]: 'invalid-body' });
  assert.is(first.status, 400);
  assertReplay(await api.post(RENDER, { config: config('x'), unknown: true }, { [KEY]: 'invalid-body' }), first);
  for (const bad of ['a'.repeat(256), 'tab\there']) {
    const r = await api.post(RENDER, { config: config('x') }, { [KEY]: bad });
    assert.is(r.status, 400, bad);
    assert.match(r.body.detail, 'Idempotency-Key');
  }
});

s('a JSON body split over many TCP chunks has the fingerprint of the same bytes sent at once', async () => {
  const body = Buffer.from(JSON.stringify({ config: config('Chunked') }));
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': OWNER_KEY, [KEY]: 'chunked-json' };
  const first = await rawPost(server.baseUrl, RENDER, headers, body, 40);
  assert.is(first.status, 202, first.bytes.toString());
  const again = await rawPost(server.baseUrl, RENDER, headers, body, 1);
  assert.is(again.status, 202);
  assert.is(again.headers['idempotency-replayed'], 'true');
  assert.ok(again.bytes.equals(first.bytes));
  const changed = Buffer.from(body.toString().replace('Chunked', 'Chunkee'));
  assert.is((await rawPost(server.baseUrl, RENDER, headers, changed, 40)).status, 422);
});

s('a multipart upload replays its answer (the body read by the route itself), in many chunks or one; another file is refused', async () => {
  const pdf = await makePdf(1);
  const { body, type } = multipart('one.pdf', pdf);
  const headers = { 'Content-Type': type, 'X-API-Key': OWNER_KEY, [KEY]: 'upload' };
  const first = await rawPost(server.baseUrl, `${API}/tools/files/upload`, headers, body, 25);
  assert.is(first.status, 201, first.bytes.toString());
  const again = await rawPost(server.baseUrl, `${API}/tools/files/upload`, headers, body, 1);
  assert.is(again.status, 201);
  assert.is(again.headers['idempotency-replayed'], 'true');
  assert.ok(again.bytes.equals(first.bytes));
  const otherFile = multipart('one.pdf', await makePdf(2));
  assert.is((await rawPost(server.baseUrl, `${API}/tools/files/upload`, { ...headers, 'Content-Type': otherFile.type }, otherFile.body, 5)).status, 422);
});

s('a tools job, a bulk render and a document each replay their creation answer, and make one job, bulk job or document', async () => {
  const fileId = await api.uploadId(await makePdf(2), 'rotate.pdf');
  const rotate = await api.post(`${API}/tools/pdf/rotate`, { fileId, angle: 90 }, { [KEY]: 'rotate' });
  assert.is(rotate.status, 202, rotate.bytes.toString());
  assertReplay(await api.post(`${API}/tools/pdf/rotate`, { fileId, angle: 90 }, { [KEY]: 'rotate' }), rotate);
  assert.is((await api.waitForJob(rotate.body.id)).status, 'COMPLETED');

  const countBefore = (await api.get(`${API}/documents?limit=200`)).body.items.length;
  const doc = await api.post(`${API}/documents`, { name: 'Once', config: config('Hello {{name}}') }, { [KEY]: 'document' });
  assert.is(doc.status, 201, doc.bytes.toString());
  assertReplay(await api.post(`${API}/documents`, { name: 'Once', config: config('Hello {{name}}') }, { [KEY]: 'document' }), doc);
  assert.is((await api.get(`${API}/documents?limit=200`)).body.items.length, countBefore + 1);

  const bulkBody = { documentId: doc.body.id, items: [{ name: 'Ada' }, { name: 'Grace' }] };
  const bulk = await api.post(`${API}/bulk-render`, bulkBody, { [KEY]: 'bulk' });
  assert.is(bulk.status, 202, bulk.bytes.toString());
  assertReplay(await api.post(`${API}/bulk-render`, bulkBody, { [KEY]: 'bulk' }), bulk);
});

s('the OpenAPI document shows the header and the 409 and 422 answers on every creating POST, and on no other route', async () => {
  const doc = (await api.get(`${API}/openapi.json`)).body;
  const creating = ['/render', '/render/markdown', '/render/document/{documentId}', '/bulk-render/file', '/tools/pdf/rotate', '/tools/lens/ocr', '/tools/files/upload', '/images/upload', '/documents', '/templates/{templateId}/copy', '/reusable-blocks', '/styles', '/api-keys'];
  for (const path of creating) {
    const op = doc.paths[`${API}${path}`]?.post;
    assert.ok(op, path);
    assert.ok(op.parameters?.some((p: { name: string; in: string }) => p.name === KEY && p.in === 'header'), `${path} takes ${KEY}`);
    assert.match(JSON.stringify(op.responses['409']), 'IDEMPOTENCY_IN_FLIGHT', path);
    assert.match(JSON.stringify(op.responses['422']), 'IDEMPOTENCY_KEY_REUSED', path);
  }
  for (const [path, methods] of Object.entries<Record<string, { parameters?: Array<{ name: string }> }>>(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (method === 'post' && creating.some((c) => `${API}${c}` === path)) continue;
      if (method !== 'post') assert.not.ok(op.parameters?.some((p) => p.name === KEY), `${method} ${path}`);
    }
  }
  assert.not.ok(doc.paths[`${API}/render/validate/markdown`].post.parameters?.some((p: { name: string }) => p.name === KEY), 'a validation creates nothing');
});

s('without the header nothing changes: two identical POSTs make two jobs', async () => {
  const body = { config: config('No key') };
  const [a, b] = [await api.post(RENDER, body), await api.post(RENDER, body)];
  assert.is(a.status, 202);
  assert.is(b.status, 202);
  assert.is.not(a.body.jobId, b.body.jobId);
  assert.is(a.headers.get('idempotency-replayed'), null);
});

s.run();

// ---------------------------------------------------------------- expiry

const expiry = suite('Idempotency-Key expiry');

expiry('a key is kept QUIRE_IDEMPOTENCY_TTL_SECONDS; after that the same request runs again', async () => {
  const dataDir = tempDir();
  const short = await startServer({ dataDir, env: { QUIRE_IDEMPOTENCY_TTL_SECONDS: '2' } });
  try {
    const client = new ApiClient(short.baseUrl, OWNER_KEY);
    const body = { name: 'Expiring', config: config('x') };
    const first = await client.post(`${API}/documents`, body, { [KEY]: 'expiring' });
    assert.is(first.status, 201);
    assertReplay(await client.post(`${API}/documents`, body, { [KEY]: 'expiring' }), first);
    await sleep(2200);
    const later = await client.post(`${API}/documents`, body, { [KEY]: 'expiring' });
    assert.is(later.status, 201);
    assert.is(later.headers.get('idempotency-replayed'), null);
    assert.is.not(later.body.id, first.body.id);
  } finally {
    await short.stop();
    cleanup(dataDir);
  }
});

expiry.run();

// ---------------------------------------------------------------- kill -9 between admission and answer

const crash = suite('Idempotency-Key across a crash');

crash('a kill -9 after the admission and before the answer: a retry waits (409) while the lease holds, then answers 202 with the admitted job, which runs and is charged once', async () => {
  const dataDir = tempDir();
  // The lease outlasts the restart (even on a loaded machine), so the first retry finds it live; the job lease is short
  // for PostgreSQL's recovery.
  const env = { QUIRE_IDEMPOTENCY_LEASE_MS: '20000', QUIRE_JOB_LEASE_SECONDS: '2' };
  let node = await startServer({ dataDir, env: { ...env, QUIRE_FAILPOINT: 'after-admission' } });
  try {
    let client = new ApiClient(node.baseUrl, OWNER_KEY);
    const before = await charges(client);
    const body = { config: config('Survives a crash') };
    const sentAt = new Date().toISOString();
    const lost = await client.post(RENDER, body, { [KEY]: 'crash' }).then(() => 'answered', (err: Error) => err.message);
    assert.is.not(lost, 'answered', 'the failpoint killed the server before it answered');
    if (node.proc.exitCode === null && node.proc.signalCode === null) await once(node.proc, 'exit');
    assert.is(node.proc.signalCode, 'SIGKILL');
    await node.kill();

    node = await startServer({ dataDir, env });
    const restartedAt = new Date().toISOString();
    client = new ApiClient(node.baseUrl, OWNER_KEY);
    const early = await client.post(RENDER, body, { [KEY]: 'crash' });
    assert.is(early.status, 409, early.bytes.toString());
    assert.is(early.body.code, 'IDEMPOTENCY_IN_FLIGHT');
    const wait = Number(early.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= 20, String(wait));

    let retried = early;
    for (const end = Date.now() + 40_000; retried.status === 409 && Date.now() < end; ) {
      await sleep(500);
      retried = await client.post(RENDER, body, { [KEY]: 'crash' });
    }
    assert.is(retried.status, 202, retried.bytes.toString());
    assert.is(retried.headers.get('idempotency-replayed'), null);
    assert.is(retried.headers.get('location'), `${RENDER}/${retried.body.jobId}`);
    // The job the crashed server admitted, not a new one.
    assert.ok(retried.body.createdAt >= sentAt && retried.body.createdAt < restartedAt, `${sentAt} ≤ ${retried.body.createdAt} < ${restartedAt}`);
    const job = await waitForRender(client, retried.body.jobId);
    assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
    const after = await charges(client);
    assert.is(after.length - before.length, 1, 'one job was charged');
    assert.is(after.filter((c) => c.jobId === retried.body.jobId).length, 1);
    // From now on the key replays that answer.
    assertReplay(await client.post(RENDER, body, { [KEY]: 'crash' }), retried);
  } finally {
    await node.stop();
    cleanup(dataDir);
  }
});

crash.run();
