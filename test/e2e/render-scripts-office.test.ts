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
import { decodePng, meanDifference } from '../helpers/image-readers.js';
import { pdffontsTable, popplerOutput } from '../helpers/poppler.js';

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

const CONVERT = '/api/v1/dev/tools/docx/replace-placeholders';
/** The font pdffonts shows in LibreOffice's PDF for each script besides Latin, Greek and Cyrillic (Noto Sans). */
const OFFICE_FONTS: Record<string, RegExp> = {
  'Simplified Chinese': /NotoSans(CJK\w*|SC|JP)-/,
  'Traditional Chinese': /NotoSans(CJK\w*|SC|TC|JP)-/,
  Japanese: /NotoSans(CJK\w*|JP)-/,
  Korean: /NotoSans(CJK\w*|KR|JP)-/,
  Thai: /NotoSansThai-/,
  Devanagari: /NotoSans(Devanagari)?-/,
  // One complex-script font a document (w:cs, style:font-name-complex: Arabic's here, by precedence), so LibreOffice
  // draws the Hebrew of a document that also has Arabic in a fallback of its own that has Hebrew.
  Hebrew: /NotoSansHebrew-|DejaVuSans/,
  Arabic: /NotoSansArabic-/,
};

for (const type of ['docx', 'odt'] as const) {
  test(`Quire's LibreOffice converts the multilingual ${type.toUpperCase()} to PDF with every script's text and a font for each`, async () => {
    // The conversion of docx-templates (outputFormat pdf): the warm LibreOffice with the bundled fonts on its font path.
    const id = await api.uploadId(await officeRender(type), `scripts.${type}`);
    const created = await api.post(CONVERT, { fileId: id, variables: { unused: 'x' }, outputFormat: 'pdf' });
    assert.is(created.status, 202, created.bytes.toString());
    const job = await api.waitForJob(created.body.id, 180_000);
    assert.is(job.status, 'COMPLETED', job.error);
    const pdf = (await api.download(job.downloadUrl)).bytes;
    // Without spaces and direction marks: pdftotext splits an Arabic word where LibreOffice's glyph runs break.
    const squeeze = (t: string) => t.replace(/[\s\u200e\u200f\u202a-\u202e]/g, '');
    const text = squeeze(await popplerOutput('pdftotext', ['-enc', 'UTF-8'], pdf));
    const fonts = await pdffontsTable(pdf);
    for (const s of SAMPLES) for (const w of words(s.text)) assert.ok(text.includes(squeeze(w)), `${s.script} "${w}" in: ${text}`);
    for (const line of fonts.split('\n').slice(2).filter(Boolean)) assert.match(line, /\s+yes\s+yes\s+yes\s+/, `every font embedded, subset, with a ToUnicode map: ${line}`);
    for (const [script, font] of Object.entries(OFFICE_FONTS)) assert.match(fonts, font, `${script}: ${fonts}`);
  });
}

/** The scripts that need a font other than the document's (Noto Sans) in a picture. */
const PICTURE_SCRIPTS = SAMPLES.filter((s) => ['Simplified Chinese', 'Japanese', 'Korean', 'Thai', 'Hebrew', 'Arabic'].includes(s.script));

/** Characters a chart's layout counts as 1 em wide (engines/graphics/chart-svg.ts). */
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

/** A bar chart a script: its words as title, labels and series name. */
function chartsDocument(type: 'docx' | 'odt', text: (t: string) => string): Json {
  const charts = PICTURE_SCRIPTS.map((s) => {
    const w = words(s.text).map(text);
    return { type: 'chart', chartType: 'bar', title: w.join(' '), legend: true, data: { labels: w, series: [{ name: w[0]!, values: w.map((_, i) => i + 2) }] } };
  });
  return { document: { type, title: 'Charts', filename: 'charts' }, sections: [{ type: 'flow', content: charts }] };
}

/** The pictures of a DOCX or ODT file in the order the document shows them. */
async function pictures(bytes: Buffer, type: 'docx' | 'odt'): Promise<Buffer[]> {
  const zip = await JSZip.loadAsync(bytes);
  let names: string[];
  if (type === 'docx') {
    const rels = await zip.file('word/_rels/document.xml.rels')!.async('string');
    const target = new Map([...rels.matchAll(/<Relationship\b[^>]*?Id="([^"]+)"[^>]*?Target="([^"]+)"/g)].map((m) => [m[1]!, m[2]!]));
    const xml = await zip.file('word/document.xml')!.async('string');
    names = [...xml.matchAll(/r:embed="([^"]+)"/g)].map((m) => `word/${target.get(m[1]!)!}`);
  } else {
    const xml = await zip.file('content.xml')!.async('string');
    names = [...xml.matchAll(/<draw:image\b[^>]*?xlink:href="(Pictures\/[^"]+\.png)"/g)].map((m) => m[1]!);
  }
  return Promise.all(names.map((n) => zip.file(n)!.async('nodebuffer')));
}

for (const type of ['docx', 'odt'] as const) {
  test(`${type.toUpperCase()} charts draw CJK, Thai, Hebrew and Arabic labels with real glyphs, not the empty boxes of a character no font has`, async () => {
    const mime = type === 'docx' ? 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' : 'application/vnd.oasis.opendocument.text';
    // The reference: the same charts with every character replaced by one no font has (drawn as an empty box), a wide
    // one (Yi) for a wide one, so that the chart's layout, which estimates label widths, is the same.
    const real = await renderAndDownload(api, RENDER, { config: chartsDocument(type, (t) => t) }, type.toUpperCase(), mime);
    const tofu = await renderAndDownload(api, RENDER, { config: chartsDocument(type, (t) => t.replace(/\S/gu, (c) => (WIDE.test(c) ? '꒐' : 'ᱚ'))) }, type.toUpperCase(), mime);
    assert.equal(real.job.warnings, []);
    assert.ok(tofu.job.warnings.some((w: Json) => w.code === 'GLYPH_MISSING'), 'the reference is reported as drawn with boxes');
    const [a, b] = [await pictures(real.bytes, type), await pictures(tofu.bytes, type)];
    assert.is(a.length, PICTURE_SCRIPTS.length);
    assert.is(b.length, PICTURE_SCRIPTS.length);
    // Boxes against boxes differ by nothing (0 before charts drew these scripts); the text is a small share of a chart's pixels.
    PICTURE_SCRIPTS.forEach((s, i) => {
      const diff = meanDifference(decodePng(a[i]!), decodePng(b[i]!));
      assert.ok(diff > 0.0005, `${s.script}: chart ${i + 1} differs from empty boxes by only ${diff}`);
    });
  });
}

test('an ODT formula\'s picture draws \\text in Chinese and Thai with their glyphs, not one empty box for every character', async () => {
  const mime = 'application/vnd.oasis.opendocument.text';
  const formula = (text: string) => ({ document: { type: 'odt', title: 'Formula' }, sections: [{ type: 'flow', content: [{ type: 'math', latex: `x = \\text{${text}}` }] }] });
  /** The distinct glyphs the formula's replacement picture (Typst's SVG) draws. */
  const glyphs = async (bytes: Buffer) => {
    const zip = await JSZip.loadAsync(bytes);
    const name = Object.keys(zip.files).find((n) => n.startsWith('ObjectReplacements/'))!;
    assert.ok(name, 'the formula has a picture');
    return new Set([...(await zip.file(name)!.async('string')).matchAll(/<use xlink:href="#([^"]+)"/g)].map((m) => m[1])).size;
  };
  const real = await renderAndDownload(api, RENDER, { config: formula('中文 ภาษาไทย') }, 'ODT', mime);
  const tofu = await renderAndDownload(api, RENDER, { config: formula('ᱚᱚ ᱚᱚᱚᱚᱚᱚᱚ') }, 'ODT', mime);
  // x, = and the eight distinct letters; the reference draws x, = and one empty box.
  assert.ok((await glyphs(real.bytes)) >= 10, `${await glyphs(real.bytes)} glyphs`);
  assert.ok((await glyphs(tofu.bytes)) <= 3, `${await glyphs(tofu.bytes)} glyphs in the reference`);
});

/** The ink (opaque and darker than mid-grey) of a picture's title: the first band of rows with ink from the top. */
function titleInk(png: Buffer): { width: number; height: number; ink: boolean[]; columns: boolean[] } {
  const { width, height, grey, alpha } = decodePng(png);
  const dark = (i: number) => grey[i]! < 160 && (alpha?.[i] ?? 255) > 128;
  const rowInk = (y: number) => Array.from({ length: width }, (_, x) => dark(y * width + x)).some(Boolean);
  let top = 0;
  while (top < height && !rowInk(top)) top++;
  let bottom = top;
  while (bottom < height && rowInk(bottom)) bottom++;
  const columns = Array.from({ length: width }, (_, x) => Array.from({ length: bottom - top }, (_, dy) => dark((top + dy) * width + x)).some(Boolean));
  const ink = Array.from({ length: (bottom - top) * width }, (_, i) => dark(top * width + i));
  return { width, height: bottom - top, ink, columns };
}

/** The share of differing pixels between columns [a0, a1) of `a` and [b0, b1) of `b`, aligned on the left and padded with no ink. */
function inkDifference(a: ReturnType<typeof titleInk>, [a0, a1]: number[], b: ReturnType<typeof titleInk>, [b0, b1]: number[]): number {
  const w = Math.max(a1! - a0!, b1! - b0!);
  const h = Math.max(a.height, b.height);
  let differ = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const pa = y < a.height && a0! + x < a1! && a.ink[y * a.width + a0! + x]!;
      const pb = y < b.height && b0! + x < b1! && b.ink[y * b.width + b0! + x]!;
      if (pa !== pb) differ++;
    }
  }
  return differ / (w * h);
}

/** The first and one past the last inked column. */
function inkSpan(t: ReturnType<typeof titleInk>): number[] {
  return [t.columns.indexOf(true), t.columns.lastIndexOf(true) + 1];
}

test('a DOCX chart titled with two Hebrew or two Arabic words draws the second word on the left and the first on the right, as a reader reads them', async () => {
  const mime = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
  const phrases = [['שלום', 'עולם'], ['مرحبا', 'بالعالم']];
  const titles = phrases.flatMap(([first, second]) => [`${first} ${second}`, first!, second!]);
  const chart = (title: string) => ({ type: 'chart', chartType: 'bar', title, legend: false, data: { labels: ['a', 'b'], series: [{ name: 's', values: [2, 3] }] } });
  const config = { document: { type: 'docx', title: 'Charts', filename: 'charts' }, sections: [{ type: 'flow', content: titles.map(chart) }] };
  const { job, bytes } = await renderAndDownload(api, RENDER, { config }, 'DOCX', mime);
  assert.equal(job.warnings, []);
  const shown = (await pictures(bytes, 'docx')).map(titleInk);
  assert.is(shown.length, titles.length);
  phrases.forEach(([first, second], p) => {
    const [both, firstAlone, secondAlone] = shown.slice(3 * p, 3 * p + 3) as [ReturnType<typeof titleInk>, ReturnType<typeof titleInk>, ReturnType<typeof titleInk>];
    // The two words of the title are its two inked parts either side of the widest gap between inked columns.
    const [start, end] = inkSpan(both);
    let gap = [start!, start!];
    for (let x = start!; x < end!; ) {
      if (both.columns[x]) x++;
      else {
        let e = x;
        while (!both.columns[e]) e++;
        if (e - x > gap[1]! - gap[0]!) gap = [x, e];
        x = e;
      }
    }
    const left = [start!, gap[0]!];
    const right = [gap[1]!, end!];
    const leftIsSecond = inkDifference(both, left, secondAlone, inkSpan(secondAlone));
    const leftIsFirst = inkDifference(both, left, firstAlone, inkSpan(firstAlone));
    const rightIsFirst = inkDifference(both, right, firstAlone, inkSpan(firstAlone));
    const rightIsSecond = inkDifference(both, right, secondAlone, inkSpan(secondAlone));
    assert.ok(leftIsSecond < 0.15 && leftIsSecond < leftIsFirst, `${first} ${second}: the left word differs from "${second}" by ${leftIsSecond}, from "${first}" by ${leftIsFirst}`);
    assert.ok(rightIsFirst < 0.15 && rightIsFirst < rightIsSecond, `${first} ${second}: the right word differs from "${first}" by ${rightIsFirst}, from "${second}" by ${rightIsSecond}`);
  });
});

test.run();
