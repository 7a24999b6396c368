// The OpenAPI document is derived from the routes and contracts; /docs renders it from local assets.
// test-stores: once (the OpenAPI document is derived from the routes, whatever the store).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';

let server: RunningServer;
let api: ApiClient;
let doc: any;

test.before(async () => {
  server = await startServer();
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  doc = (await api.withKey(null).get('/api/v1/dev/openapi.json')).body;
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

test('publishes an OpenAPI 3.0 document with every public route', () => {
  assert.is(doc.openapi, '3.0.3');
  const expected: Array<[string, string]> = [
    ['/api/v1/dev/tools/files/upload', 'post'],
    ['/api/v1/dev/tools/files/{fileId}', 'get'],
    ['/api/v1/dev/tools/files/{fileId}/download', 'get'],
    ['/api/v1/dev/tools/jobs/{jobId}', 'get'],
    ['/api/v1/dev/tools/pdf/merge', 'post'],
    ['/api/v1/dev/tools/pdf/split', 'post'],
    ['/api/v1/dev/tools/pdf/rotate', 'post'],
    ['/api/v1/dev/credits', 'get'],
    ['/api/v1/dev/api-keys', 'post'],
    ['/api/v1/dev/plugins', 'get'],
    ['/healthz', 'get'],
    ['/readyz', 'get'],
  ];
  for (const [p, m] of expected) assert.ok(doc.paths[p]?.[m], `${m.toUpperCase()} ${p} is missing`);
});

test('derives tool request bodies from the plugin contracts plus the kernel webhook', () => {
  const schema = doc.paths['/api/v1/dev/tools/pdf/merge'].post.requestBody.content['application/json'].schema;
  assert.equal(schema.required, ['fileIds']);
  assert.is(schema.properties.fileIds.minItems, 2);
  assert.is(schema.properties.fileIds.maxItems, 50);
  assert.ok(schema.properties.webhook.properties.webhookUrl);
  assert.is(schema.additionalProperties, false);
  const job = doc.paths['/api/v1/dev/tools/pdf/merge'].post.responses['202'].content['application/json'].schema;
  for (const f of ['id', 'action', 'status', 'inputFileIds', 'outputFileId', 'error', 'createdAt', 'startedAt', 'completedAt', 'downloadUrl', 'result', 'metadata']) {
    assert.ok(f in job.properties, f);
  }
  assert.equal(job.properties.status.enum, ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']);
  assert.ok(job.properties.outputFileId.nullable);
});

test('uses only OpenAPI 3.0 schema keywords (no const, no type null)', () => {
  const text = JSON.stringify(doc);
  assert.not.ok(text.includes('"const"'));
  assert.not.ok(text.includes('"type":"null"'));
  assert.not.ok(text.includes('"patternProperties"'));
});

test('every documented route answers (not 404 NOT_FOUND for an unknown route)', async () => {
  for (const [p, methods] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const m of Object.keys(methods)) {
      const url = p.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const r = await api.request(m.toUpperCase(), url, m === 'post' ? {} : undefined);
      if (r.status === 404) assert.is.not(r.body.detail?.startsWith('No route'), true, `${m} ${p}`);
    }
  }
});

test('answers 405 METHOD_NOT_ALLOWED with Allow for a known path and the wrong method', async () => {
  const r = await api.get('/api/v1/dev/tools/pdf/merge');
  assert.is(r.status, 405);
  assert.is(r.body.code, 'METHOD_NOT_ALLOWED');
  assert.is(r.headers.get('allow'), 'POST');
  assert.is((await api.get('/api/v1/dev/no/such/route')).status, 404);
});

test('renders /docs with Swagger UI served from the installed package', async () => {
  const page = await api.withKey(null).get('/docs');
  assert.is(page.status, 200);
  const html = page.bytes.toString();
  assert.match(html, '/docs/assets/swagger-ui-bundle.js');
  assert.not.match(html, /https?:\/\/(?!127)/);
  const js = await api.withKey(null).get('/docs/assets/swagger-ui-bundle.js');
  assert.is(js.status, 200);
  assert.ok(js.bytes.length > 100_000);
  assert.match((await api.withKey(null).get('/docs/init.js')).bytes.toString(), '/api/v1/dev/openapi.json');
  assert.is((await api.withKey(null).get('/docs/assets/..%2Fpackage.json')).status, 404);
});

test.run();
