// Worker pools: deadlines kill the thread, out-of-memory and crashes fail only their job, backlog answers 503.
// test-stores: once (worker-pool deadlines, crashes and backlog; no store behaviour of its own).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type RunningServer, storedBlobs, useServer } from '../helpers/quire-server.js';
import { fixturePlugin } from '../helpers/fixture-plugins.js';
import { ApiClient } from '../helpers/api-client.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started), {
  config: { externalPlugins: [fixturePlugin('kernel-probe')], plugins: { 'kernel-probe': { pool: { timeoutMs: 8000, maxBacklog: 3 } } } },
});

const balance = async () => (await api.get('/api/v1/dev/credits')).body.balance as number;

test('fails a job that outlives its deadline, kills its thread, and charges nothing', async () => {
  const before = await balance();
  const job = await api.waitForJob((await api.post('/api/v1/dev/test/sleep', { ms: 30_000 })).body.id);
  assert.is(job.status, 'FAILED');
  assert.match(job.error, 'deadline');
  assert.is(job.errorCode, 'DEADLINE_EXCEEDED');
  assert.is(await balance(), before);
  const next = await api.waitForJob((await api.post('/api/v1/dev/test/sleep', { ms: 5 })).body.id);
  assert.is(next.status, 'COMPLETED');
});

test('fails only the job whose worker runs out of memory', async () => {
  const job = await api.waitForJob((await api.post('/api/v1/dev/test/oom', {})).body.id, 60_000);
  assert.is(job.status, 'FAILED');
  assert.match(job.error, /out of memory|crashed/);
  assert.is((await api.withKey(null).get('/healthz')).status, 200);
  const next = await api.waitForJob((await api.post('/api/v1/dev/test/sleep', { ms: 5 })).body.id);
  assert.is(next.status, 'COMPLETED');
});

test('fails only the job whose worker thread exits', async () => {
  const job = await api.waitForJob((await api.post('/api/v1/dev/test/crash', {})).body.id);
  assert.is(job.status, 'FAILED');
  assert.match(job.error, 'crashed');
  assert.is(job.errorCode, 'WORKER_CRASHED');
  const next = await api.waitForJob((await api.post('/api/v1/dev/test/sleep', { ms: 5 })).body.id);
  assert.is(next.status, 'COMPLETED');
});

test('fails a job whose plugin returns a result that breaks its contract, and keeps no file of it', async () => {
  const stored = async () => (await storedBlobs(server.dataDir)).length;
  const before = await stored();
  const job = await api.waitForJob((await api.post('/api/v1/dev/test/bad-result', {})).body.id);
  assert.is(job.status, 'FAILED');
  assert.match(job.error, 'breaks its contract');
  assert.is(job.errorCode, 'INVALID_RESULT');
  assert.is(job.outputFileId ?? null, null);
  // The worker thread wrote the output before the kernel checked the result: it is deleted, and no temp file is left.
  assert.is(await stored(), before);
  assert.equal(readdirSync(path.join(server.dataDir, 'tmp')), []);
});

test('answers 503 SERVICE_BUSY with Retry-After once the plugin backlog is full, and runs what it accepted', async () => {
  const accepted: string[] = [];
  let busy: any = null;
  for (let i = 0; i < 6 && !busy; i++) {
    const r = await api.post('/api/v1/dev/test/sleep', { ms: 300 });
    if (r.status === 202) accepted.push(r.body.id);
    else busy = r;
  }
  assert.ok(busy, 'the backlog limit was reached');
  assert.is(busy.status, 503);
  assert.is(busy.body.code, 'SERVICE_BUSY');
  assert.ok(Number(busy.headers.get('retry-after')) >= 1);
  assert.is(accepted.length, 3);
  for (const id of accepted) assert.is((await api.waitForJob(id)).status, 'COMPLETED');
  assert.is((await api.post('/api/v1/dev/test/sleep', { ms: 1 })).status, 202);
});

test.run();
