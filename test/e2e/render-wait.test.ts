// `?wait=<seconds>` on the render-creating POSTs: 200 with the finished job (GET /render/{jobId}'s body) when it finishes
// within the wait, 202 as before when it does not or when there is no wait; 400 naming query.wait for bad values; with
// an Idempotency-Key the answer sent is the one replayed. The render that cannot finish in time draws an image from an
// https server on loopback (a throw-away certificate the Quire process trusts) that holds its answer until the test lets go.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanup, OWNER_KEY, startServer, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { popplerOutput } from '../helpers/poppler.js';
import { redPng } from '../helpers/render-jobs.js';
import { startHttpsSite, type HttpsSite } from '../helpers/loopback-canary.js';

type Json = Record<string, any>;

const API = '/api/v1/dev';

let work: string;
let images: HttpsSite;
let imageBase: string;
/** The answers of /held.png not given yet. */
const held: ServerResponse[] = [];
let png: Buffer;
let server: RunningServer;
let api: ApiClient;

const pdfConfig = (text: string) => ({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h1', text }] }] });

test.before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'quire-render-wait-'));
  png = await redPng();
  images = await startHttpsSite(work, (req, res) => {
    res.setHeader('Content-Type', 'image/png');
    if (req.url === '/held.png') held.push(res);
    else res.end(png);
  });
  imageBase = images.url;
  server = await startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true', NODE_EXTRA_CA_CERTS: images.certFile } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  for (const res of held.splice(0)) res.end(png);
  if (server) {
    await server.stop();
    cleanup(server.dataDir);
  }
  await images?.close();
  rmSync(work, { recursive: true, force: true });
});

test('POST /render?wait=30 answers 200 with the completed job, the body GET /render/{jobId} gives, and its downloadUrl serves the PDF', async () => {
  const r = await api.post(`${API}/render?wait=30`, { config: pdfConfig('Answered in one round trip') });
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.status, 'COMPLETED');
  assert.is(r.headers.get('location'), `${API}/render/${r.body.jobId}`);
  const polled = await api.get(`${API}/render/${r.body.jobId}`);
  const withoutLink = ({ downloadUrl: _, ...rest }: Json) => rest;
  assert.equal(withoutLink(r.body), withoutLink(polled.body));
  const pdf = await api.download(r.body.downloadUrl);
  assert.is(pdf.status, 200);
  assert.is(pdf.headers.get('content-type'), 'application/pdf');
  assert.match(await popplerOutput('pdftotext', [], pdf.bytes), 'Answered in one round trip');
});

test('every render-creating POST takes ?wait=: Markdown, page images of either, and a saved document', async () => {
  const content = '# Waited for\n\nOne page of Extended Markdown.\n';
  const saved = await api.post(`${API}/documents/markdown`, { name: 'Waited', content });
  assert.is(saved.status, 201, saved.bytes.toString());
  const cases: Array<[string, Json, string]> = [
    ['/render/markdown', { content }, 'application/pdf'],
    ['/render/images', { config: pdfConfig('Waited for'), image: { format: 'png', dpi: 36 } }, 'image/png'],
    ['/render/markdown/images', { content, image: { format: 'jpeg', dpi: 36 } }, 'image/jpeg'],
    [`/render/document/${saved.body.id}`, {}, 'application/pdf'],
  ];
  for (const [route, body, type] of cases) {
    const r = await api.post(`${API}${route}?wait=30`, body);
    assert.is(r.status, 200, `${route}: ${r.bytes.toString()}`);
    assert.is(r.body.status, 'COMPLETED', route);
    const file = await api.download(r.body.downloadUrl);
    assert.is(file.status, 200, route);
    assert.is(file.headers.get('content-type'), type, route);
    if (type === 'application/pdf') assert.match(await popplerOutput('pdftotext', [], file.bytes), 'Waited for', route);
  }
});

test('a render that fails within the wait is still 200, FAILED with its error', async () => {
  const r = await api.post(`${API}/render/images?wait=30`, { config: pdfConfig('One page'), image: { pages: ['3'] } });
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.status, 'FAILED');
  assert.is(r.body.errorCode, 'PAGE_OUT_OF_RANGE');
  assert.match(r.body.error, 'image.pages[0]: "3" is out of range');
  assert.is(r.body.downloadUrl, null);
});

test('wait=0, or no wait, answers 202 at once as before', async () => {
  for (const query of ['?wait=0', '', '?wait=']) {
    const r = await api.post(`${API}/render${query}`, { config: pdfConfig('Not waited for') });
    assert.is(r.status, 202, query);
    assert.is(r.body.status, 'PENDING', query);
    assert.is(r.headers.get('location'), `${API}/render/${r.body.jobId}`);
    assert.is((await api.get(`${API}/render/${r.body.jobId}?waitMs=30000`)).body.status, 'COMPLETED');
  }
});

test('a wait over 60 s or not a whole number of seconds is 400 naming query.wait, before any job is made', async () => {
  const before = (await api.get(`${API}/credits`)).body.balance;
  for (const bad of ['61', 'abc', '-1', '1.5', '1e1']) {
    for (const route of ['/render', '/render/markdown']) {
      const body = route === '/render' ? { config: pdfConfig('Never made') } : { content: '# Never made\n' };
      const r = await api.post(`${API}${route}?wait=${encodeURIComponent(bad)}`, body);
      assert.is(r.status, 400, `${route} wait=${bad}`);
      assert.is(r.body.code, 'VALIDATION_FAILED');
      assert.equal(r.body.errors.map((e: { path: string }) => e.path), ['query.wait']);
      assert.match(r.body.detail, `not "${bad}"`);
    }
  }
  // Nothing was admitted: a render would have been charged when it completed, within this wait.
  const after = await api.post(`${API}/render?wait=30`, { config: pdfConfig('Made') });
  assert.is(after.status, 200);
  assert.is((await api.get(`${API}/credits`)).body.balance, before - 1);
});

test('a render still running when the wait runs out answers 202 after the wait, and an Idempotency-Key replays that 202', async () => {
  const body = { config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Held' }, { type: 'image', src: `${imageBase}/held.png`, alt: 'held' }] }] } };
  const headers = { 'Idempotency-Key': 'render-wait-held' };
  const started = Date.now();
  const r = await api.post(`${API}/render?wait=1`, body, headers);
  const waited = Date.now() - started;
  assert.is(r.status, 202, r.bytes.toString());
  assert.ok(['PENDING', 'PROCESSING'].includes(r.body.status), r.body.status);
  // The image is still held, so the render could not finish: the answer came when the 1 s wait ran out.
  assert.ok(waited >= 1000, `answered after ${waited} ms`);
  assert.is(held.length, 1);
  const replay = await api.post(`${API}/render?wait=1`, body, headers);
  assert.is(replay.status, 202);
  assert.is(replay.headers.get('idempotency-replayed'), 'true');
  assert.equal(replay.bytes, r.bytes);

  for (const res of held.splice(0)) res.end(png);
  const done = await api.get(`${API}/render/${r.body.jobId}?waitMs=30000`);
  assert.is(done.body.status, 'COMPLETED', done.body.error);
  assert.match(await popplerOutput('pdftotext', [], (await api.download(done.body.downloadUrl)).bytes), 'Held');
});

test('with an Idempotency-Key the 200 of a wait is what a retry replays', async () => {
  const body = { config: pdfConfig('Replayed') };
  const headers = { 'Idempotency-Key': 'render-wait-done' };
  const first = await api.post(`${API}/render?wait=30`, body, headers);
  assert.is(first.status, 200, first.bytes.toString());
  assert.is(first.body.status, 'COMPLETED');
  const again = await api.post(`${API}/render?wait=30`, body, headers);
  assert.is(again.status, 200);
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.equal(again.bytes, first.bytes);
});

test('the OpenAPI document shows wait (0 to 60) and both answers, 200 and 202, on every render-creating POST', async () => {
  const doc = (await api.withKey(null).get(`${API}/openapi.json`)).body;
  for (const route of ['/render', '/render/images', '/render/markdown', '/render/markdown/images', '/render/document/{documentId}']) {
    const op = doc.paths[`${API}${route}`].post;
    const wait = op.parameters.find((p: Json) => p.name === 'wait');
    assert.equal({ in: wait.in, schema: wait.schema }, { in: 'query', schema: { type: 'integer', minimum: 0, maximum: 60 } }, route);
    assert.equal(op.responses['200'].content['application/json'].schema, op.responses['202'].content['application/json'].schema, route);
  }
});

test.run();
