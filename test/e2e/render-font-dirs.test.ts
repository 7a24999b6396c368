// The operator's font folders (plugins.render-pdf.settings.fontDirs): a family that is not bundled renders in
// that family when a folder holds it, with no FONT_NOT_INSTALLED warning (the case without folders is in render.test.ts).
// test-stores: once (the renderer's font folders; no store behaviour of its own).
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../helpers/api-client.js';
import { startServer, cleanup, tempDir, OWNER_KEY, type RunningServer } from '../helpers/quire-server.js';
import { pdffontsTable } from '../helpers/poppler.js';
import { waitForRender } from '../helpers/render-jobs.js';

// Debian's fonts-dejavu-core (npm run setup installs it): DejaVu Serif is not one of Quire's bundled families.
const DEJAVU_SERIF = '/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf';

let server: RunningServer;
let api: ApiClient;
let fontDir: string;

test.before(async () => {
  fontDir = tempDir('quire-font-dirs-');
  mkdirSync(path.join(fontDir, 'fonts'));
  copyFileSync(DEJAVU_SERIF, path.join(fontDir, 'fonts', 'DejaVuSerif.ttf'));
  server = await startServer({ config: { plugins: { 'render-pdf': { settings: { fontDirs: [path.join(fontDir, 'fonts')] } } } } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server?.stop();
  if (fontDir) cleanup(fontDir);
});

test('a family from the operator font folder is embedded, without a FONT_NOT_INSTALLED warning', async () => {
  const config = {
    document: { type: 'pdf', title: 'Operator fonts' },
    sections: [{ type: 'flow', content: [{ type: 'text', text: 'Set in DejaVu Serif.' }, { type: 'text', text: 'Bundled sans.', style: { fontFamily: 'Noto Sans' } }] }],
    defaults: { fonts: { family: 'DejaVu Serif' } },
  };
  const created = await api.post('/api/v1/dev/render', { config });
  assert.is(created.status, 202, created.bytes.toString());
  const job = await waitForRender(api, created.body.jobId);
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  assert.equal(job.warnings, []);
  const dl = await api.download(job.downloadUrl);
  assert.is(dl.status, 200);
  const fonts = await pdffontsTable(dl.bytes);
  assert.match(fonts, 'DejaVuSerif', fonts);
  assert.match(fonts, 'NotoSans', fonts);
});

test.run();
