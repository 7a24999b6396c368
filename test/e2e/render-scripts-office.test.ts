// Every script in DOCX and ODT (issue 26): the East Asian and complex-script fonts named, and LibreOffice's PDF of each file keeps the text.
// test-stores: once (fonts and renderers; no store behaviour of its own).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../helpers/api-client.js';
import { useServer } from '../helpers/quire-server.js';
import JSZip from 'jszip';
import { renderAndDownload } from '../helpers/render-jobs.js';
import { officeToPdfText, oneLine } from '../helpers/office-text.js';
import { SAMPLES, multilingual, words } from '../fixtures/scripts.js';

const RENDER = '/api/v1/dev/render';
type Json = Record<string, any>;

let api: ApiClient;
useServer(test, (started) => ({ api } = started));

async function officeRender(type: 'docx' | 'odt'): Promise<Buffer> {
  const mime = type === 'docx' ? 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' : 'application/vnd.oasis.opendocument.text';
  const { job, bytes } = await renderAndDownload(api, RENDER, { config: multilingual(type) }, type.toUpperCase(), mime);
  assert.equal(job.warnings, []);
  return bytes;
}

test('DOCX names the East Asian and complex-script fonts, and LibreOffice converts it to PDF with the CJK text intact', async () => {
  const bytes = await officeRender('docx');
  const styles = await (await JSZip.loadAsync(bytes)).file('word/styles.xml')!.async('string');
  assert.match(styles, /w:eastAsia="Noto Sans JP"/);
  assert.match(styles, /w:cs="Noto Sans Arabic"/);
  assert.match(styles, /w:ascii="Noto Sans"/);
  const text = oneLine(await officeToPdfText(bytes, 'docx'));
  for (const s of SAMPLES.filter((x) => ['Latin', 'Greek', 'Cyrillic', 'Simplified Chinese', 'Traditional Chinese', 'Japanese', 'Korean'].includes(x.script))) for (const w of words(s.text)) assert.ok(text.includes(w), `${s.script} "${w}" in: ${text}`);
});

test('ODT names the Asian and complex fonts, and LibreOffice converts it to PDF with the CJK text intact', async () => {
  const bytes = await officeRender('odt');
  const styles = await (await JSZip.loadAsync(bytes)).file('styles.xml')!.async('string');
  assert.match(styles, /style:font-name-asian="Noto Sans JP"/);
  assert.match(styles, /style:font-name-complex="Noto Sans Arabic"/);
  assert.match(styles, /<style:font-face style:name="Noto Sans JP"/);
  const text = oneLine(await officeToPdfText(bytes, 'odt'));
  for (const s of SAMPLES.filter((x) => ['Latin', 'Greek', 'Cyrillic', 'Simplified Chinese', 'Traditional Chinese', 'Japanese', 'Korean'].includes(x.script))) for (const w of words(s.text)) assert.ok(text.includes(w), `${s.script} "${w}" in: ${text}`);
});

test.run();
