// Nothing goes missing silently (issue 26): characters no font can draw give GLYPH_MISSING, a warning, a strict error, a failed PDF/A or PDF/UA job, a readiness issue.
// test-stores: once (fonts and renderers; no store behaviour of its own).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../helpers/api-client.js';
import { useServer } from '../helpers/quire-server.js';
import { popplerOutput } from '../helpers/poppler.js';
import { renderAndDownload, waitForRender } from '../helpers/render-jobs.js';
import { oneLine } from '../helpers/office-text.js';

const RENDER = '/api/v1/dev/render';
type Json = Record<string, any>;

let api: ApiClient;
useServer(test, (started) => ({ api } = started));

/** Characters of a script no bundled font has: Ol Chiki and Linear B. */
const UNSUPPORTED = 'ᱚᱞ ᱪᱤᱠᱤ 𐀀';

async function pdfText(bytes: Uint8Array): Promise<string> {
  return oneLine(await popplerOutput('pdftotext', ['-enc', 'UTF-8'], bytes));
}

function unsupported(type = 'pdf'): Json {
  return { document: { type, title: 'Unsupported' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Scripts' }, { type: 'text', text: `Ol Chiki and Linear B: ${UNSUPPORTED}` }] }] };
}

test('a character no font can draw completes with a GLYPH_MISSING warning naming the place, the characters and the fonts tried', async () => {
  const { job, bytes } = await renderAndDownload(api, RENDER, { config: unsupported() }, 'PDF', 'application/pdf');
  const glyphs = job.warnings.filter((w: Json) => w.code === 'GLYPH_MISSING');
  assert.is(glyphs.length, 1, JSON.stringify(job.warnings));
  assert.is(glyphs[0].path, 'config.sections[0].content[1].text');
  for (const c of ['ᱚ', 'ᱞ', 'ᱪ', '𐀀', 'U+1C5A', 'U+10000', 'Noto Sans', 'Noto Sans SC', 'Noto Emoji']) assert.ok(glyphs[0].message.includes(c), `${c} in ${glyphs[0].message}`);
  assert.ok(!glyphs[0].message.includes('"l"'), 'Latin letters are not reported');
  assert.match(await pdfText(bytes), 'Ol Chiki and Linear B');
  for (const type of ['docx', 'odt']) {
    const created = await api.post(RENDER, { config: unsupported(type) });
    assert.is(created.status, 202, created.bytes.toString());
    const office = await waitForRender(api, created.body.jobId);
    assert.is(office.status, 'COMPLETED');
    assert.ok(office.warnings.some((w: Json) => w.code === 'GLYPH_MISSING' && w.path === 'config.sections[0].content[1].text'), `${type}: ${JSON.stringify(office.warnings)}`);
  }
});

test('with strict, a character no font can draw is refused before rendering', async () => {
  const r = await api.post(`${RENDER}?strict=true`, { config: unsupported() });
  assert.ok(r.status === 400 || r.status === 422, `${r.status} ${r.bytes.toString()}`);
  const errors = r.body.errors as Json[];
  assert.ok(errors.some((e) => e.code === 'GLYPH_MISSING' && e.path === 'config.sections[0].content[1].text'), JSON.stringify(r.body));
  const md = await api.post(`${RENDER}/markdown?strict=true`, { content: `# Scripts\n\nOl Chiki: ${UNSUPPORTED}\n` });
  assert.ok(md.status === 400 || md.status === 422, `${md.status} ${md.bytes.toString()}`);
  assert.ok((md.body.errors as Json[]).some((e) => e.code === 'GLYPH_MISSING'), JSON.stringify(md.body));
});

test('under pdfa-2b and pdfua-1, a character no font can draw fails the job with GLYPH_MISSING', async () => {
  for (const pdfProfile of ['pdfa-2b', 'pdfua-1']) {
    const created = await api.post(RENDER, { config: unsupported(), pdfProfile });
    assert.is(created.status, 202, created.bytes.toString());
    assert.ok(created.body.warnings.some((w: Json) => w.code === 'GLYPH_MISSING'), JSON.stringify(created.body));
    const job = await waitForRender(api, created.body.jobId);
    assert.is(job.status, 'FAILED');
    assert.is(job.errorCode, 'GLYPH_MISSING', job.error);
    assert.match(job.error, 'config.sections[0].content[1].text');
  }
});

test('the readiness report lists GLYPH_MISSING: a warning, an error under a PDF/A profile', async () => {
  const plain = await api.post(`${RENDER}/readiness`, { config: unsupported() });
  assert.is(plain.status, 200, plain.bytes.toString());
  const issue = (plain.body.issues as Json[]).find((i) => i.code === 'GLYPH_MISSING');
  assert.ok(issue, JSON.stringify(plain.body.issues));
  assert.is(issue!.severity, 'warning');
  assert.is(issue!.path, 'config.sections[0].content[1].text');
  const pdfa = await api.post(`${RENDER}/readiness`, { config: unsupported(), pdfProfile: 'pdfa-2b' });
  assert.is((pdfa.body.issues as Json[]).find((i) => i.code === 'GLYPH_MISSING')!.severity, 'error');
  assert.is(pdfa.body.status, 'not_ready');
});

test.run();
