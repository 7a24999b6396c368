// A server without LibreOffice: PDF and cross-format outputs answer 503 naming it, same-format replacement still works.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, startExpectingFailure, OWNER_KEY, cleanup, type RunningServer } from '../../../test/helpers/quire-server.js';
import { ApiClient } from '../../../test/helpers/api-client.js';
import { docxReport, handDocx, p, r } from './fixtures.js';

const ROUTE = '/api/v1/dev/tools/docx/replace-placeholders';

let server: RunningServer;
let api: ApiClient;
let fileId: string;

test.before(async () => {
  server = await startServer({ env: { QUIRE_SOFFICE_PATH: '/nonexistent/bin/soffice' } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  fileId = await api.uploadId(await handDocx({ body: p(r('Dear {{client}},')) }), 'letter.docx');
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

test('outputFormat pdf and odt answer 503 PLUGIN_UNAVAILABLE naming libreoffice, with Retry-After', async () => {
  for (const outputFormat of ['pdf', 'odt']) {
    const res = await api.post(ROUTE, { fileId, variables: { client: 'Jane' }, outputFormat });
    assert.is(res.status, 503);
    assert.is(res.body.code, 'PLUGIN_UNAVAILABLE');
    assert.ok(res.body.detail.includes('libreoffice'), res.body.detail);
    assert.is(res.headers.get('retry-after'), '3600');
  }
});

test('the same-format replacement still runs, and the plugin listing shows LibreOffice missing', async () => {
  for (const body of [{ fileId, variables: { client: 'Jane' } }, { fileId, variables: { client: 'Jane' }, outputFormat: 'docx' }]) {
    const created = await api.post(ROUTE, body);
    assert.is(created.status, 202, JSON.stringify(created.body));
    const job = await api.waitForJob(created.body.id);
    assert.is(job.status, 'COMPLETED', job.error);
    assert.equal(job.result, { replacedVariables: 1, outputFormat: 'docx', unresolvedPlaceholders: [], unusedVariables: [] });
    const doc = await docxReport((await api.download(job.downloadUrl)).bytes);
    assert.ok(doc.paragraphs.includes('Dear Jane,'), JSON.stringify(doc.paragraphs));
  }
  const listing = await api.get('/api/v1/dev/plugins');
  const plugin = listing.body.items.find((x: any) => x.id === 'docx-templates');
  assert.is(plugin.state, 'enabled');
  assert.equal(plugin.missing, ['libreoffice']);
  assert.ok(plugin.reason.includes('libreoffice'), plugin.reason);
});

test('a malformed LibreOffice setting refuses the boot with a message naming the variable', async () => {
  const failed = await startExpectingFailure({ env: { QUIRE_LIBREOFFICE_TIMEOUT_MS: 'soon' } });
  assert.is.not(failed.code, 0);
  assert.ok(failed.output.includes('QUIRE_LIBREOFFICE_TIMEOUT_MS'), failed.output);
});

test.run();
