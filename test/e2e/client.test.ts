// @quire/client (clients/typescript) against a started server: render + wait + download, a tools run, a bulk render with
// progress, QuireError on a 400, webhook signatures of a real delivery, and the committed generated files kept fresh.
// test-stores: once (the client speaks HTTP; what the store behind the server does is tested by the other e2e files).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import { OWNER_KEY, ROOT, useServer, type RunningServer } from '../helpers/quire-server.js';
import type { ApiClient } from '../helpers/api-client.js';
import { popplerOutput } from '../helpers/poppler.js';
import { receiver, until } from '../helpers/webhook-receiver.js';
import { saveLetter } from '../helpers/bulk-jobs.js';
import { makePdf, truncatedPdf } from '../fixtures/pdfs.js';
import { QuireClient, QuireError, JobFailedError, JobTimeoutError, verifyWebhookSignature, type BulkProgress } from '../../clients/typescript/src/index.js';
import { generatedFiles, REGENERATE } from '../../scripts/generate-client.js';

const run = promisify(execFile);

let server: RunningServer;
let api: ApiClient;
let client: QuireClient;

useServer(
  test,
  (started) => {
    ({ server, api } = started);
    client = new QuireClient({ baseUrl: server.baseUrl, apiKey: OWNER_KEY });
  },
  { env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } },
);

/** `qpdf --check` of the bytes: its output (it exits non-zero on a damaged file, which rejects). */
async function qpdfCheck(bytes: Uint8Array): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-client-qpdf-'));
  try {
    await writeFile(path.join(dir, 'file.pdf'), bytes);
    return (await run('qpdf', ['--check', path.join(dir, 'file.pdf')])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('render of Extended Markdown: waitForCompletion long-polls to COMPLETED and download gives the PDF pdftotext reads', async () => {
  const job = await client.render({ markdown: '# Quarterly report\n\nPrepared for {{customer}}.\n', variables: { customer: 'Contoso Ltd' } });
  assert.ok(['PENDING', 'PROCESSING', 'COMPLETED'].includes(job.status));
  const view = await job.waitForCompletion({ timeoutMs: 60_000 });
  assert.is(view.status, 'COMPLETED');
  assert.is(view.pageCount, 1);
  const text = await popplerOutput('pdftotext', [], await job.download());
  assert.match(text, 'Quarterly report');
  assert.match(text, 'Prepared for Contoso Ltd.');
});

test('render with wait answers the finished job at once: waitForCompletion asks nothing more and download reads the PDF', async () => {
  const job = await client.render({ markdown: '# Done in one round trip\n' }, { wait: 30 });
  assert.is(job.status, 'COMPLETED');
  assert.ok(job.view.downloadUrl);
  assert.is((await job.waitForCompletion()).jobId, job.id);
  assert.match(await popplerOutput('pdftotext', [], await job.download()), 'Done in one round trip');
});

test('render of document JSON with format docx gives a DOCX (a ZIP holding word/document.xml)', async () => {
  const job = await client.render({ document: { type: 'pdf', title: 'Memo' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Memo' }] }] }, { format: 'docx' });
  const bytes = Buffer.from(await job.download({ timeoutMs: 60_000 }));
  assert.is(job.view.format, 'DOCX');
  assert.is(bytes.subarray(0, 2).toString('latin1'), 'PK');
  assert.ok(bytes.includes(Buffer.from('word/document.xml')));
});

test('the same Idempotency-Key on a render answers the first job again', async () => {
  const key = `client-test-${Date.now()}`;
  const first = await client.render({ markdown: '# Once\n' }, { idempotencyKey: key });
  const again = await client.render({ markdown: '# Once\n' }, { idempotencyKey: key });
  assert.is(again.id, first.id);
});

test('waitForCompletion stops at once when its signal is aborted', async () => {
  const job = await client.render({ markdown: '# Aborted wait\n' });
  const controller = new AbortController();
  controller.abort();
  try {
    await job.waitForCompletion({ signal: controller.signal });
    assert.unreachable('an aborted wait resolved');
  } catch (err) {
    assert.is((err as Error).name, 'AbortError');
    assert.not.instance(err, JobTimeoutError);
  }
});

test('tools.run merges two uploaded PDFs; qpdf checks the output and pdfinfo counts its pages', async () => {
  const run = await client.tools.run('pdf/merge', { files: [{ bytes: await makePdf(2), filename: 'a.pdf' }, { bytes: await makePdf(3), filename: 'b.pdf' }] });
  assert.is(run.job.status, 'COMPLETED');
  assert.is(run.job.action, 'pdf.merge');
  assert.ok(run.output);
  await qpdfCheck(run.output);
  assert.match(await popplerOutput('pdfinfo', [], run.output), /^Pages:\s+5$/m);
});

test('tools.run of a Lens action answers its result and no output file', async () => {
  const pdf = await client.render({ markdown: '# Receipt\n\nTotal amount due: EUR 42.50\n' });
  const run = await client.tools.run('lens.extract', { files: [{ bytes: await pdf.download({ timeoutMs: 60_000 }), filename: 'receipt.pdf' }], params: { fields: { total: { type: 'number', description: 'total amount due' } } } });
  assert.is(run.output, null);
  assert.equal((run.result as any).data, { total: 42.5 });
});

test('a job that ends FAILED is raised as a JobFailedError carrying the job, its error and its code', async () => {
  try {
    await client.tools.run('pdf.rotate', { files: [{ bytes: await truncatedPdf(), filename: 'broken.pdf' }], params: { angle: 90 } });
    assert.unreachable('a broken PDF was rotated');
  } catch (err) {
    assert.instance(err, JobFailedError);
    assert.instance(err, QuireError);
    const e = err as JobFailedError;
    const job = e.job as { status: string; error: string; errorCode: string | null; action: string };
    assert.is(job.status, 'FAILED');
    assert.is(job.action, 'pdf.rotate');
    assert.is(e.code, job.errorCode ?? 'JOB_FAILED');
    assert.match(e.detail, job.error);
  }
});

test('bulk calls onProgress with growing counts up to every item done, and each item downloads as its own PDF', async () => {
  const documentId = await saveLetter(api);
  const seen: BulkProgress[] = [];
  const bulk = await client.bulk(documentId, [{ name: 'Ada' }, { name: 'Bob' }, { name: 'Eve' }], { onProgress: (p) => seen.push(p), progressIntervalMs: 100 });
  assert.is(bulk.job.status, 'COMPLETED');
  assert.ok(seen.length >= 1);
  const last = seen[seen.length - 1]!;
  assert.equal([last.status, last.totalItems, last.completedItems, last.failedItems], ['COMPLETED', 3, 3, 0]);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.completedItems >= seen[i - 1]!.completedItems, 'counts never go back');
  assert.ok(seen.every((p) => p.totalItems === 3 && p.bulkJobId === bulk.job.bulkJobId));
  const second = bulk.items.find((i) => i.index === 1)!;
  assert.match(await popplerOutput('pdftotext', [], await bulk.downloadItem(second)), 'Dear Bob,');
  const zip = Buffer.from(await bulk.download());
  assert.is(zip.subarray(0, 2).toString('latin1'), 'PK');
});

test('a 400 is raised as a QuireError carrying the problem body: status, code, detail, errors and requestId', async () => {
  try {
    await client.render({ document: { type: 'pdf' } });
    assert.unreachable('an invalid document rendered');
  } catch (err) {
    assert.instance(err, QuireError);
    const e = err as QuireError;
    assert.is(e.status, 400);
    assert.is(e.code, 'VALIDATION_FAILED');
    assert.match(e.detail, 'sections');
    assert.ok(e.errors.some((f) => f.path === 'config.sections'), JSON.stringify(e.errors));
    assert.ok(e.requestId);
    assert.is(e.problem.status, 400);
  }
});

test('typed calls through client.api resolve with the body on 2xx and reject with QuireError otherwise', async () => {
  const { data } = await client.api.GET('/api/v1/dev/credits');
  assert.type(data!.balance, 'number');
  const stranger = new QuireClient({ baseUrl: server.baseUrl, apiKey: 'ak_NotAKeyOfThisServer0123456789abcdefghijkl' });
  try {
    await stranger.api.GET('/api/v1/dev/credits');
    assert.unreachable('an unknown key was accepted');
  } catch (err) {
    assert.instance(err, QuireError);
    assert.is((err as QuireError).status, 401);
    assert.is((err as QuireError).code, 'UNAUTHENTICATED');
  }
});

test('verifyWebhookSignature accepts a real signed delivery and refuses a tampered body, another secret and an old timestamp', async () => {
  const hook = await receiver(200);
  try {
    const { data: endpoint } = await client.api.POST('/api/v1/dev/webhook-endpoints', { body: { url: hook.url } });
    await client.api.POST('/api/v1/dev/webhook-endpoints/{endpointId}/test', { params: { path: { endpointId: endpoint!.id } } });
    await until(() => hook.calls.length > 0, 20_000);
    const call = hook.calls[0]!;
    const secret = endpoint!.secret;
    assert.is(call.body.event, 'ping');
    assert.ok(verifyWebhookSignature(secret, call.headers, call.raw));
    assert.ok(verifyWebhookSignature(secret, new Headers(call.headers as Record<string, string>), Buffer.from(call.raw)), 'fetch Headers and bytes');
    assert.not.ok(verifyWebhookSignature(secret, call.headers, call.raw.replace('"ping"', '"job.completed"')), 'tampered body');
    assert.not.ok(verifyWebhookSignature(`${secret}x`, call.headers, call.raw), 'another secret');
    assert.ok(verifyWebhookSignature([`${secret}x`, secret], call.headers, call.raw), 'one of several secrets (a rotation)');
    const t = Number(/t=(\d+)/.exec(String(call.headers['quire-signature']))![1]);
    assert.not.ok(verifyWebhookSignature(secret, call.headers, call.raw, { now: t + 301 }), 'older than the tolerance');
    assert.ok(verifyWebhookSignature(secret, call.headers, call.raw, { now: t + 600, toleranceSeconds: 900 }));
  } finally {
    await hook.close();
  }
});

test(`the committed generated client files are what the served OpenAPI document generates (else: ${REGENERATE})`, async () => {
  const served = await (await fetch(`${server.baseUrl}/api/v1/dev/openapi.json`)).text();
  const files = await generatedFiles(served);
  assert.equal(Object.keys(files).sort(), ['clients/typescript/src/schema.ts', 'clients/typescript/src/tool-routes.ts']);
  for (const [rel, text] of Object.entries(files)) {
    const committed = readFileSync(path.join(ROOT, rel), 'utf8');
    assert.ok(committed === text, `${rel} is stale: run \`${REGENERATE}\` and commit it`);
  }
  assert.match(files['clients/typescript/src/schema.ts']!, '"/api/v1/dev/render/markdown": {');
});

test.run();
