// Restart recovery and graceful shutdown: jobs are never lost and never charged twice.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, tempDir, ON_POSTGRES } from '../helpers/quire-server.js';
import { fixturePlugin } from '../helpers/fixture-plugins.js';
import { ApiClient } from '../helpers/api-client.js';

const config = { externalPlugins: [fixturePlugin('kernel-probe')] };
// On PostgreSQL (QUIRE_TEST_STORE=postgres) a restarted server cannot tell a dead server's jobs from a live one's: it
// takes them back when their lease lapses. A short lease keeps the wait short; the embedded store ignores it.
const lease = { QUIRE_JOB_LEASE_SECONDS: '2' };

async function waitForStatus(api: ApiClient, jobId: string, status: string): Promise<void> {
  const end = Date.now() + 20_000;
  while ((await api.get(`/api/v1/dev/tools/jobs/${jobId}`)).body.status !== status) {
    if (Date.now() > end) throw new Error(`job never reached ${status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  // The status is visible as soon as it changes in memory; give its durable write a moment before a kill -9.
  await new Promise((r) => setTimeout(r, 300));
}

test('completes a job once after kill -9 while it ran, charging it once', async () => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir, config, env: lease });
  let api = new ApiClient(server.baseUrl, OWNER_KEY);
  const before = (await api.get('/api/v1/dev/credits')).body.balance;
  const running = await api.post('/api/v1/dev/test/sleep', { ms: 1500 });
  const waiting = await api.post('/api/v1/dev/test/sleep', { ms: 10 });
  assert.is(running.status, 202);
  await waitForStatus(api, running.body.id, 'PROCESSING');
  await server.kill();

  server = await startServer({ dataDir, config, env: lease });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  const a = await api.waitForJob(running.body.id, 30_000);
  const b = await api.waitForJob(waiting.body.id, 30_000);
  assert.is(a.status, 'COMPLETED', a.error);
  assert.is(b.status, 'COMPLETED', b.error);
  assert.equal(a.result, { slept: 1500 });
  const credits = (await api.get('/api/v1/dev/credits')).body;
  const charges = credits.entries.filter((e: { kind: string }) => e.kind === 'charge');
  assert.is(charges.filter((c: { jobId: string }) => c.jobId === a.id).length, 1);
  assert.is(charges.filter((c: { jobId: string }) => c.jobId === b.id).length, 1);
  assert.is(credits.balance, before - 4);
  assert.match(server.logs(), ON_POSTGRES ? 'the claim on a running job lapsed' : 'recovered unfinished jobs');
  await server.stop();
  cleanup(dataDir);
});

test('fails a job that keeps being interrupted once its attempts are used up', async () => {
  const dataDir = tempDir();
  const env = { QUIRE_JOB_MAX_ATTEMPTS: '1', ...lease };
  let server = await startServer({ dataDir, config, env });
  let api = new ApiClient(server.baseUrl, OWNER_KEY);
  const before = (await api.get('/api/v1/dev/credits')).body.balance;
  const job = await api.post('/api/v1/dev/test/sleep', { ms: 60_000 });
  await waitForStatus(api, job.body.id, 'PROCESSING');
  await server.kill();
  server = await startServer({ dataDir, config, env });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  const done = await api.waitForJob(job.body.id);
  assert.is(done.status, 'FAILED');
  assert.match(done.error, 'server stopped while this job was running', done.error);
  assert.is((await api.get('/api/v1/dev/credits')).body.balance, before);
  await server.stop();
  cleanup(dataDir);
});

test('lets a running job finish on SIGTERM, refuses new work meanwhile, and exits 0', async () => {
  const dataDir = tempDir();
  const server = await startServer({ dataDir, config });
  const api = new ApiClient(server.baseUrl, OWNER_KEY);
  const job = await api.post('/api/v1/dev/test/sleep', { ms: 1200 });
  await waitForStatus(api, job.body.id, 'PROCESSING');
  const exit = server.stop();
  const code = await exit;
  assert.is(code, 0);
  assert.match(server.logs(), 'all jobs finished');
  // The job finished before the exit: a new server sees it COMPLETED without running it again.
  const again = await startServer({ dataDir, config });
  const api2 = new ApiClient(again.baseUrl, OWNER_KEY);
  const done = (await api2.get(`/api/v1/dev/tools/jobs/${job.body.id}`)).body;
  assert.is(done.status, 'COMPLETED');
  assert.not.match(again.logs(), 'recovered unfinished jobs');
  await again.stop();
  cleanup(dataDir);
});

test.run();
