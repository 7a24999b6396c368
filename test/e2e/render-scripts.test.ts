// Every script renders (issue 26): a multilingual document to PDF under three profiles and to PNG, read back by pdffonts, pdftotext and pixels; the CJK language rule.
// test-stores: once (fonts and renderers; no store behaviour of its own).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../helpers/api-client.js';
import { useServer } from '../helpers/quire-server.js';
import JSZip from 'jszip';
import { pdffontsTable, popplerOutput } from '../helpers/poppler.js';
import { renderAndDownload } from '../helpers/render-jobs.js';
import { decodePng, meanDifference } from '../helpers/image-readers.js';
import { oneLine } from '../helpers/office-text.js';
import { SAMPLES, multilingual, words } from '../fixtures/scripts.js';

const RENDER = '/api/v1/dev/render';
type Json = Record<string, any>;

let api: ApiClient;
useServer(test, (started) => ({ api } = started));

async function pdfText(bytes: Uint8Array): Promise<string> {
  return oneLine(await popplerOutput('pdftotext', ['-enc', 'UTF-8'], bytes));
}

for (const profile of ['standard', 'pdfa-2b', 'pdfua-1']) {
  test(`a multilingual document renders under ${profile} with an embedded font for every script and its text intact`, async () => {
    const { job, bytes } = await renderAndDownload(api, RENDER, { config: multilingual('pdf'), pdfProfile: profile }, 'PDF', 'application/pdf');
    assert.equal(job.warnings, []);
    const fonts = await pdffontsTable(bytes);
    for (const s of SAMPLES) assert.match(fonts, s.font, `${s.script}: ${fonts}`);
    for (const line of fonts.split('\n').slice(2).filter(Boolean)) assert.match(line, /\s+yes\s+yes\s+yes\s+/, `every font embedded, subset, with a ToUnicode map: ${line}`);
    const text = await pdfText(bytes);
    for (const s of SAMPLES.filter((x) => !['Arabic', 'Hebrew', 'Thai', 'Devanagari'].includes(x.script))) for (const w of words(s.text)) assert.ok(text.includes(w), `${s.script} "${w}" in: ${text}`);
  });
}

/** The pages of a render-images ZIP (or the one PNG), in page order. */
async function pngPages(bytes: Buffer): Promise<Buffer[]> {
  if (bytes[0] === 0x89) return [bytes];
  const zip = await JSZip.loadAsync(bytes);
  const names = Object.keys(zip.files).filter((n) => n.endsWith('.png')).sort((a, b) => Number(/(\d+)\.png$/.exec(a)![1]) - Number(/(\d+)\.png$/.exec(b)![1]));
  return Promise.all(names.map((n) => zip.file(n)!.async('nodebuffer')));
}

test('the PNG pages of every script differ from the same number of empty boxes (no tofu)', async () => {
  // One script a page, large; the reference has, in the same place, as many characters no font has (each drawn
  // as the first font's empty box). A script drawn as boxes would give exactly the reference's pixels.
  const page = (text: string) => [{ type: 'text', text, style: { fontSize: 28 } }];
  const plain = SAMPLES.map((s) => s.text.replace(/\*/g, ''));
  const boxes = plain.map((t) => [...t].map((c) => (/\s/.test(c) ? c : 'ᱚ')).join(''));
  const doc = (texts: string[]) => ({ document: { type: 'pdf', title: 'Tofu check' }, sections: texts.map((t) => ({ type: 'flow', content: page(t) })) });
  const real = await renderAndDownload(api, `${RENDER}/images`, { config: doc(plain), image: { format: 'png', dpi: 40 } }, 'PNG', 'application/zip');
  const tofu = await renderAndDownload(api, `${RENDER}/images`, { config: doc(boxes), image: { format: 'png', dpi: 40 } }, 'PNG', 'application/zip');
  assert.equal(real.job.warnings, []);
  assert.ok(tofu.job.warnings.some((w: Json) => w.code === 'GLYPH_MISSING'), 'the reference is reported as drawn with boxes');
  const [a, b] = [await pngPages(real.bytes), await pngPages(tofu.bytes)];
  assert.is(a.length, SAMPLES.length);
  SAMPLES.forEach((s, i) => {
    const diff = meanDifference(decodePng(a[i]!), decodePng(b[i]!));
    assert.ok(diff > 0.001, `${s.script}: page ${i + 1} differs from empty boxes by only ${diff}`);
  });
});

test('Han characters take the glyph forms of the language: defaults.locale first, else the script of the text', async () => {
  const cases: Array<[string | undefined, string, RegExp]> = [
    ['zh-Hans', '骨直', /NotoSansSC/],
    ['zh-CN', '骨直', /NotoSansSC/],
    ['zh-Hant', '骨直', /NotoSansTC/],
    ['zh-HK', '骨直', /NotoSansTC/],
    ['ja', '骨直', /NotoSansJP/],
    ['ko', '骨直', /NotoSansKR/],
    [undefined, '骨直', /NotoSansSC/],
    [undefined, '骨直 かな', /NotoSansJP/],
    [undefined, '骨直 한글', /NotoSansKR/],
  ];
  for (const [locale, text, font] of cases) {
    const config = { document: { type: 'pdf', title: 'Han' }, sections: [{ type: 'flow', content: [{ type: 'text', text }] }], ...(locale ? { defaults: { locale } } : {}) };
    const { bytes } = await renderAndDownload(api, RENDER, { config }, 'PDF', 'application/pdf');
    const fonts = await pdffontsTable(bytes);
    assert.match(fonts, font, `${locale ?? 'no locale'} "${text}": ${fonts}`);
    // The document's variant draws all its Han characters: no second CJK font.
    assert.is((fonts.match(/NotoSans(SC|TC|JP|KR)/g) ?? []).length, 1, `${locale ?? 'no locale'} "${text}": ${fonts}`);
  }
});

test.run();
