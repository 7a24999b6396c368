// Long polling: GET /tools/jobs/{id}?waitMs= and GET /render/{id}?waitMs= answer when the job finishes, or with its
// state when the wait runs out; bad values are 400; unknown jobs and jobs of the other kind stay 404.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OWNER_KEY, type RunningServer, useServer } from '../helpers/quire-server.js';
import { fixturePlugin } from '../helpers/fixture-plugins.js';
import { ApiClient } from '../helpers/api-client.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started), { config: { externalPlugins: [fixturePlugin('kernel-probe')] } });

const sleepJob = async (ms: number) => {
  const created = await api.post('/api/v1/dev/test/sleep', { ms });
  assert.is(created.status, 202, created.bytes.toString());
  return created.body.id as string;
};

test('one status request with waitMs answers when the tools job finishes', async () => {
  const id = await sleepJob(1500);
  const r = await api.get(`/api/v1/dev/tools/jobs/${id}?waitMs=20000`);
  assert.is(r.status, 200);
  assert.is(r.body.status, 'COMPLETED');
  assert.equal(r.body.result, { slept: 1500 });
});

test('a wait that runs out answers with the job as it is then', async () => {
  const id = await sleepJob(4000);
  const r = await api.get(`/api/v1/dev/tools/jobs/${id}?waitMs=300`);
  assert.is(r.status, 200);
  assert.ok(['PENDING', 'PROCESSING'].includes(r.body.status), r.body.status);
  const done = await api.get(`/api/v1/dev/tools/jobs/${id}?waitMs=30000`);
  assert.is(done.body.status, 'COMPLETED');
});

test('a finished job answers at once, and several waiters on one job are all answered', async () => {
  const id = await sleepJob(1000);
  const answers = await Promise.all([1, 2, 3].map(() => api.get(`/api/v1/dev/tools/jobs/${id}?waitMs=20000`)));
  for (const a of answers) assert.is(a.body.status, 'COMPLETED');
  const again = await api.get(`/api/v1/dev/tools/jobs/${id}?waitMs=30000`);
  assert.is(again.body.status, 'COMPLETED');
});

test('a render job can be waited for the same way', async () => {
  const config = { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Waited for' }] }] };
  const created = await api.post('/api/v1/dev/render', { config });
  assert.is(created.status, 202);
  const r = await api.get(`/api/v1/dev/render/${created.body.jobId}?waitMs=30000`);
  assert.is(r.body.status, 'COMPLETED');
  assert.ok(r.body.downloadUrl);
});

test('waitMs outside 0 to 30000, or not a whole number, is 400 naming query.waitMs; unknown jobs are 404 without waiting', async () => {
  const id = await sleepJob(5);
  for (const bad of ['-1', '30001', 'abc', '1.5', '1e3']) {
    for (const path of [`/api/v1/dev/tools/jobs/${id}`, `/api/v1/dev/render/${id}`]) {
      const r = await api.get(`${path}?waitMs=${encodeURIComponent(bad)}`);
      assert.is(r.status, 400, `${path} waitMs=${bad}`);
      assert.equal(r.body.errors.map((e: { path: string }) => e.path), ['query.waitMs']);
    }
  }
  const unknown = await api.get('/api/v1/dev/tools/jobs/00000000-0000-4000-8000-000000000000?waitMs=30000');
  assert.is(unknown.status, 404);
  // A tools job is not a render job, also when waited for.
  const wrongKind = await api.get(`/api/v1/dev/render/${id}?waitMs=30000`);
  assert.is(wrongKind.status, 404);
});

test('a client that goes away while waiting leaves the server serving', async () => {
  const id = await sleepJob(3000);
  const controller = new AbortController();
  const pending = fetch(`${server.baseUrl}/api/v1/dev/tools/jobs/${id}?waitMs=30000`, { headers: { 'X-API-Key': OWNER_KEY }, signal: controller.signal }).catch((e: Error) => e);
  await new Promise((r) => setTimeout(r, 200));
  controller.abort();
  assert.instance(await pending, Error);
  assert.is((await api.get('/readyz')).status, 200);
  const done = await api.get(`/api/v1/dev/tools/jobs/${id}?waitMs=30000`);
  assert.is(done.body.status, 'COMPLETED');
});

test.run();
