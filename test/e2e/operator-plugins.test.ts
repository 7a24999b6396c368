// The operator API through HTTP: an operator key from the admin CLI switches plugins off and on at runtime, the switch
// takes effect at once (404 PLUGIN_DISABLED, the OpenAPI document), is audited, and survives a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { admin, cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { fixturePlugin } from '../helpers/fixture-plugins.js';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.js';
import { assertDisabled, createOperatorKey, mergeAndCheck, MERGE, OPERATOR } from '../helpers/operator-api.js';

const API = '/api/v1/dev';
const GATE = `${API}/test/gate`;
const dataDir = tempDir('quire-operator-');
const config = {
  externalPlugins: [fixturePlugin('needs-component'), fixturePlugin('queue-gate')],
  // A held gate job ends at its deadline: the test cannot open the gate of a server's threads.
  plugins: { 'pdf-rotate': { enabled: false }, 'queue-gate': { pool: { timeoutMs: 3000 } } },
};

let server: RunningServer;
let operatorKey: { id: string; key: string };
let ops: ApiClient;
let owner: ApiClient;

test.before(async () => {
  operatorKey = await createOperatorKey(dataDir, 'Ops on call');
  server = await startServer({ dataDir, config });
  ops = new ApiClient(server.baseUrl, operatorKey.key);
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server?.stop();
  cleanup(dataDir);
});

async function openApiPaths(): Promise<string[]> {
  return Object.keys((await ops.withKey(null).get(`${API}/openapi.json`)).body.paths);
}

/** Polls a tools job until it is in one of `states` (bounded). */
async function jobIn(jobId: string, states: string[]): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = (await owner.get(`${API}/tools/jobs/${jobId}`)).body;
    if (states.includes(job.status) || Date.now() > deadline) return job;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the operator routes take an operator key only: an owner key gets 403 FORBIDDEN there', async () => {
  for (const [method, path] of [['GET', `${OPERATOR}/plugins`], ['GET', `${OPERATOR}/plugins/pdf-merge`], ['POST', `${OPERATOR}/plugins/pdf-merge/disable`], ['GET', `${OPERATOR}/audit`]] as const) {
    const r = await owner.request(method, path, method === 'POST' ? {} : undefined);
    assert.is(r.status, 403, `${method} ${path}`);
    assert.is(r.body.code, 'FORBIDDEN');
  }
  assert.is((await ops.withKey(null).get(`${OPERATOR}/plugins`)).status, 401);
  // Documented under the Operator tag, with the API key (never a bearer token) as their only credential.
  const doc = (await ops.withKey(null).get(`${API}/openapi.json`)).body;
  const documented = Object.entries<Record<string, { tags: string[]; security: unknown }>>(doc.paths).filter(([path]) => path.startsWith(OPERATOR)).flatMap(([path, methods]) => Object.entries(methods).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op.tags, op.security]));
  assert.equal(documented.map(([what]) => what).sort(), ['GET /api/v1/dev/operator/audit', 'GET /api/v1/dev/operator/plugins', 'GET /api/v1/dev/operator/plugins/{pluginId}', 'POST /api/v1/dev/operator/plugins/{pluginId}/disable', 'POST /api/v1/dev/operator/plugins/{pluginId}/enable']);
  for (const [what, tags, security] of documented) assert.equal([tags, security], [['Operator'], [{ ApiKey: [] }]], String(what));
  assert.is((await ops.get(`${OPERATOR}/plugins`)).status, 200);
});

test('an operator key reaches no organization: 403 on the organization routes, the public plugin listing is open to it', async () => {
  for (const path of ['/credits', '/documents', '/api-keys']) {
    const r = await ops.get(`${API}${path}`);
    assert.is(r.status, 403, path);
    assert.is(r.body.code, 'FORBIDDEN');
  }
  assert.is((await ops.post(MERGE, { fileIds: [] })).status, 403);
  assert.is((await ops.get(`${API}/plugins`)).status, 200);
  // The organization's own key list does not show the operator key.
  const keys = (await owner.get(`${API}/api-keys`)).body.items.map((k: { id: string }) => k.id);
  assert.not.ok(keys.includes(operatorKey.id));
});

test('lists every installed plugin with its state, why, its switch and its pool', async () => {
  const listed = (await ops.get(`${OPERATOR}/plugins`)).body.items;
  const publicIds = (await owner.get(`${API}/plugins`)).body.items.map((p: { id: string }) => p.id);
  assert.equal(listed.map((p: { id: string }) => p.id), publicIds);
  const byId = Object.fromEntries(listed.map((p: { id: string }) => [p.id, p]));
  assert.is(listed.filter((p: { builtin: boolean }) => p.builtin).length, BUILTIN_PLUGINS.length, 'every built-in plugin');
  const merge = byId['pdf-merge'];
  assert.is(merge.state, 'enabled');
  assert.is(merge.reason, null);
  assert.is(merge.override, null);
  assert.equal(merge.pool, { threads: 2, queue: 0, recycled: 0 });
  assert.equal(merge.actions.map((a: { route: string }) => a.route), [MERGE]);
  assert.is(byId['pdf-rotate'].state, 'disabled');
  assert.is(byId['pdf-rotate'].configDisabled, true);
  assert.match(byId['pdf-rotate'].reason, 'plugins.pdf-rotate.enabled = false');
  assert.is(byId['pdf-rotate'].pool, null);
  assert.is(byId['needs-component'].state, 'unavailable');
  assert.equal(byId['needs-component'].missing, ['quire-missing-component']);
  assert.equal((await ops.get(`${OPERATOR}/plugins/pdf-merge`)).body, merge);
  const unknown = await ops.get(`${OPERATOR}/plugins/no-such-plugin`);
  assert.is(unknown.status, 404);
  assert.is(unknown.body.code, 'NOT_FOUND');
});

test('disabling pdf-merge answers 404 PLUGIN_DISABLED on its route at once and takes it out of the OpenAPI document', async () => {
  assert.ok((await openApiPaths()).includes(MERGE));
  const r = await ops.post(`${OPERATOR}/plugins/pdf-merge/disable`, { reason: 'maintenance' });
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.state, 'disabled');
  assert.match(r.body.reason, `key ${operatorKey.id}`);
  assert.match(r.body.reason, 'maintenance');
  assert.equal({ ...r.body.override, at: 'at' }, { enabled: false, reason: 'maintenance', byKeyId: operatorKey.id, at: 'at' });
  assert.is(r.body.pool, null);
  assertDisabled(await owner.post(MERGE, { fileIds: [] }), 'pdf-merge');
  assert.not.ok((await openApiPaths()).includes(MERGE));
  const listed = (await owner.get(`${API}/plugins`)).body.items.find((p: { id: string }) => p.id === 'pdf-merge');
  assert.is(listed.state, 'disabled');
  assert.match(listed.reason, 'disabled by an operator at');
  assert.not.match(listed.reason, operatorKey.id, 'the public listing names no key');
  // Idempotent: disabling again changes nothing and stores nothing (the audit test counts the entries).
  const again = await ops.post(`${OPERATOR}/plugins/pdf-merge/disable`, {});
  assert.is(again.status, 200);
  assert.equal(again.body.override, r.body.override);
});

test('enabling pdf-merge serves it again: a real merge, read back with qpdf', async () => {
  const r = await ops.post(`${OPERATOR}/plugins/pdf-merge/enable`, {});
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.state, 'enabled');
  assert.is(r.body.reason, null);
  assert.is(r.body.override.enabled, true);
  assert.equal(r.body.pool, { threads: 2, queue: 0, recycled: 0 });
  assert.ok((await openApiPaths()).includes(MERGE));
  await mergeAndCheck(owner);
  assert.is((await ops.post(`${OPERATOR}/plugins/pdf-merge/enable`, {})).body.override.at, r.body.override.at, 'enabling again changes nothing');
});

test('the audit log lists both switches newest first with the key id and name, in pages', async () => {
  const first = await ops.get(`${OPERATOR}/audit?limit=1`);
  assert.is(first.status, 200);
  assert.is(first.body.items.length, 1);
  const [enabled] = first.body.items;
  assert.equal({ ...enabled, id: 'id', createdAt: 'at' }, { id: 'id', action: 'plugin.enable', pluginId: 'pdf-merge', reason: null, keyId: operatorKey.id, keyName: 'Ops on call', createdAt: 'at' });
  assert.type(first.body.nextCursor, 'string');
  const second = await ops.get(`${OPERATOR}/audit?limit=1&cursor=${first.body.nextCursor}`);
  const [disabled] = second.body.items;
  assert.equal([disabled.action, disabled.pluginId, disabled.reason, disabled.keyName], ['plugin.disable', 'pdf-merge', 'maintenance', 'Ops on call']);
  assert.ok(disabled.createdAt <= enabled.createdAt);
  assert.is(second.body.nextCursor, null, 'the repeated disable and enable were not logged');
});

test('a plugin missing a system component cannot be enabled: 409 CONFLICT naming the component', async () => {
  const r = await ops.post(`${OPERATOR}/plugins/needs-component/enable`, { reason: 'try' });
  assert.is(r.status, 409);
  assert.is(r.body.code, 'CONFLICT');
  assert.match(r.body.detail, 'quire-missing-component');
  assert.equal(r.body.errors, [{ path: 'requires.quire-missing-component', message: 'quire-missing-component is missing: apt-get install quire-missing-component', code: 'COMPONENT_MISSING' }]);
  assert.is((await ops.get(`${OPERATOR}/plugins/needs-component`)).body.state, 'unavailable');
});

test('a plugin the config file disables cannot be enabled at runtime: 409 CONFLICT naming the setting', async () => {
  const r = await ops.post(`${OPERATOR}/plugins/pdf-rotate/enable`, {});
  assert.is(r.status, 409);
  assert.match(r.body.detail, 'plugins.pdf-rotate.enabled = false');
});

test('disabling a plugin fails its waiting jobs with PLUGIN_DISABLED, while the jobs on its threads run to their own end', async () => {
  // Both threads of the gate plugin held, so the third job waits.
  const held = await Promise.all([0, 1].map(() => owner.post(GATE, { hold: true })));
  for (const r of held) assert.is(r.status, 202, r.bytes.toString());
  for (const r of held) assert.is((await jobIn(r.body.id, ['PROCESSING'])).status, 'PROCESSING');
  const waiting = await owner.post(GATE, { hold: false });
  assert.is(waiting.status, 202);
  assert.is((await owner.get(`${API}/tools/jobs/${waiting.body.id}`)).body.status, 'PENDING');
  assert.is((await ops.post(`${OPERATOR}/plugins/queue-gate/disable`, {})).status, 200);
  const failed = await jobIn(waiting.body.id, ['COMPLETED', 'FAILED']);
  assert.is(failed.status, 'FAILED');
  assert.is(failed.errorCode, 'PLUGIN_DISABLED');
  assert.match(failed.error, 'disabled by the operator');
  // The held jobs were not cut short by the switch: each kept its thread until its own deadline.
  for (const r of held) {
    const job = await jobIn(r.body.id, ['COMPLETED', 'FAILED']);
    assert.is(job.errorCode, 'DEADLINE_EXCEEDED', job.error);
  }
  assertDisabled(await owner.post(GATE, { hold: false }), 'queue-gate');
});

test('a switch survives a restart: the stored override applies before the server serves', async () => {
  assert.is((await ops.post(`${OPERATOR}/plugins/pdf-merge/disable`, { reason: 'across the restart' })).status, 200);
  assert.is(await server.stop(), 0);
  server = await startServer({ dataDir, config });
  ops = new ApiClient(server.baseUrl, operatorKey.key);
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  assertDisabled(await owner.post(MERGE, { fileIds: [] }), 'pdf-merge');
  const merge = (await ops.get(`${OPERATOR}/plugins/pdf-merge`)).body;
  assert.is(merge.state, 'disabled');
  assert.is(merge.override.reason, 'across the restart');
  assert.is(merge.pool, null, 'its pool never started');
  assert.not.ok((await openApiPaths()).includes(MERGE));
  assert.is((await ops.get(`${OPERATOR}/plugins/queue-gate`)).body.state, 'disabled');
  assert.is((await ops.post(`${OPERATOR}/plugins/pdf-merge/enable`, {})).status, 200);
  await mergeAndCheck(owner);
});

test('the admin CLI lists operator keys (never their hash) and revokes one, which then gets 401', async () => {
  assert.is(await server.stop(), 0);
  const listed = await admin(dataDir, ['key', 'list', '--operator']);
  assert.is(listed.code, 0, listed.stderr);
  assert.equal(listed.json.map((k: Record<string, unknown>) => [k.id, k.name, k.operator, 'hash' in k]), [[operatorKey.id, 'Ops on call', true, false]]);
  const mixed = await admin(dataDir, ['key', 'create', '--operator', '--role', 'owner']);
  assert.is(mixed.code, 2);
  assert.match(mixed.stderr, 'no role');
  const revoked = await admin(dataDir, ['key', 'revoke', '--operator', '--id', operatorKey.id]);
  assert.is(revoked.code, 0, revoked.stderr);
  server = await startServer({ dataDir, config });
  const r = await new ApiClient(server.baseUrl, operatorKey.key).get(`${OPERATOR}/plugins`);
  assert.is(r.status, 401);
  assert.is(r.body.code, 'UNAUTHENTICATED');
});

test.run();
