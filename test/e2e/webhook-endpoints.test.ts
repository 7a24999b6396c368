// Organization webhook endpoints over HTTP: management and roles, the URL policy, signed deliveries of render, tools and
// bulk events checked by Python's hmac, retries, restarts, the events filter, disabling, rotation, ping and redelivery.
// Longer than 400 lines: one server set-up serves every behaviour of the endpoints, each test a few HTTP exchanges.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { cleanup, mainAndOtherOrg, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { receiver, until, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { BULK, saveLetter, waitForBulk } from '../helpers/bulk-jobs.js';
import { makePdf, truncatedPdf } from '../fixtures/pdfs.js';

type Json = Record<string, any>;

const HOOKS = '/api/v1/dev/webhook-endpoints';
// Retries 200 ms, then ~640 ms, ~2 s, …; an endpoint failing for 2 s is disabled.
const ENV = { QUIRE_ALLOW_PRIVATE_NETWORK: 'true', QUIRE_WEBHOOK_RETRY_BASE_MS: '200', QUIRE_WEBHOOK_DISABLE_AFTER_MS: '2000' };

let dataDir: string;
let dev: RunningServer;
let prod: RunningServer;
let owner: ApiClient;
let admin: ApiClient;
let member: ApiClient;
let other: ApiClient;
let orgId: string;
/** Every secret an answer showed: none may appear in a log line or another answer. */
const secrets: string[] = [];
const receivers: WebhookReceiver[] = [];

test.before(async () => {
  dataDir = tempDir();
  const orgs = await mainAndOtherOrg(dataDir, { main: 1000, other: 10 });
  orgId = orgs.mainOrgId;
  dev = await startServer({ dataDir, env: ENV });
  prod = await startServer();
  owner = new ApiClient(dev.baseUrl, OWNER_KEY);
  other = owner.withKey(orgs.otherKey);
  const keyFor = async (role: string) => {
    const r = await owner.post('/api/v1/dev/api-keys', { name: `${role} key`, role });
    assert.is(r.status, 201, r.bytes.toString());
    return owner.withKey(r.body.key);
  };
  admin = await keyFor('admin');
  member = await keyFor('member');
});

test.after(async () => {
  for (const r of receivers) await r.close();
  await dev?.stop();
  await prod?.stop();
  cleanup(dataDir);
  if (prod) cleanup(prod.dataDir);
});

/** A loopback receiver closed after the suite. */
async function hook(status: number | ((call: number) => number) = 200): Promise<WebhookReceiver> {
  const r = await receiver(status);
  receivers.push(r);
  return r;
}

/** Registers an endpoint (201) and keeps its secret for the log check. */
async function endpoint(api: ApiClient, body: Json): Promise<Json> {
  const r = await api.post(HOOKS, body);
  assert.is(r.status, 201, r.bytes.toString());
  assert.match(r.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  secrets.push(r.body.secret);
  return r.body;
}

async function deliveries(id: string): Promise<Json[]> {
  const r = await owner.get(`${HOOKS}/${id}/deliveries`);
  assert.is(r.status, 200, r.bytes.toString());
  return r.body.items;
}

/** Waits until the endpoint's deliveries satisfy `check`; returns them. */
async function deliveriesWhen(id: string, check: (items: Json[]) => boolean, ms = 15_000): Promise<Json[]> {
  let items: Json[] = [];
  const end = Date.now() + ms;
  while (!check((items = await deliveries(id)))) {
    if (Date.now() > end) throw new Error(`deliveries of ${id} never satisfied the check: ${JSON.stringify(items)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return items;
}

/**
 * An independent check of a delivery's signature: Python's hmac and hashlib over the raw body as received. Says
 * which of `keys` made one of the header's v1 signatures (compared with hmac.compare_digest), how many v1 there are,
 * and whether `t` is within the 300 s replay window.
 */
function pythonVerify(header: string, raw: string, keys: string[]): { fresh: boolean; verified: boolean[]; count: number } {
  const script = [
    'import sys, json, hmac, hashlib, time',
    'header, keys = sys.argv[1], json.loads(sys.argv[2])',
    'body = sys.stdin.buffer.read()',
    "parts = [p.split('=', 1) for p in header.split(',')]",
    "t = [v for k, v in parts if k == 't'][0]",
    "sigs = [v for k, v in parts if k == 'v1']",
    'def ok(key):',
    "    mac = hmac.new(key.encode(), t.encode() + b'.' + body, hashlib.sha256).hexdigest()",
    '    return any(hmac.compare_digest(mac, s) for s in sigs)',
    'print(json.dumps({"fresh": abs(time.time() - int(t)) <= 300, "verified": [ok(k) for k in keys], "count": len(sigs)}))',
  ].join('\n');
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script, header, JSON.stringify(keys)], { input: Buffer.from(raw, 'utf8'), encoding: 'utf8' }));
}

/** A split of a 3-page PDF (a tools job with an output file), waited for. */
async function toolsJob(): Promise<Json> {
  const fileId = await owner.uploadId(await makePdf(3), 'in.pdf');
  const created = await owner.post('/api/v1/dev/tools/pdf/split', { fileId, ranges: ['1-2'] });
  assert.is(created.status, 202, created.bytes.toString());
  return owner.waitForJob(created.body.id);
}

/** A rotation of a broken PDF: a tools job that fails. */
async function failingJob(): Promise<Json> {
  const fileId = await owner.uploadId(await truncatedPdf(), 'bad.pdf');
  const created = await owner.post('/api/v1/dev/tools/pdf/rotate', { fileId, angle: 90 });
  assert.is(created.status, 202, created.bytes.toString());
  return owner.waitForJob(created.body.id);
}

const settle = () => new Promise((r) => setTimeout(r, 1500));

test('owners and admins manage endpoints; a member gets 403, another organization 404, and the secret is shown once', async () => {
  const created = await endpoint(owner, { url: 'https://hooks.example.com/quire', events: ['job.completed'], description: 'billing' });
  assert.is(created.enabled, true);
  assert.equal(created.events, ['job.completed']);
  assert.is(created.version, 1);
  assert.is(created.failingSince, null);
  const byAdmin = await endpoint(admin, { url: 'https://hooks.example.com/other' });
  assert.equal(byAdmin.events, []);

  const list = await admin.get(HOOKS);
  assert.is(list.status, 200);
  assert.equal(list.body.items.map((e: Json) => e.id), [byAdmin.id, created.id], 'newest first');
  assert.is(list.body.nextCursor, null);
  const page = await owner.get(`${HOOKS}?limit=1`);
  assert.equal(page.body.items.map((e: Json) => e.id), [byAdmin.id]);
  const next = await owner.get(`${HOOKS}?limit=1&cursor=${page.body.nextCursor}`);
  assert.equal(next.body.items.map((e: Json) => e.id), [created.id]);
  const one = await owner.get(`${HOOKS}/${created.id}`);
  assert.is(one.status, 200);
  assert.is(one.headers.get('etag'), '"1"');
  for (const r of [list, page, next, one]) for (const s of secrets) assert.not.ok(r.bytes.toString().includes(s), 'no secret in a read');
  assert.not.ok('secret' in one.body);

  for (const r of [await member.get(HOOKS), await member.post(HOOKS, { url: 'https://hooks.example.com/m' }), await member.get(`${HOOKS}/${created.id}`), await member.request('DELETE', `${HOOKS}/${created.id}`)]) {
    assert.is(r.status, 403, r.bytes.toString());
    assert.is(r.body.code, 'FORBIDDEN');
  }
  for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/test'], ['POST', '/rotate-secret'], ['GET', '/deliveries']] as const) {
    const r = await other.request(method, `${HOOKS}/${created.id}${path}`, method === 'PATCH' ? { description: 'x' } : undefined);
    assert.is(r.status, 404, `${method} ${path}: ${r.bytes.toString()}`);
  }
  assert.equal((await other.get(HOOKS)).body.items, []);

  const patched = await owner.request('PATCH', `${HOOKS}/${created.id}`, { description: 'invoices', events: ['job.completed', 'job.failed'] }, { 'If-Match': '"1"' });
  assert.is(patched.status, 200, patched.bytes.toString());
  assert.is(patched.body.version, 2);
  assert.is(patched.body.description, 'invoices');
  const stale = await owner.request('PATCH', `${HOOKS}/${created.id}`, { description: 'late' }, { 'If-Match': '1' });
  assert.is(stale.status, 412);
  assert.is(stale.body.code, 'VERSION_CONFLICT');

  const unknownEvent = await owner.post(HOOKS, { url: 'https://hooks.example.com/x', events: ['job.started'] });
  assert.is(unknownEvent.status, 400);
  assert.is(unknownEvent.body.code, 'VALIDATION_FAILED');
  assert.match(JSON.stringify(unknownEvent.body.errors), 'events');

  assert.is((await owner.request('DELETE', `${HOOKS}/${byAdmin.id}`)).status, 204);
  assert.is((await owner.get(`${HOOKS}/${byAdmin.id}`)).status, 404);
  assert.is((await owner.request('DELETE', `${HOOKS}/${created.id}`)).status, 204);
});

test('under the default policy a loopback URL and an http:// URL are refused, naming the field', async () => {
  const prodOwner = new ApiClient(prod.baseUrl, OWNER_KEY);
  for (const url of ['https://127.0.0.1:9/hook', 'https://[::1]/hook', 'https://user:pw@hooks.example.com/x', 'http://hooks.example.com/hook']) {
    const r = await prodOwner.post(HOOKS, { url });
    assert.is(r.status, 400, `${url}: ${r.bytes.toString()}`);
    assert.is(r.body.code, 'VALIDATION_FAILED');
    assert.is(r.body.errors[0].path, 'url');
  }
  assert.match((await prodOwner.post(HOOKS, { url: 'http://hooks.example.com/hook' })).body.detail, 'https');
  assert.equal((await prodOwner.get(HOOKS)).body.items, []);
  // A change is checked too.
  const ok = await prodOwner.post(HOOKS, { url: 'https://hooks.example.com/hook' });
  secrets.push(ok.body.secret);
  const r = await prodOwner.request('PATCH', `${HOOKS}/${ok.body.id}`, { url: 'https://10.0.0.1/hook' });
  assert.is(r.status, 400);
  assert.is(r.body.errors[0].path, 'url');
  assert.is((await prodOwner.request('DELETE', `${HOOKS}/${ok.body.id}`)).status, 204);
});

test('a render, a tools job and a bulk render each arrive signed, with the event fields plus id, orgId and createdAt', async () => {
  const r = await hook();
  const ep = await endpoint(owner, { url: r.url });
  const render = await owner.post('/api/v1/dev/render', { config: { document: { type: 'pdf', filename: 'hello' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Hello' }] }] } });
  assert.is(render.status, 202, render.bytes.toString());
  const tools = await toolsJob();
  const letter = await saveLetter(owner);
  const bulk = await owner.post(BULK, { documentId: letter, items: [{ name: 'Ada' }, { name: 'Bob' }] });
  assert.is(bulk.status, 202, bulk.bytes.toString());
  const bulkView = await waitForBulk(owner, bulk.body.bulkJobId);
  await until(() => r.calls.length >= 3, 20_000);
  await settle();
  assert.is(r.calls.length, 3, 'one event per job; the bulk items have none of their own');

  const byJob = new Map(r.calls.map((c) => [c.body.jobId, c]));
  const renderView = (await owner.get(`/api/v1/dev/render/${render.body.jobId}`)).body;
  const renderCall = byJob.get(render.body.jobId)!;
  assert.equal({ ...renderCall.body, id: undefined, createdAt: undefined }, { id: undefined, event: 'job.completed', jobType: 'render', jobId: renderView.jobId, status: 'COMPLETED', filename: 'hello.pdf', completedAt: renderView.completedAt, orgId, createdAt: undefined });
  const toolsCall = byJob.get(tools.id)!;
  assert.is(toolsCall.body.event, 'job.completed');
  assert.is(toolsCall.body.jobType, 'tools');
  assert.is(toolsCall.body.completedAt, tools.completedAt);
  assert.match(toolsCall.body.downloadUrl, `/api/v1/dev/tools/files/${tools.outputFileId}/download?token=`);
  const dl = await owner.withKey(null).download(toolsCall.body.downloadUrl);
  assert.is(dl.status, 200, 'the link in the event works without a key');
  const bulkCall = byJob.get(bulk.body.bulkJobId)!;
  assert.is(bulkCall.body.jobType, 'bulk-render');
  assert.equal(bulkCall.body.metadata, { totalItems: 2, completedItems: 2, failedItems: 0 });
  assert.is(bulkCall.body.completedAt, bulkView.completedAt);

  const ids = new Set<string>();
  for (const call of r.calls) {
    assert.is(call.method, 'POST');
    assert.is(call.headers['user-agent'], 'Quire-Webhook/1.0');
    assert.is(call.headers['content-type'], 'application/json');
    assert.is(call.headers['quire-event-id'], call.body.id);
    assert.is(call.body.orgId, orgId);
    assert.ok(Math.abs(Date.parse(call.body.createdAt) - Date.parse(call.body.completedAt)) < 5000);
    ids.add(call.body.id);
    const v = pythonVerify(String(call.headers['quire-signature']), call.raw, [ep.secret, 'whsec_not-the-secret']);
    assert.equal(v, { fresh: true, verified: [true, false], count: 1 });
  }
  assert.is(ids.size, 3);
  const logged = await deliveries(ep.id);
  assert.is(logged.length, 3);
  for (const d of logged) {
    assert.is(d.status, 'DELIVERED');
    assert.is(d.attempts, 1);
    assert.is(d.attemptsLog[0].status, 200);
    assert.is(d.attemptsLog[0].response, 'ok');
    assert.is(d.attemptsLog[0].error, null);
  }
  assert.is((await owner.request('DELETE', `${HOOKS}/${ep.id}`)).status, 204);
});

test('a receiver failing three times gets the event once more with the same event id; the log shows four attempts', async () => {
  const r = await hook((n) => (n < 3 ? 500 : 200));
  const ep = await endpoint(owner, { url: r.url });
  const job = await toolsJob();
  const [d] = await deliveriesWhen(ep.id, (items) => items[0]?.status === 'DELIVERED');
  assert.is(r.calls.length, 4);
  assert.equal(new Set(r.calls.map((c) => c.headers['quire-event-id'])).size, 1);
  assert.is(r.calls[3]!.body.jobId, job.id);
  assert.is(d!.attempts, 4);
  assert.equal(d!.attemptsLog.map((a: Json) => a.status), [500, 500, 500, 200]);
  assert.match(d!.attemptsLog[0].error, 'HTTP 500');
  assert.is(d!.nextAttemptAt, null);
  // Each retry waited longer than the one before.
  const at = d!.attemptsLog.map((a: Json) => Date.parse(a.at));
  assert.ok(at[2] - at[1] > at[1] - at[0], JSON.stringify(at));
  const after = await owner.get(`${HOOKS}/${ep.id}`);
  assert.is(after.body.failingSince, null, 'a success clears failingSince');
  assert.is(after.body.enabled, true);
  assert.is((await owner.request('DELETE', `${HOOKS}/${ep.id}`)).status, 204);
});

test('the events filter: an endpoint for job.failed gets only failures, a bulk render failed at creation included', async () => {
  const r = await hook();
  const ep = await endpoint(owner, { url: r.url, events: ['job.failed'] });
  await toolsJob();
  const failed = await failingJob();
  assert.is(failed.status, 'FAILED');
  await until(() => r.calls.length >= 1);
  const letter = await saveLetter(owner);
  const bulk = await owner.post(BULK, { documentId: letter, items: [{ name: { type: 'sparkle' } }] });
  assert.is(bulk.status, 202, bulk.bytes.toString());
  assert.is(bulk.body.status, 'FAILED', 'no item can run');
  await until(() => r.calls.length >= 2);
  await settle();
  assert.is(r.calls.length, 2);
  assert.is(r.calls[0]!.body.event, 'job.failed');
  assert.is(r.calls[0]!.body.jobId, failed.id);
  assert.is(r.calls[0]!.body.error, failed.error);
  assert.equal([r.calls[1]!.body.event, r.calls[1]!.body.jobType, r.calls[1]!.body.jobId], ['job.failed', 'bulk-render', bulk.body.bulkJobId]);
  assert.is((await owner.request('DELETE', `${HOOKS}/${ep.id}`)).status, 204);
});

test('a disabled endpoint is not delivered to: its events are not queued and a ping ends FAILED "endpoint disabled"', async () => {
  const r = await hook();
  const ep = await endpoint(owner, { url: r.url, enabled: false });
  await toolsJob();
  await settle();
  assert.equal(await deliveries(ep.id), []);
  const ping = await owner.post(`${HOOKS}/${ep.id}/test`, {});
  assert.is(ping.status, 202);
  const [d] = await deliveriesWhen(ep.id, (items) => items[0]?.status === 'FAILED');
  assert.is(d!.attemptsLog[0].error, 'endpoint disabled');
  assert.is(r.calls.length, 0);
  assert.is((await owner.request('DELETE', `${HOOKS}/${ep.id}`)).status, 204);
});

test('an endpoint failing past QUIRE_WEBHOOK_DISABLE_AFTER_MS is disabled with a reason, and PATCH enabled re-enables it', async () => {
  const r = await hook(500);
  const ep = await endpoint(owner, { url: r.url });
  assert.is((await owner.post(`${HOOKS}/${ep.id}/test`, {})).status, 202);
  const [d] = await deliveriesWhen(ep.id, (items) => items[0]?.status === 'FAILED');
  const view = (await owner.get(`${HOOKS}/${ep.id}`)).body;
  assert.is(view.enabled, false);
  assert.match(view.disabledReason, `failing since ${view.failingSince}`);
  assert.match(view.disabledReason, 'HTTP 500');
  assert.ok(d!.attempts >= 2);
  assert.ok(Date.parse(d!.attemptsLog[d!.attemptsLog.length - 1].at) - Date.parse(view.failingSince) >= 2000);
  const calls = r.calls.length;
  await toolsJob();
  await settle();
  assert.is(r.calls.length, calls, 'nothing goes to a disabled endpoint');
  const enabled = await owner.request('PATCH', `${HOOKS}/${ep.id}`, { enabled: true });
  assert.is(enabled.status, 200);
  assert.is(enabled.body.enabled, true);
  assert.is(enabled.body.disabledReason, null);
  assert.is(enabled.body.failingSince, null);
  assert.is((await owner.request('DELETE', `${HOOKS}/${ep.id}`)).status, 204);
});

test('ping, rotation (two v1 signatures that both verify) and redelivery with the same event id', async () => {
  const r = await hook();
  const ep = await endpoint(owner, { url: r.url });
  const ping = await owner.post(`${HOOKS}/${ep.id}/test`, {});
  assert.is(ping.status, 202);
  assert.is(ping.body.event, 'ping');
  await until(() => r.calls.length === 1);
  const first = r.calls[0]!;
  assert.equal(Object.keys(first.body), ['id', 'event', 'orgId', 'endpointId', 'createdAt']);
  assert.equal({ ...first.body, createdAt: undefined }, { id: ping.body.eventId, event: 'ping', orgId, endpointId: ep.id, createdAt: undefined });
  assert.equal(pythonVerify(String(first.headers['quire-signature']), first.raw, [ep.secret]), { fresh: true, verified: [true], count: 1 });

  const rotated = await owner.post(`${HOOKS}/${ep.id}/rotate-secret`, {});
  assert.is(rotated.status, 200, rotated.bytes.toString());
  secrets.push(rotated.body.secret);
  assert.is.not(rotated.body.secret, ep.secret);
  const hours = (Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()) / 3_600_000;
  assert.ok(hours > 23.9 && hours <= 24, String(hours));
  assert.not.ok((await owner.get(`${HOOKS}/${ep.id}`)).bytes.toString().includes('whsec_'));

  const again = await owner.post(`${HOOKS}/${ep.id}/deliveries/${ping.body.id}/redeliver`, {});
  assert.is(again.status, 202, again.bytes.toString());
  assert.is(again.body.redeliveryOf, ping.body.id);
  assert.is(again.body.eventId, ping.body.eventId);
  assert.is.not(again.body.id, ping.body.id);
  await until(() => r.calls.length === 2);
  const second = r.calls[1]!;
  assert.is(second.headers['quire-event-id'], first.headers['quire-event-id']);
  assert.is(second.raw, first.raw, 'the same event, the same body');
  assert.equal(pythonVerify(String(second.headers['quire-signature']), second.raw, [rotated.body.secret, ep.secret, 'whsec_other']), { fresh: true, verified: [true, true, false], count: 2 });
  const [newest, oldest] = await deliveriesWhen(ep.id, (items) => items.every((d) => d.status === 'DELIVERED'));
  assert.is(newest!.id, again.body.id);
  assert.is(oldest!.id, ping.body.id);
  assert.is((await owner.post(`${HOOKS}/${ep.id}/deliveries/no-such-delivery/redeliver`, {})).status, 404);
  assert.is((await owner.request('DELETE', `${HOOKS}/${ep.id}`)).status, 204);
});

test('a pending retry survives a restart: the next server delivers it', async () => {
  const env = { ...ENV, QUIRE_WEBHOOK_RETRY_BASE_MS: '4000' };
  const r = await hook((n) => (n === 0 ? 503 : 200));
  const first = await startServer({ env });
  const api = new ApiClient(first.baseUrl, OWNER_KEY);
  const ep = await endpoint(api, { url: r.url });
  assert.is((await api.post(`${HOOKS}/${ep.id}/test`, {})).status, 202);
  await until(() => r.calls.length === 1);
  await first.stop();
  assert.is(r.calls.length, 1, 'the retry was not due before the stop');
  const second = await startServer({ dataDir: first.dataDir, env });
  try {
    await until(() => r.calls.length === 2, 20_000);
    assert.is(r.calls[1]!.headers['quire-event-id'], r.calls[0]!.headers['quire-event-id']);
    const api2 = new ApiClient(second.baseUrl, OWNER_KEY);
    let items: Json[] = [];
    const end = Date.now() + 10_000;
    while ((items = (await api2.get(`${HOOKS}/${ep.id}/deliveries`)).body.items)[0]?.status !== 'DELIVERED' && Date.now() < end) await new Promise((res) => setTimeout(res, 100));
    assert.is(items.length, 1);
    assert.is(items[0]!.status, 'DELIVERED');
    assert.equal(items[0]!.attemptsLog.map((a: Json) => a.status), [503, 200]);
    assert.not.ok(second.logs().includes(ep.secret) || first.logs().includes(ep.secret));
  } finally {
    await second.stop();
    cleanup(first.dataDir);
  }
});

test('no secret appears in any log line of the servers', async () => {
  assert.ok(secrets.length >= 5);
  for (const s of secrets) {
    assert.not.ok(dev.logs().includes(s), 'dev server log');
    assert.not.ok(prod.logs().includes(s), 'prod server log');
  }
  assert.ok(dev.logs().includes('webhook endpoint delivery'), 'deliveries are logged');
});

test.run();
