// ODT output end to end: POST /render and POST /render/markdown with document.type odt → poll → download,
// read back by odfpy (test/helpers/odt-read.py: outline headings, tables, lists, frames, indexes, master
// pages, meta; formula objects and every XML part through Python's own XML parser), by LibreOffice
// (ODT → PDF → pdftotext, pdfinfo) and by the zip's own bytes — never by the code that wrote it.
// Longer than 400 lines: one started server serves every ODT structure test, each read back with odfpy and LibreOffice.
// test-stores: once (ODT output read back; its jobs reach the store as render.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, OWNER_KEY, ROOT, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { renderAndDownload, uploadRedPng, waitForRender } from '../helpers/render-jobs.js';
import { countOf as count, officeToPdf, oneLine } from '../helpers/office-text.js';
import { escapeMarkup, HOSTILE_STRINGS, RICH_OFFICE_TEXTS, richOfficeDocument } from '../fixtures/documents.js';

type Json = Record<string, any>;

const RENDER = '/api/v1/dev/render';
const ODT_MIME = 'application/vnd.oasis.opendocument.text';
const run = promisify(execFile);

let server: RunningServer;
let api: ApiClient;
let png: string;

test.before(async () => {
  server = await startServer();
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  png = await uploadRedPng(api);
});

test.after(async () => {
  await server?.stop();
});

// ---------------------------------------------------------------- helpers

function waitFor(jobId: string): Promise<Json> {
  return waitForRender(api, jobId);
}

function renderOdt(pathname: string, body: Json): Promise<{ job: Json; bytes: Buffer }> {
  return renderAndDownload(api, pathname, body, 'ODT', ODT_MIME);
}

async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-odt-test-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What odfpy (and Python's XML parser) read from the file. */
async function odfpy(bytes: Buffer): Promise<Json> {
  return inTempDir(async (dir) => {
    const file = path.join(dir, 'out.odt');
    await writeFile(file, bytes);
    const { stdout } = await run('/usr/bin/python3', [path.join(ROOT, 'test/helpers/odt-read.py'), file], { maxBuffer: 64 << 20 });
    return JSON.parse(stdout) as Json;
  });
}

/** LibreOffice's PDF of the file: its text (pdftotext) and page count (pdfinfo). */
async function libreOffice(bytes: Buffer): Promise<{ text: string; pages: number }> {
  const pdf = await officeToPdf(bytes, 'odt');
  return inTempDir(async (dir) => {
    const file = path.join(dir, 'out.pdf');
    await writeFile(file, pdf);
    const text = (await run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 64 << 20 })).stdout;
    const info = (await run('pdfinfo', [file])).stdout;
    return { text, pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0) };
  });
}

const cmOf = (length: string | null | undefined) => Number(/^([\d.]+)cm$/.exec(length ?? '')?.[1] ?? NaN);


let rich: Promise<{ job: Json; bytes: Buffer }> | null = null;
const richOdt = () => (rich ??= renderOdt(RENDER, { config: richOfficeDocument('odt', { png }) }));
let richRead: Promise<Json> | null = null;
const richOdfpy = () => (richRead ??= richOdt().then(({ bytes }) => odfpy(bytes)));

// ---------------------------------------------------------------- the package

test('renders document JSON with document.type odt: an ODT job with its file name, no PDF facts, 1 credit', async () => {
  const { job } = await richOdt();
  assert.is(job.format, 'ODT');
  assert.is(job.filename, 'catalogue.odt');
  assert.is(job.creditCost, 1);
  assert.is(job.pdfCompliance, null);
  assert.is(job.pageCount, null);
  assert.ok(Array.isArray(job.warnings));
  const download = await api.download(job.downloadUrl);
  assert.match(download.headers.get('content-disposition') ?? '', /catalogue\.odt/);
});

test('mimetype is the first zip entry, stored uncompressed without extra field, so the file identifies itself by its first bytes', async () => {
  const { bytes } = await richOdt();
  // Local file header: signature, version, flags, method (offset 8), …, name length (26), extra length (28), name (30).
  assert.is(bytes.readUInt32LE(0), 0x04034b50, 'local file header signature');
  assert.is(bytes.readUInt16LE(8), 0, 'compression method 0 (stored)');
  const nameLength = bytes.readUInt16LE(26);
  const extraLength = bytes.readUInt16LE(28);
  assert.is(bytes.subarray(30, 30 + nameLength).toString('latin1'), 'mimetype');
  assert.is(extraLength, 0);
  assert.is(bytes.readUInt32LE(18), ODT_MIME.length, 'compressed size');
  assert.is(bytes.subarray(30 + nameLength, 30 + nameLength + ODT_MIME.length).toString('latin1'), ODT_MIME);
  const d = await richOdfpy();
  assert.is(d.mimetype, ODT_MIME);
  assert.equal(d.zip[0], { name: 'mimetype', compress: 0, extra: 0 });
  assert.is(d.manifest['/'], ODT_MIME);
  for (const part of ['content.xml', 'styles.xml', 'meta.xml']) assert.is(d.manifest[part], 'text/xml', part);
  // Everything in the zip is in the manifest (but the manifest itself and mimetype).
  for (const { name } of d.zip) if (name !== 'mimetype' && name !== 'META-INF/manifest.xml') assert.ok(d.manifest[name], `${name} is listed in the manifest`);
});

test('odfpy reads headings with outline levels and heading styles, paragraphs and the meta', async () => {
  const d = await richOdfpy();
  assert.equal(d.meta.title, ['Element catalogue']);
  assert.equal(d.meta.creator, ['Quire']);
  assert.equal(d.meta.initialCreator, ['Quire']);
  assert.equal(d.meta.subject, ['Every element']);
  assert.equal(d.meta.description, []);
  assert.equal(d.meta.keywords, ['test']);
  assert.equal(d.meta.generator, ['Quire']);
  assert.equal(d.meta.language, ['en-GB']);
  assert.match(d.meta.creationDate[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  for (const [text, level] of [['Cover page title', 1], ['Introduction', 1], ['Lists', 2], ['Results', 2], ['Third level', 3], ['Fourth level', 4], ['Closing', 1]] as const) {
    const h = d.headings.find((x: Json) => x.text === text);
    assert.ok(h, `heading "${text}" in ${JSON.stringify(d.headings)}`);
    assert.is(h.level, level, `${text}: text:outline-level`);
    assert.is(h.style, `Heading_20_${level}`, `${text}: heading style`);
    assert.is(d.styles[`Heading_20_${level}`].outlineLevel, String(level), `Heading ${level} declares its outline level`);
  }
  // The bibliography title is a heading too (as in the PDF), in its own style.
  assert.ok(d.headings.some((h: Json) => h.text === 'References' && h.level === 1));
  const texts = d.paragraphs.join('\n');
  for (const s of ['Plain, bold, italic, inline code', 'Application Programming Interface', 'Hello from a variable', 'Simplicity is prerequisite for reliability.', 'A paragraph after the fourth level heading.', 'Two-column text.', 'A cover, vertically centred']) {
    assert.ok(texts.includes(s), `paragraph text "${s}"`);
  }
  // Document defaults become the named styles: Noto Sans 10.5 pt body, primary-coloured headings.
  assert.is(d.styles.Heading_20_1.props['font-size'], '22pt');
  assert.is(d.styles.Heading_20_1.props.color, '#1f3a5f');
});

test('odfpy reads tables: header rows in table:table-header-rows, spans with covered cells, widths, header fill', async () => {
  const d = await richOdfpy();
  const sales = d.tables.find((t: Json) => t.rows[0][0].text === 'Region');
  assert.ok(sales, JSON.stringify(d.tables.map((t: Json) => t.rows[0])));
  assert.is(sales.headerRows, 1);
  const grid = sales.rows.map((r: Json[]) => r.map((c) => (c.covered ? '·' : c.text)));
  assert.equal(grid, [
    ['Region', 'Q1', 'Q2'],
    ['North', '10', '12'],
    ['South', 'SpanBoth', '·'],
    ['·', '7', '8'],
  ]);
  assert.is(sales.rows[2][0].rowspan, 2);
  assert.is(sales.rows[2][1].colspan, 2);
  // Columns 2fr 1fr 1fr of the 16 cm text width (A4 with 2.5 cm margins).
  assert.equal(sales.columns.map(cmOf), [8, 4, 4]);
  assert.is(sales.cellStyles[sales.rows[0][0].style]['background-color'], '#eef1f5');
  assert.match(sales.cellStyles[sales.rows[1][0].style].border, /solid #c5ccd6/);
  const items = d.tables.find((t: Json) => t.rows.some((r: Json[]) => r.some((c) => c.text === 'Pen')));
  assert.ok(items, 'the table from a table variable');
  assert.ok(items.rows.some((r: Json[]) => r.some((c) => c.text === 'Ink')));
});

test('lists are native: numbered from 3, bullets with a nested level, the list variable restarting at 1', async () => {
  const d = await richOdfpy();
  const bullets = d.lists.find((l: Json) => l.items.includes('First bullet'));
  assert.is(bullets.style, 'List_20_1');
  assert.equal(bullets.nested, ['Nested one', 'Nested two']);
  const steps = d.lists.find((l: Json) => l.items.includes('Step three'));
  assert.is(steps.style, 'Numbering_20_123');
  assert.is(steps.start, '3');
  const variable = d.lists.find((l: Json) => l.items.includes('Sign'));
  assert.is(variable.style, 'Numbering_20_123');
  assert.is(variable.start, '1');
  assert.ok(d.listStyles.Numbering_20_123.number >= 6 && d.listStyles.List_20_1.bullet >= 6, 'list styles define the nested levels');
});

test('the uploaded image is a frame of the requested size with its alt text; charts and codes are pictures too', async () => {
  const d = await richOdfpy();
  const red = d.images.find((i: Json) => i.title[0] === 'A red square');
  assert.ok(red, JSON.stringify(d.images));
  assert.is(red.desc[0], 'A red square');
  // width: 3 (cm); the height keeps the 40 × 30 aspect ratio.
  assert.ok(Math.abs(cmOf(red.width) - 3) < 0.001, red.width);
  assert.ok(Math.abs(cmOf(red.height) - 2.25) < 0.001, red.height);
  assert.match(red.href, /^Pictures\/.+\.png$/);
  assert.is(d.manifest[red.href], 'image/png');
  assert.ok(d.images.length >= 1 + 5 + 2, `the image, five charts, the QR code and the barcode: ${d.images.length}`);
  for (const i of d.images) assert.ok(i.desc[0]?.length > 0, `every picture has a description: ${JSON.stringify(i)}`);
});

test('math is embedded MathML formula objects: inline math in its sentence, the display equation on its own line, numbered', async () => {
  const d = await richOdfpy();
  assert.ok(d.formulas.length >= 2, JSON.stringify(d.formulas));
  for (const f of d.formulas) {
    assert.is(f.root, '{http://www.w3.org/1998/Math/MathML}math', `${f.dir}content.xml holds a MathML math element`);
    assert.is(d.manifest[f.dir], 'application/vnd.oasis.opendocument.formula');
    // A picture of the formula (drawn by Typst) for readers without a MathML renderer, sized as the frame.
    assert.equal([f.replacement?.type, f.replacement?.root], ['image/svg+xml', '{http://www.w3.org/2000/svg}svg'], JSON.stringify(f));
    const frame = d.objects.find((o: Json) => o.href === `./${f.dir.replace(/\/$/, '')}`);
    assert.equal(frame.replacement, [`./${f.replacement.path}`]);
    const widthCm = (Number(/^([\d.]+)pt$/.exec(f.replacement.width)![1]) * 2.54) / 72;
    assert.ok(Math.abs(cmOf(frame.width) - widthCm) < 0.01, `frame ${frame.width} vs picture ${f.replacement.width}`);
  }
  const inline = d.objects.find((o: Json) => o.desc[0] === 'x^2 + y^2');
  assert.ok(inline, JSON.stringify(d.objects));
  assert.is(inline.anchor, 'as-char');
  assert.ok(inline.paragraphText.includes('Plain, bold, italic'), 'inline math sits in its paragraph');
  const display = d.objects.find((o: Json) => o.desc[0]?.includes('\\int_0^1'));
  assert.ok(display, JSON.stringify(d.objects));
  // It has an id, so it is numbered as in the PDF: centred on a centre tab, "(1)" on a right tab.
  assert.match(display.paragraphText, /^\t[^\t]*\t\(1\)$/); // odfpy's text includes the frame's description (the LaTeX)
  assert.is(display.tabs, 'center,right');
  const integral = d.formulas.find((f: Json) => `./${f.dir.replace(/\/$/, '')}` === display.href);
  assert.ok(integral.elements.includes('mfrac'), `structured math: ${integral.elements}`);
  assert.ok(integral.text.includes('∫'));
});

test('footnotes are text:note footnotes; internal links point at bookmarks; captions count in sequences', async () => {
  const d = await richOdfpy();
  assert.ok(d.notes.some((n: Json) => n.class === 'footnote' && n.body === 'Footnote text here.' && n.citation === '1'), JSON.stringify(d.notes));
  assert.ok(d.links.includes('https://example.com/docs'));
  for (const id of ['results', 'eq-integral', 'lst-hello', 'fig-revenue']) assert.ok(d.links.includes(`#${id}`), `a link to #${id}`);
  for (const href of d.links.filter((l: string) => l.startsWith('#'))) assert.ok(d.bookmarks.includes(href.slice(1)), `${href} has a bookmark`);
  const captions = d.sequences.map((s: Json) => `${s.name}:${s.caption}`);
  assert.ok(captions.includes('Table:Table 1: Sales by region'), JSON.stringify(captions));
  assert.ok(captions.includes('Figure:Figure 1: Revenue by quarter'), JSON.stringify(captions));
  assert.ok(captions.some((c: string) => c.startsWith('Listing:') && c.includes('Hello in Python')), JSON.stringify(captions));
});

test('the TOC, list of figures and list of tables are indexes with their entries already filled in', async () => {
  const d = await richOdfpy();
  assert.is(d.toc.length, 1);
  const toc = d.toc[0].entries;
  assert.is(toc[0], 'Contents');
  for (const s of ['Introduction', 'Lists', 'Results', 'Third level', 'Closing']) assert.ok(toc.includes(s), `TOC entry ${s}: ${JSON.stringify(toc)}`);
  assert.not.ok(toc.includes('Fourth level'), 'depth 3 leaves out level 4');
  assert.ok(d.lof[0].entries.some((e: string) => e.includes('Revenue by quarter')), JSON.stringify(d.lof));
  assert.ok(d.lof[0].entries.some((e: string) => e.includes('An uploaded image')), JSON.stringify(d.lof));
  assert.ok(d.lot[0].entries.some((e: string) => e.includes('Sales by region')), JSON.stringify(d.lot));
});

test('header and footer live in the master page with page-number and page-count fields; the first page has its own master without the footer', async () => {
  const d = await richOdfpy();
  const standard = d.masters.find((m: Json) => m.name === 'Standard');
  assert.match(standard.header, /Quire catalogue header/);
  assert.match(standard.footer, /^Page \d+ of \d+$/);
  assert.is(standard.pageNumberFields, 1);
  assert.is(standard.pageCountFields, 1);
  const first = d.masters.find((m: Json) => m.name === 'First_20_Page');
  assert.ok(first, JSON.stringify(d.masters));
  assert.is(first.next, 'Standard');
  assert.is(first.footer, null, 'skipFirstPage: no footer on page 1');
  assert.match(first.header, /Quire catalogue header/);
  assert.is(d.firstMaster, 'First_20_Page', 'the document opens on the first-page master');
  const layout = d.layouts[standard.layout];
  assert.is(layout['page-width'], '21cm');
  assert.is(layout['page-height'], '29.7cm');
  assert.is(layout['print-orientation'], 'portrait');
});

test('the two-column section is a text:section with two columns, the gap and a separator line', async () => {
  const d = await richOdfpy();
  const cols = d.sections.find((s: Json) => s.text.includes('Two-column text.'));
  assert.ok(cols, JSON.stringify(d.sections));
  assert.is(cols.columns, 2);
  assert.is(cols.gap, '1cm');
  assert.is(cols.separator, true);
});

test('LibreOffice opens the ODT and its PDF holds every paragraph, cell, footnote, caption, TOC entry, header, footer and reference', async () => {
  const { text: raw, pages } = await libreOffice((await richOdt()).bytes);
  const text = oneLine(raw);
  for (const s of RICH_OFFICE_TEXTS) assert.ok(text.includes(s), `"${s}" is in the text LibreOffice renders:\n${text}`);
  // The TOC and the lists of figures/tables show their entries without an update: each heading and caption
  // appears twice (the entry and the element itself).
  for (const s of ['Introduction', 'Results', 'Sales by region', 'Revenue by quarter']) assert.ok(count(text, s) >= 2, `"${s}" in the TOC/lists and in the body`);
  // The cover page carries neither the footer (skipped) nor anything of the body.
  const cover = oneLine(raw.split('\f')[0]!);
  assert.ok(cover.includes('Cover page title') && !cover.includes('Page 1 of'), `cover page: ${cover}`);
  assert.ok(pages >= 4 && pages <= 12, `a plausible page count: ${pages}`);
  assert.ok(text.includes(`Page ${pages} of ${pages}`), 'the page-count field counts the pages');
});

// ---------------------------------------------------------------- hostile text, Markdown

/** LibreOffice's text comes back in visual order for right-to-left runs: compare without spaces and bidi controls. */
const normalise = (s: string) => s.normalize('NFC').replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').replace(/\s+/g, '');

test('hostile strings print literally in headings, paragraphs, cells, code and meta; every part is well-formed XML', async () => {
  const strings = [...HOSTILE_STRINGS, 'xml </text:p><text:p>injected & "quoted" <b>', ']]> cdata end', 'ctrl \u0001\u0008 chars', 'tab\there', 'two  spaces'];
  const printed = (s: string) => s.replace(/[\u0001\u0008]/g, ''); // XML 1.0 cannot carry C0 controls: they are dropped
  const config = {
    document: { type: 'odt', filename: 'hostile', title: strings.slice(0, 8).join(' | '), author: strings[0], subject: strings[2], keywords: strings.slice(0, 3) },
    sections: [
      {
        type: 'flow',
        content: [
          { type: 'toc', title: strings[9] },
          ...strings.map((s) => ({ type: 'h2', text: escapeMarkup(s) })),
          ...strings.map((s) => ({ type: 'text', text: escapeMarkup(s) })),
          ...strings.map((s) => ({ type: 'text', text: `Note^[${escapeMarkup(s)}]` })),
          { type: 'table', headerRows: 1, caption: escapeMarkup(strings[1]!), rows: [['Header'], ...strings.map((s) => [escapeMarkup(s)])] },
          { type: 'code', code: strings.join('\n') },
          { type: 'quote', text: escapeMarkup(strings[4]!), attribution: escapeMarkup(strings[5]!) },
        ],
      },
    ],
    // Header and footer text is plain (only {{page}}/{{pages}} and variables are replaced), as are titles.
    defaults: { header: { text: strings[3] }, footer: { text: `${strings[6]} {{page}}` } },
  };
  const { bytes } = await renderOdt(RENDER, { config });
  const d = await odfpy(bytes); // parses every XML part; a malformed one fails here
  const headings = d.headings.map((h: Json) => h.text);
  const cells = d.tables[0].rows.slice(1).map((r: Json[]) => r[0]!.text);
  for (const s of strings.map(printed)) {
    assert.ok(headings.includes(s), `a heading prints ${JSON.stringify(s)}`);
    assert.ok(d.paragraphs.filter((p: string) => p === s).length >= 2, `a paragraph and a code line print ${JSON.stringify(s)}`);
    assert.ok(cells.includes(s), `a table cell prints ${JSON.stringify(s)}`);
  }
  const notes = d.notes.map((n: Json) => n.body);
  for (const s of strings.map(printed)) assert.ok(notes.includes(s), `a footnote prints ${JSON.stringify(s)}`);
  assert.is(d.toc[0].entries[0], strings[9], 'the TOC title');
  assert.ok(d.sequences.some((q: Json) => q.caption === `Table 1: ${strings[1]}`), JSON.stringify(d.sequences));
  assert.ok(d.paragraphs.includes(strings[4]) && d.paragraphs.includes(`— ${strings[5]}`), 'quote and attribution');
  const standard = d.masters.find((m: Json) => m.name === 'Standard');
  assert.is(standard.header, strings[3]);
  assert.is(standard.footer, `${strings[6]} 1`);
  assert.equal(d.meta.title, [strings.slice(0, 8).join(' | ')]);
  assert.equal(d.meta.creator, [strings[0]]);
  assert.equal(d.meta.keywords, strings.slice(0, 3));
  const { text } = await libreOffice(bytes);
  for (const s of strings.map(printed)) assert.ok(normalise(text).includes(normalise(s)), `LibreOffice prints ${JSON.stringify(s)}`);
});

test('writes Pandoc-style front matter (title, author list, date, keywords, abstract, lang) as the ODT meta, the ISO date as the creation date', async () => {
  const content = ['---', 'title: Field notes', 'author:', '  - Ada Lovelace', '  - Alan Turing', 'date: 2024-05-01T09:30:00+02:00', 'keywords: [birds, spring]', 'abstract: What we saw.', 'lang: de-DE', '---', '', 'Body.'].join('\n');
  const { bytes } = await renderOdt(`${RENDER}/markdown`, { content, document: { type: 'odt' } });
  const d = await odfpy(bytes);
  assert.equal(d.meta.title, ['Field notes']);
  assert.equal(d.meta.creator, ['Ada Lovelace, Alan Turing']);
  assert.equal(d.meta.keywords, ['birds', 'spring']);
  assert.equal(d.meta.description, ['What we saw.']);
  assert.equal(d.meta.creationDate, ['2024-05-01T07:30:00Z']);
  assert.equal(d.meta.date, ['2024-05-01T07:30:00Z']);
  assert.equal(d.meta.language, ['de-DE']);
});

test('renders Extended Markdown with document.type odt through POST /render/markdown', async () => {
  const content = [
    '# Overview {#overview}',
    '',
    'Prepared for {{client}} about the ~API~, as @[smith2020, p. 12] argues.[^n] See [the overview](#overview).',
    '',
    '[^n]: A footnote from Markdown.',
    '',
    '| Name | Value |',
    '|------|------:|',
    '| one  | 1     |',
    '',
    '$$',
    'e^{i\\pi} + 1 = 0',
    '$$',
    '',
    '::bibliography',
  ].join('\n');
  const { job, bytes } = await renderOdt(`${RENDER}/markdown`, {
    content,
    document: { type: 'odt', filename: 'note', title: 'Quarterly note' },
    variables: { client: 'ACME' },
    abbreviations: { API: 'Application Programming Interface' },
    citations: [{ id: 'smith2020', type: 'book', title: 'On documents', author: [{ family: 'Smith', given: 'Ann' }], issued: { 'date-parts': [[2020]] } }],
  });
  assert.is(job.filename, 'note.odt');
  const d = await odfpy(bytes);
  assert.equal(d.meta.title, ['Quarterly note']);
  assert.ok(d.headings.some((h: Json) => h.text === 'Overview' && h.level === 1 && h.style === 'Heading_20_1'), JSON.stringify(d.headings));
  assert.ok(d.paragraphs.some((p: string) => p.startsWith('Prepared for ACME about the Application Programming Interface')), JSON.stringify(d.paragraphs));
  assert.ok(d.links.includes('#overview') && d.bookmarks.includes('overview'));
  assert.is(d.tables[0].headerRows, 1);
  assert.equal(d.tables[0].rows.map((r: Json[]) => r.map((c) => c.text)), [['Name', 'Value'], ['one', '1']]);
  assert.ok(d.notes.some((n: Json) => n.body === 'A footnote from Markdown.'));
  assert.ok(d.paragraphs.some((p: string) => p.includes('On documents')), 'the bibliography entry');
  // A display equation without an id is not numbered: centred in its own paragraph.
  const euler = d.objects.find((o: Json) => o.desc[0]?.includes('e^{i'));
  assert.ok(euler, JSON.stringify(d.objects));
  assert.is(euler.align, 'center');
  assert.ok(d.formulas.some((f: Json) => f.text.includes('π')), JSON.stringify(d.formulas));
});

test('page geometry: landscape Letter with its margins, a page section starting at startY, a page break before the next section', async () => {
  const { bytes } = await renderOdt(RENDER, {
    config: {
      document: { type: 'odt', size: 'Letter', orientation: 'landscape', marginTop: 1, marginRight: 2, marginBottom: 3, marginLeft: 4 },
      sections: [
        { type: 'page', startY: 5, content: [{ type: 'h1', text: 'Placed title' }] },
        { type: 'flow', newPage: false, content: [{ type: 'text', text: 'Body after the page section' }] },
      ],
    },
  });
  const d = await odfpy(bytes);
  const layout = d.layouts[d.masters.find((m: Json) => m.name === 'Standard').layout];
  assert.equal([cmOf(layout['page-width']), cmOf(layout['page-height']), layout['print-orientation']], [27.94, 21.59, 'landscape']);
  assert.equal([layout['margin-top'], layout['margin-right'], layout['margin-bottom'], layout['margin-left']], ['1cm', '2cm', '3cm', '4cm']);
  // The page section starts with a 5 cm spacer; the flow section after it starts a new page (as in the PDF).
  assert.is(d.emptyParagraphs[0].props['line-height'], '5cm');
  assert.is(d.headings[0].text, 'Placed title');
  assert.ok(d.paragraphs.includes('Body after the page section'));
  const { text, pages } = await libreOffice(bytes);
  assert.is(pages, 2, text);
  assert.ok(text.split('\f')[1]!.includes('Body after the page section'));
});

test('fails an ODT render of a part it cannot render with INVALID_DOCUMENT naming the path, and writes no file', async () => {
  const created = await api.post(RENDER, { config: { document: { type: 'odt' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Before' }, { type: 'math', latex: '\\frac{1}{' }] }] } });
  assert.is(created.status, 202, created.bytes.toString());
  const job = await waitFor(created.body.jobId);
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'INVALID_DOCUMENT');
  assert.match(job.error, 'sections[0].content[1]');
  assert.is(job.downloadUrl, null);
});

test('refuses a PDF profile for an ODT document with 400 naming pdfProfile', async () => {
  const r = await api.post(RENDER, { config: { document: { type: 'odt' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'x' }] }] }, pdfProfile: 'pdfua-1' });
  assert.is(r.status, 400, r.bytes.toString());
  assert.is(r.body.code, 'VALIDATION_FAILED');
  assert.equal(r.body.errors.map((e: Json) => [e.path, e.code]), [['pdfProfile', 'PDF_PROFILE_NOT_APPLICABLE']]);
});

test.run();
