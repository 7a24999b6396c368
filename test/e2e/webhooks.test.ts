// Per-request webhooks, received by a loopback receiver: headers, payloads, auth rules, and the URL policy.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { receiver, until } from '../helpers/webhook-receiver.js';
import { makePdf, truncatedPdf } from '../fixtures/pdfs.js';

let dev: RunningServer;
let prod: RunningServer;
let api: ApiClient;
let prodApi: ApiClient;

test.before(async () => {
  dev = await startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } });
  prod = await startServer();
  api = new ApiClient(dev.baseUrl, OWNER_KEY);
  prodApi = new ApiClient(prod.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await dev.stop();
  await prod.stop();
  cleanup(dev.dataDir);
  cleanup(prod.dataDir);
});

test('posts job.completed with the download URL, the user agent and a custom header', async () => {
  const hook = await receiver();
  const fileId = await api.uploadId(await makePdf(3), 'in.pdf');
  const created = await api.post('/api/v1/dev/tools/pdf/split', {
    fileId,
    ranges: ['1-2'],
    webhook: { webhookUrl: hook.url + '?tag=42', webhookAuth: { headerName: 'X-Hook-Secret', headerValue: 's3cr3t' } },
  });
  assert.is(created.status, 202);
  const job = await api.waitForJob(created.body.id);
  await until(() => hook.calls.length === 1);
  const call = hook.calls[0]!;
  assert.is(call.method, 'POST');
  assert.is(call.url, '/hook?tag=42');
  assert.is(call.headers['user-agent'], 'Quire-Webhook/1.0');
  assert.match(String(call.headers['content-type']), 'application/json');
  assert.is(call.headers['x-hook-secret'], 's3cr3t');
  assert.is(call.body.event, 'job.completed');
  assert.is(call.body.jobType, 'tools');
  assert.is(call.body.jobId, job.id);
  assert.is(call.body.status, 'COMPLETED');
  assert.is(call.body.completedAt, job.completedAt);
  assert.match(call.body.downloadUrl, `/api/v1/dev/tools/files/${job.outputFileId}/download?token=`);
  // The URL in the event works without an API key.
  const dl = await api.withKey(null).download(call.body.downloadUrl);
  assert.is(dl.status, 200);
  assert.is(dl.headers.get('content-type'), 'application/pdf');
  await hook.close();
});

test('posts job.failed with the error and sends Basic auth', async () => {
  const hook = await receiver();
  const fileId = await api.uploadId(await truncatedPdf(), 'bad.pdf');
  const created = await api.post('/api/v1/dev/tools/pdf/rotate', {
    fileId,
    angle: 90,
    webhook: { webhookUrl: hook.url, webhookAuth: { basicAuthUsername: 'quire', basicAuthPassword: 'pa55' } },
  });
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'FAILED');
  await until(() => hook.calls.length === 1);
  const call = hook.calls[0]!;
  assert.is(call.headers.authorization, `Basic ${Buffer.from('quire:pa55').toString('base64')}`);
  assert.is(call.body.event, 'job.failed');
  assert.is(call.body.status, 'FAILED');
  assert.is(call.body.error, job.error);
  assert.is(call.body.errorCode, job.errorCode);
  assert.is(call.body.jobId, job.id);
  assert.not.ok('downloadUrl' in call.body);
  await hook.close();
});

test('sends both auth headers, and Basic overwrites a custom header named Authorization', async () => {
  const hook = await receiver();
  const fileId = await api.uploadId(await makePdf(1), 'x.pdf');
  const both = await api.post('/api/v1/dev/tools/pdf/rotate', {
    fileId,
    angle: 90,
    webhook: { webhookUrl: hook.url, webhookAuth: { headerName: 'X-Token', headerValue: 't', basicAuthUsername: 'u', basicAuthPassword: 'p' } },
  });
  const over = await api.post('/api/v1/dev/tools/pdf/rotate', {
    fileId,
    angle: 90,
    webhook: { webhookUrl: hook.url, webhookAuth: { headerName: 'Authorization', headerValue: 'Bearer custom', basicAuthUsername: 'u', basicAuthPassword: 'p' } },
  });
  await api.waitForJob(both.body.id);
  await api.waitForJob(over.body.id);
  await until(() => hook.calls.length === 2);
  const byJob = new Map(hook.calls.map((c) => [c.body.jobId, c]));
  const basic = `Basic ${Buffer.from('u:p').toString('base64')}`;
  assert.is(byJob.get(both.body.id)!.headers['x-token'], 't');
  assert.is(byJob.get(both.body.id)!.headers.authorization, basic);
  assert.is(byJob.get(over.body.id)!.headers.authorization, basic);
  await hook.close();
});

test('completes the job once even when the receiver answers 500, without retrying', async () => {
  const hook = await receiver(500);
  const fileId = await api.uploadId(await makePdf(1), 'y.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/rotate', { fileId, angle: 90, webhook: { webhookUrl: hook.url } })).body.id);
  assert.is(job.status, 'COMPLETED');
  await until(() => hook.calls.length === 1);
  await new Promise((r) => setTimeout(r, 500));
  assert.is(hook.calls.length, 1);
  await hook.close();
});

test('refuses loopback webhook URLs in every spelling at creation, and the canary hears nothing', async () => {
  const canary = await receiver();
  const fileId = await prodApi.uploadId(await makePdf(1), 'z.pdf');
  const spellings = [
    `http://127.0.0.1:${canary.port}/hook`,
    `http://127.1:${canary.port}/hook`,
    `http://2130706433:${canary.port}/hook`,
    `http://[::ffff:127.0.0.1]:${canary.port}/hook`,
    `http://[::1]:${canary.port}/hook`,
    `http://localhost:${canary.port}/hook`,
    `HTTP://127.0.0.1:${canary.port}/hook`,
    `http://user:pw@127.0.0.1:${canary.port}/hook`,
    `ftp://127.0.0.1:${canary.port}/hook`,
  ];
  for (const url of spellings) {
    const r = await prodApi.post('/api/v1/dev/tools/pdf/rotate', { fileId, angle: 90, webhook: { webhookUrl: url } });
    assert.is(r.status, 400, url);
    assert.is(r.body.errors[0].path, 'webhook.webhookUrl', url);
  }
  await new Promise((r) => setTimeout(r, 300));
  assert.is(canary.calls.length, 0);
  await canary.close();
});

test('rejects a webhook header that would override what Quire sets', async () => {
  const fileId = await api.uploadId(await makePdf(1), 'h.pdf');
  const r = await api.post('/api/v1/dev/tools/pdf/rotate', { fileId, angle: 90, webhook: { webhookUrl: 'http://127.0.0.1:18099/x', webhookAuth: { headerName: 'Content-Type', headerValue: 'text/plain' } } });
  assert.is(r.status, 400);
  assert.is(r.body.errors[0].path, 'webhook.webhookAuth.headerName');
});

test.run();
