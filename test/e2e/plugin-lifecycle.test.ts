// Plugin boot checks, disabled and unavailable plugins, and the listing/readiness/OpenAPI views of them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, startExpectingFailure, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { fixturePlugin } from '../helpers/fixture-plugins.js';
import { ApiClient } from '../helpers/api-client.js';

const refusals: Array<[string, string, RegExp]> = [
  ['a manifest and contract that disagree', 'broken-contract', /broken-contract: manifest and contract disagree.*fixture\.broken-contract/],
  ['an incompatible kernel range', 'broken-kernel-range', /broken-kernel-range needs kernel \^2\.0\.0, but this is kernel 1\.0\.0/],
  ['a worker that lacks a declared export', 'broken-export', /broken-export: the worker does not export doesNotExist/],
  ['a duplicate plugin id', 'duplicate-id', /same id as \.\/pdf-merge\/manifest\.js/],
  ['llm declared without outbound', 'llm-without-outbound', /llm-without-outbound declares llm without outbound; .*declare outbound: true as well/],
  ['a render target outside the render contract', 'unknown-target', /unknown-target: render\.html declares render target html, which no request can name; the render contract's targets are pdf, docx, odt, png, jpeg/],
];

for (const [what, name, message] of refusals) {
  test(`refuses to start on ${what}, naming the plugin and the fix`, async () => {
    const { code, output } = await startExpectingFailure({ config: { externalPlugins: [fixturePlugin(name)] } });
    assert.is(code, 78);
    assert.match(output, message);
    assert.match(output, 'refusing to start');
  });
}

test('refuses to start when the config names a plugin that is not installed', async () => {
  const { code, output } = await startExpectingFailure({ config: { plugins: { 'no-such-plugin': { enabled: false } } } });
  assert.is(code, 78);
  assert.match(output, 'no-such-plugin');
});

test('refuses to start on an invalid setting, naming the environment variable', async () => {
  const { code, output } = await startExpectingFailure({ env: { QUIRE_RATE_LIMIT_PER_MINUTE: 'lots' } });
  assert.is(code, 78);
  assert.match(output, 'QUIRE_RATE_LIMIT_PER_MINUTE');
});

let server: RunningServer;
let api: ApiClient;

test('serves disabled plugins as 404 PLUGIN_DISABLED and unavailable ones as 503 naming the component', async () => {
  server = await startServer({
    config: { externalPlugins: [fixturePlugin('needs-component')], plugins: { 'pdf-rotate': { enabled: false } } },
  });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  const disabled = await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: '00000000-0000-4000-8000-000000000000', angle: 90 });
  assert.is(disabled.status, 404);
  assert.is(disabled.body.code, 'PLUGIN_DISABLED');
  const unavailable = await api.post('/api/v1/dev/test/needs-component', {});
  assert.is(unavailable.status, 503);
  assert.is(unavailable.body.code, 'PLUGIN_UNAVAILABLE');
  assert.match(unavailable.body.detail, 'quire-missing-component');
  // The rest keeps working.
  assert.is((await api.post('/api/v1/dev/tools/pdf/merge', { fileIds: [] })).status, 400);
});

test('lists every plugin with its state and reason, and /readyz reports them', async () => {
  const listing = await api.get('/api/v1/dev/plugins');
  const byId = Object.fromEntries(listing.body.items.map((p: { id: string }) => [p.id, p]));
  assert.is(byId['pdf-merge'].state, 'enabled');
  assert.is(byId['pdf-rotate'].state, 'disabled');
  assert.is(byId['needs-component'].state, 'unavailable');
  assert.equal(byId['needs-component'].missing, ['quire-missing-component']);
  assert.match(byId['needs-component'].reason, 'apt-get install quire-missing-component');
  const ready = await api.withKey(null).get('/readyz');
  assert.is(ready.status, 200);
  assert.is(ready.body.status, 'ready');
  assert.ok(ready.body.plugins.some((p: { id: string; state: string }) => p.id === 'needs-component' && p.state === 'unavailable'));
});

test('leaves a disabled plugin out of the OpenAPI document and keeps the others', async () => {
  const doc = (await api.withKey(null).get('/api/v1/dev/openapi.json')).body;
  assert.is(doc.openapi, '3.0.3');
  assert.not.ok('/api/v1/dev/tools/pdf/rotate' in doc.paths);
  assert.ok('/api/v1/dev/tools/pdf/merge' in doc.paths);
  assert.ok('/api/v1/dev/tools/jobs/{jobId}' in doc.paths);
  await server.stop();
  cleanup(server.dataDir);
});

test.run();
