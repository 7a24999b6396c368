// GET /metrics: off (404) without a metrics token, 401 without the right one; with it, the Prometheus text lists every
// quire_ family, and a render, a failing request, a crashing worker and a webhook move the counts.
// test-stores: once (the metrics are counted above the store; the store's write is timed the same way on both).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, OWNER_KEY, startServer, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { fixturePlugin } from '../helpers/fixture-plugins.js';
import { receiver, until, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const TOKEN = 'metrics-token-0123456789abcdefghijklmnopqrstuvwxyz';

let off: RunningServer;
let server: RunningServer;
let api: ApiClient;
let hook: WebhookReceiver;

/** One sample of the text format: the family's sample name, its labels and its value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The families (`# TYPE` lines) and the samples of a Prometheus text exposition. */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { types, samples };
}

async function scrape(): Promise<{ types: Map<string, string>; samples: Sample[] }> {
  const r = await fetch(`${server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(await r.text());
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

test.before(async () => {
  hook = await receiver(200);
  [off, server] = await Promise.all([
    startServer(),
    startServer({
      env: { QUIRE_METRICS_TOKEN: TOKEN, QUIRE_ALLOW_PRIVATE_NETWORK: 'true' },
      // Every render replaces its thread, so that a recycle is counted.
      config: { externalPlugins: [fixturePlugin('kernel-probe')], plugins: { 'render-pdf': { pool: { recycleAfter: 1 } } } },
    }),
  ]);
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  for (const s of [off, server]) {
    if (!s) continue;
    await s.stop();
    cleanup(s.dataDir);
  }
  await hook?.close();
});

test('answers 404 when no metrics token is configured, and leaves the route out of the OpenAPI document', async () => {
  const r = await fetch(`${off.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.is(r.status, 404);
  const problem = (await r.json()) as { code: string; detail: string };
  assert.is(problem.code, 'NOT_FOUND');
  assert.match(problem.detail, 'QUIRE_METRICS_TOKEN');
  const doc = (await new ApiClient(off.baseUrl, null).get('/api/v1/dev/openapi.json')).body;
  assert.is(doc.paths['/metrics'], undefined);
  const on = (await new ApiClient(server.baseUrl, null).get('/api/v1/dev/openapi.json')).body;
  assert.ok(on.paths['/metrics']?.get);
});

test('answers 401 UNAUTHENTICATED without a bearer token, with a wrong one, or with an API key', async () => {
  for (const headers of <Array<Record<string, string>>>[{}, { Authorization: `Bearer ${TOKEN}x` }, { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }, { Authorization: TOKEN }, { 'X-API-Key': OWNER_KEY }]) {
    const r = await fetch(`${server.baseUrl}/metrics`, { headers });
    assert.is(r.status, 401, JSON.stringify(headers));
    assert.is(r.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    assert.is(((await r.json()) as { code: string }).code, 'UNAUTHENTICATED');
  }
});

test('lists every quire_ family with its type, the process metrics included', async () => {
  const { types } = await scrape();
  const expected: Record<string, string> = {
    quire_http_requests_total: 'counter',
    quire_http_request_duration_seconds: 'histogram',
    quire_jobs_total: 'counter',
    quire_job_queue_wait_seconds: 'histogram',
    quire_job_run_seconds: 'histogram',
    quire_pool_threads: 'gauge',
    quire_worker_thread_limit: 'gauge',
    quire_worker_thread_waiting: 'gauge',
    quire_pool_recycles_total: 'counter',
    quire_worker_crashes_total: 'counter',
    quire_credits_charged_total: 'counter',
    quire_webhook_deliveries_total: 'counter',
    quire_store_write_seconds: 'histogram',
    quire_process_resident_memory_bytes: 'gauge',
    quire_process_cpu_seconds_total: 'counter',
    quire_nodejs_heap_size_used_bytes: 'gauge',
    quire_nodejs_eventloop_lag_seconds: 'gauge',
  };
  for (const [name, type] of Object.entries(expected)) assert.is(types.get(name), type, name);
  for (const name of types.keys()) assert.ok(name.startsWith('quire_'), name);
});

test('a render, a failing request, a crashed worker and a webhook move their counts; routes are patterns, never URLs', async () => {
  const before = (await scrape()).samples;

  const config = { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Counted' }] }] };
  const created = await api.post('/api/v1/dev/render', { config, webhook: { webhookUrl: hook.url } });
  assert.is(created.status, 202);
  const jobId: string = created.body.jobId;
  const done = await api.get(`/api/v1/dev/render/${jobId}?waitMs=30000`);
  assert.is(done.body.status, 'COMPLETED', done.body.error);
  const unknown = await api.get('/api/v1/dev/no-such-route/12345');
  assert.is(unknown.status, 404);
  const invalid = await api.post('/api/v1/dev/render', { config: { sections: 'none' } });
  assert.is(invalid.status, 400);
  const crash = await api.post('/api/v1/dev/test/crash', {});
  assert.is(crash.status, 202);
  const crashed = await api.get(`/api/v1/dev/tools/jobs/${crash.body.id}?waitMs=30000`);
  assert.is(crashed.body.errorCode, 'WORKER_CRASHED');
  await until(() => hook.calls.length === 1);

  // The webhook's count is taken when its answer has arrived, and a recycle's when its new thread has warmed up.
  let after: Sample[] = [];
  const moved = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);
  const deadline = Date.now() + 20_000;
  do after = (await scrape()).samples;
  while ((moved('quire_webhook_deliveries_total') < 1 || moved('quire_pool_recycles_total', { plugin: 'render-pdf' }) < 1) && Date.now() < deadline);

  assert.is(moved('quire_http_requests_total', { method: 'POST', route: '/api/v1/dev/render', status: '202' }), 1);
  assert.is(moved('quire_http_requests_total', { method: 'POST', route: '/api/v1/dev/render', status: '400' }), 1);
  assert.is(moved('quire_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
  assert.is(moved('quire_http_requests_total', { method: 'GET', route: '/api/v1/dev/render/:jobId', status: '200' }), 1);
  assert.is(moved('quire_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/dev/render/:jobId' }), 1);
  // No label carries a request's URL or a job's id: a series per job would grow without bound.
  assert.not.ok(after.some((s) => Object.values(s.labels).some((v) => v.includes(jobId) || v.includes('no-such-route'))));

  assert.is(moved('quire_jobs_total', { action: 'render.pdf', outcome: 'COMPLETED' }), 1);
  assert.is(moved('quire_jobs_total', { action: 'probe.crash', outcome: 'FAILED' }), 1);
  assert.is(moved('quire_job_queue_wait_seconds_count', { action: 'render.pdf' }), 1);
  assert.is(moved('quire_job_run_seconds_count', { action: 'render.pdf' }), 1);
  assert.ok(total(after, 'quire_job_run_seconds_sum', { action: 'render.pdf' }) > 0);
  assert.is(moved('quire_credits_charged_total'), 1);
  assert.is(moved('quire_store_write_seconds_count'), 2);
  assert.is(moved('quire_worker_crashes_total', { plugin: 'kernel-probe' }), 1);
  assert.is(moved('quire_worker_crashes_total', { plugin: 'render-pdf' }), 0);
  assert.is(moved('quire_webhook_deliveries_total', { kind: 'request', outcome: 'delivered' }), 1);
  assert.ok(moved('quire_pool_recycles_total', { plugin: 'render-pdf' }) >= 1);
  // The render's thread stays started after its task (until its idle timeout); states are busy and idle only.
  assert.ok(total(after, 'quire_pool_threads', { plugin: 'render-pdf' }) >= 1);
  assert.equal([...new Set(after.filter((s) => s.name === 'quire_pool_threads').map((s) => s.labels.state))].sort(), ['busy', 'idle']);
  assert.ok(total(after, 'quire_process_resident_memory_bytes') > 0);
});

test.run();
