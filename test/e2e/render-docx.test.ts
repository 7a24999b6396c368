// DOCX output end to end: POST /render and POST /render/markdown with document.type docx → poll → download,
// read back by python-docx (styles, tables, sections, core properties), by LibreOffice (DOCX → PDF → text)
// and by reading the package's XML parts (Office Math, numbering, fields), never by the code that wrote it.
// test-stores: once (DOCX output read back; its jobs reach the store as render.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import JSZip from 'jszip';
import { XMLValidator } from 'fast-xml-parser';
import { startServer, OWNER_KEY, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { renderAndDownload, uploadRedPng, waitForRender } from '../helpers/render-jobs.js';
import { pythonDocx } from '../helpers/python-docx.js';
import { countOf as count, officeToPdfText, oneLine } from '../helpers/office-text.js';
import { escapeMarkup, HOSTILE_STRINGS, RICH_OFFICE_TEXTS, richOfficeDocument } from '../fixtures/documents.js';

type Json = Record<string, any>;

const RENDER = '/api/v1/dev/render';
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const EMU_PER_CM = 360000;

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

function renderDocx(pathname: string, body: Json): Promise<{ job: Json; bytes: Buffer }> {
  return renderAndDownload(api, pathname, body, 'DOCX', DOCX_MIME);
}

/** Every XML part of the package, by name. */
async function xmlParts(bytes: Buffer): Promise<Map<string, string>> {
  const zip = await JSZip.loadAsync(bytes);
  const parts = new Map<string, string>();
  for (const name of Object.keys(zip.files)) {
    if (/\.(xml|rels)$/.test(name)) parts.set(name, await zip.file(name)!.async('string'));
  }
  return parts;
}



// ---------------------------------------------------------------- the rich document

let rich: { job: Json; bytes: Buffer } | null = null;
async function richDocx(): Promise<{ job: Json; bytes: Buffer }> {
  rich ??= await renderDocx(RENDER, { config: richOfficeDocument('docx', { png }) });
  return rich;
}

test('renders document JSON with document.type docx: a DOCX job with its file name, no PDF facts, 1 credit', async () => {
  const { job, bytes } = await richDocx();
  assert.is(job.format, 'DOCX');
  assert.is(job.filename, 'catalogue.docx');
  assert.is(job.creditCost, 1);
  assert.is(job.pdfCompliance, null);
  assert.is(job.pageCount, null);
  assert.ok(Array.isArray(job.warnings));
  assert.is(bytes.subarray(0, 2).toString('latin1'), 'PK');
  const download = await api.download(job.downloadUrl);
  assert.match(download.headers.get('content-disposition') ?? '', /catalogue\.docx/);
});

test('python-docx reads heading styles with outline levels, core properties, page size and sections', async () => {
  const d = await pythonDocx((await richDocx()).bytes);
  assert.equal(d.core, { title: 'Element catalogue', author: 'Quire', subject: 'Every element', keywords: 'test', created: d.core.created, modified: d.core.created, description: null });
  assert.ok(d.core.created, 'core properties carry a creation date');
  const heading = (text: string) => d.paragraphs.find((p: Json) => p.text === text);
  for (const [text, level] of [['Introduction', 1], ['Lists', 2], ['Results', 2], ['Third level', 3], ['Fourth level', 4], ['Closing', 1], ['Cover page title', 1]] as const) {
    const p = heading(text);
    assert.ok(p, `heading "${text}" in ${JSON.stringify(d.paragraphs.map((x: Json) => x.text))}`);
    assert.is(p.styleId, `Heading${level}`, text);
    assert.is(p.style, `Heading ${level}`, text);
    assert.is(p.outlineLevel, level - 1, `${text}: outline level`);
  }
  const texts = d.paragraphs.map((p: Json) => p.text).join('\n');
  for (const s of ['Plain, bold, italic, inline code', 'Application Programming Interface', 'Hello from a variable', 'Simplicity is prerequisite for reliability.', 'A paragraph after the fourth level heading.', 'Two-column text.']) {
    assert.ok(texts.includes(s), `paragraph text "${s}"`);
  }
  const bullets = d.paragraphs.filter((p: Json) => p.numbered).map((p: Json) => p.text);
  for (const s of ['First bullet', 'Nested one', 'Step three', 'Sign', 'Return']) assert.ok(bullets.includes(s), `numbered paragraph "${s}" in ${JSON.stringify(bullets)}`);
  // Three sections: the cover page, the body (new page), the two columns (continuous).
  assert.is(d.sections.length, 3);
  for (const s of d.sections) {
    assert.is(s.pageWidthCm, 21);
    assert.is(s.pageHeightCm, 29.7);
  }
  assert.match(d.sections[2].start, /CONTINUOUS/);
  assert.is(d.sections[2].columns, 2);
  assert.is(d.sections[0].titlePage, true, 'skipFirstPage: the first section has a distinct first page');
  assert.equal(d.sections[0].header, ['Quire catalogue header']);
});

test('python-docx reads tables: cell text, spans and the repeated header row', async () => {
  const d = await pythonDocx((await richDocx()).bytes);
  const sales = d.tables.find((t: Json[]) => t[0].cells[0] === 'Region');
  assert.ok(sales, JSON.stringify(d.tables));
  assert.equal(sales.map((r: Json) => r.header), [true, false, false, false]);
  assert.equal(sales[0].cells, ['Region', 'Q1', 'Q2']);
  assert.equal(sales[1].cells, ['North', '10', '12']);
  // python-docx shows a merged cell in every grid cell it covers.
  assert.equal(sales[2].cells, ['South', 'SpanBoth', 'SpanBoth']);
  assert.equal(sales[3].cells, ['South', '7', '8']);
  const items = d.tables.find((t: Json[]) => t.some((r) => r.cells.includes('Pen')));
  assert.ok(items, 'the table from a table variable');
  assert.ok(items.some((r: Json) => r.cells.includes('Ink')));
});

test('the package holds Office Math, list numbering, captions as SEQ fields, TOC fields, columns and page fields, all well-formed', async () => {
  const parts = await xmlParts((await richDocx()).bytes);
  for (const [name, xml] of parts) assert.is(XMLValidator.validate(xml), true, `${name} is well-formed XML`);
  const body = parts.get('word/document.xml')!;
  // Inline $x^2 + y^2$ and the display integral, in the OMML namespace.
  assert.ok(count(body, '<m:oMath>') >= 2, 'm:oMath elements');
  assert.ok(count(body, '<m:oMathPara>') >= 1, 'a display equation in m:oMathPara');
  assert.ok(/<m:nary>|<m:f>/.test(body), 'the integral/fraction is structured math, not text');
  // Lists: bullets and decimals; the ordered list starts at 3; each list is its own numbering instance.
  const numbering = parts.get('word/numbering.xml')!;
  assert.match(numbering, /<w:numFmt w:val="bullet"\/>/);
  assert.match(numbering, /<w:numFmt w:val="decimal"\/>/);
  assert.match(numbering, /<w:start w:val="3"\/>/);
  const numIds = new Set([...body.matchAll(/<w:numId w:val="(\d+)"\/>/g)].map((m) => m[1]));
  assert.ok(numIds.size >= 3, `one numbering instance per list (bullets, from 3, steps variable): ${[...numIds]}`);
  // Captions: a SEQ field per kind, showing Quire's number.
  assert.match(body, /w:instr="SEQ Table \\\* ARABIC"/);
  assert.match(body, /w:instr="SEQ Figure \\\* ARABIC"/);
  // TOC, list of figures, list of tables: fields Word can update.
  assert.match(body, /TOC \\h \\o &quot;1-3&quot;|TOC \\o &quot;1-3&quot; \\h/);
  assert.match(body, /TOC \\c &quot;Figure&quot;|TOC \\h \\c &quot;Figure&quot;/);
  assert.match(body, /TOC \\c &quot;Table&quot;|TOC \\h \\c &quot;Table&quot;/);
  assert.match(parts.get('word/settings.xml')!, /<w:updateFields w:val="true"\/>|<w:updateFields\/>/);
  // Sections: two columns with a separator line in a continuous section; the cover page centred.
  assert.match(body, /<w:cols [^>]*w:num="2"[^>]*\/>/);
  assert.match(body, /<w:cols [^>]*w:sep="(true|1)"/);
  assert.match(body, /<w:type w:val="continuous"\/>/);
  assert.match(body, /<w:vAlign w:val="center"\/>/);
  // Internal links jump to bookmarks of the same names.
  for (const id of ['results', 'eq-integral', 'fig-revenue']) {
    const name = /^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(id) ? id : null;
    const anchor = [...body.matchAll(/<w:hyperlink [^>]*w:anchor="([^"]+)"/g)].map((m) => m[1]!);
    const marks = new Set([...body.matchAll(/<w:bookmarkStart [^>]*w:name="([^"]+)"/g)].map((m) => m[1]!));
    if (name) assert.ok(anchor.includes(name) && marks.has(name), `link and bookmark ${id}`);
    for (const a of anchor) assert.ok(marks.has(a), `hyperlink anchor ${a} has a bookmark`);
  }
  // Footer: PAGE and NUMPAGES fields.
  const footers = [...parts].filter(([n]) => /^word\/footer\d+\.xml$/.test(n)).map(([, x]) => x).join('');
  assert.match(footers, /PAGE/);
  assert.match(footers, /NUMPAGES/);
  // Footnote text in the footnotes part.
  assert.match(parts.get('word/footnotes.xml')!, /Footnote text here\./);
});

test('the uploaded image is embedded at the requested size in EMU with its alt text', async () => {
  const { bytes } = await richDocx();
  const zip = await JSZip.loadAsync(bytes);
  const media = Object.keys(zip.files).filter((n) => n.startsWith('word/media/'));
  assert.ok(media.length >= 1 + 5 + 2, `the image, five charts, the QR code and the barcode as pictures: ${media}`);
  const d = await pythonDocx(bytes);
  const red = d.images.find((i: Json) => i.description === 'A red square');
  assert.ok(red, JSON.stringify(d.images));
  // width: 3 (cm); the height keeps the 40 × 30 aspect ratio.
  assert.ok(Math.abs(red.widthEmu - 3 * EMU_PER_CM) <= 1, `width ${red.widthEmu} EMU`);
  assert.ok(Math.abs(red.heightEmu - 2.25 * EMU_PER_CM) <= 1, `height ${red.heightEmu} EMU`);
  for (const i of d.images) assert.ok(typeof i.description === 'string' && i.description.length > 0, `every picture has alt text: ${JSON.stringify(i)}`);
});

test('LibreOffice opens the DOCX and its PDF holds every paragraph, cell, footnote, caption, TOC entry, header, footer and reference', async () => {
  const raw = await officeToPdfText((await richDocx()).bytes, 'docx');
  const text = oneLine(raw);
  for (const s of RICH_OFFICE_TEXTS) assert.ok(text.includes(s), `"${s}" is in the text LibreOffice renders:\n${text}`);
  // The TOC and the lists of figures/tables show their entries before any field update: each heading and
  // caption appears twice (the entry and the element itself).
  for (const s of ['Introduction', 'Results', 'Sales by region', 'Revenue by quarter']) assert.ok(count(text, s) >= 2, `"${s}" in the TOC/lists and in the body`);
  // The footer (skipFirstPage) is left out on the first page only; the header (no skipFirstPage) is on every
  // page. pdftotext ends each page with a form feed.
  const pages = raw.split('\f');
  assert.ok(pages[0]!.includes('Cover page title'), pages[0]);
  assert.ok(pages[0]!.includes('Quire catalogue header'), 'the header is on the cover page');
  assert.not.ok(/Page \d+ of/.test(pages[0]!), 'no footer on the cover page');
  assert.ok(pages[1]!.includes('Quire catalogue header') && /Page 2 of \d+/.test(pages[1]!), `header and footer on page 2:\n${pages[1]}`);
});

test('hostile strings print literally, in text, headings, cells and core properties, and every part stays well-formed', async () => {
  const strings = [...HOSTILE_STRINGS, 'xml </w:t><w:t>injected & "quoted" <b>', ']]> cdata end', 'tab\there'];
  // As many strings as fit the 200 characters of a title, the XML injection first.
  const title = [...strings].reverse().reduce((t, s) => (t.length + s.length + 3 <= 200 ? (t ? `${t} | ${s}` : s) : t), '');
  const config = {
    document: { type: 'docx', filename: 'hostile', title, author: strings[0], subject: strings[2], keywords: strings.slice(0, 3) },
    sections: [
      {
        type: 'flow',
        content: [
          ...strings.map((s) => ({ type: 'h2', text: escapeMarkup(s) })),
          ...strings.map((s) => ({ type: 'text', text: escapeMarkup(s) })),
          { type: 'table', headerRows: 1, rows: [['Header'], ...strings.map((s) => [escapeMarkup(s)])] },
          { type: 'code', code: strings.join('\n') },
          { type: 'math', latex: String.raw`\text{a<b \& "c"} \mathrm{x} < y` },
          // Characters XML 1.0 cannot carry at all are dropped, the rest of the text stays.
          { type: 'text', text: 'control\u0001char\uFFFF end' },
        ],
      },
    ],
  };
  const { bytes } = await renderDocx(RENDER, { config });
  const parts = await xmlParts(bytes);
  for (const [name, xml] of parts) assert.is(XMLValidator.validate(xml), true, `${name} is well-formed XML`);
  const d = await pythonDocx(bytes);
  const paragraphs = d.paragraphs.map((p: Json) => p.text);
  const cells = d.tables[0].slice(1).map((r: Json) => r.cells[0]);
  for (const s of strings) {
    assert.ok(paragraphs.filter((p: string) => p === s).length >= 3, `heading, paragraph and code line print ${JSON.stringify(s)}`);
    assert.ok(cells.includes(s), `a table cell prints ${JSON.stringify(s)}`);
  }
  assert.ok(paragraphs.includes('controlchar end'), 'controls and U+FFFF are dropped from the text');
  // The equation's text keeps its specials as escaped character data (Temml writes \text spaces as U+00A0),
  // and no property Word refuses.
  const body = parts.get('word/document.xml')!;
  assert.ok(/<m:t xml:space="preserve">a&lt;b\s&amp;\s/.test(body), body.match(/<m:oMath>.*?<\/m:oMath>/g)?.join('\n'));
  assert.not.match(body, /m:val="undefined"/);
  assert.is(d.core.title, title);
  assert.is(d.core.author, strings[0]);
  assert.is(d.core.keywords, strings.slice(0, 3).join(', '));
});

test('renders Extended Markdown with document.type docx through POST /render/markdown', async () => {
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
    '::bibliography',
  ].join('\n');
  const { job, bytes } = await renderDocx(`${RENDER}/markdown`, {
    content,
    document: { type: 'docx', filename: 'note', title: 'Quarterly note', size: 'A5', orientation: 'landscape', marginLeft: 1.5 },
    variables: { client: 'ACME' },
    abbreviations: { API: 'Application Programming Interface' },
    citations: [{ id: 'smith2020', type: 'book', title: 'On documents', author: [{ family: 'Smith', given: 'Ann' }], issued: { 'date-parts': [[2020]] } }],
  });
  assert.is(job.filename, 'note.docx');
  const d = await pythonDocx(bytes);
  assert.is(d.core.title, 'Quarterly note');
  assert.match(d.sections[0].orientation, /LANDSCAPE/);
  assert.equal([d.sections[0].pageWidthCm, d.sections[0].pageHeightCm, d.sections[0].leftMarginCm], [21, 14.8, 1.5]);
  const overview = d.paragraphs.find((p: Json) => p.text === 'Overview');
  assert.is(overview?.styleId, 'Heading1');
  assert.ok(d.paragraphs.some((p: Json) => p.text.startsWith('Prepared for ACME about the Application Programming Interface')), JSON.stringify(d.paragraphs));
  assert.equal(d.tables[0][0], { header: true, cells: ['Name', 'Value'] });
  const parts = await xmlParts(bytes);
  assert.match(parts.get('word/footnotes.xml')!, /A footnote from Markdown\./);
  assert.ok(d.paragraphs.some((p: Json) => p.text.includes('On documents')), 'the bibliography entry');
});

test('writes Pandoc-style front matter (title, author list, date, keywords, abstract) as the DOCX core properties, the ISO date as created and modified', async () => {
  const content = ['---', 'title: Field notes', 'subtitle: Spring', 'author: [Ada Lovelace, Alan Turing]', 'date: 2024-05-01', 'keywords: birds, spring', 'abstract: What we saw.', 'lang: en-GB', '---', '', 'Body.'].join('\n');
  const { bytes } = await renderDocx(`${RENDER}/markdown`, { content, document: { type: 'docx' } });
  const d = await pythonDocx(bytes);
  assert.equal(d.core, { title: 'Field notes', author: 'Ada Lovelace, Alan Turing', subject: '', keywords: 'birds, spring', created: '2024-05-01T00:00:00', modified: '2024-05-01T00:00:00', description: 'What we saw.' });
});

test('fails a DOCX render of a part it cannot render with INVALID_DOCUMENT naming the path, and writes no file', async () => {
  const created = await api.post(RENDER, { config: { document: { type: 'docx' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Before' }, { type: 'math', latex: '\\frac{1}{' }] }] } });
  assert.is(created.status, 202, created.bytes.toString());
  const job = await waitFor(created.body.jobId);
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'INVALID_DOCUMENT');
  assert.match(job.error, 'sections[0].content[1]');
  assert.is(job.downloadUrl, null);
});

test('refuses a PDF profile for a DOCX document with 400 naming pdfProfile', async () => {
  const r = await api.post(RENDER, { config: { document: { type: 'docx' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'x' }] }] }, pdfProfile: 'pdfa-2b' });
  assert.is(r.status, 400, r.bytes.toString());
  assert.is(r.body.code, 'VALIDATION_FAILED');
  assert.equal(r.body.errors.map((e: Json) => [e.path, e.code]), [['pdfProfile', 'PDF_PROFILE_NOT_APPLICABLE']]);
});

test.run();
