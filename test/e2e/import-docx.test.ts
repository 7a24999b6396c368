// POST /import/docx/file through HTTP: DOCX files made by LibreOffice, by Quire's own DOCX target (round trip) and by hand
// (Word features, hostile packages); the returned document is rendered to PDF and read back with pdfjs. Placeholders: import-docx-placeholders.test.ts.
// test-stores: once (DOCX reading; its jobs and files reach the store as files.test's do).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import JSZip from 'jszip';
import { createCanvas } from '@napi-rs/canvas';
import { OWNER_KEY, type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf } from '../fixtures/pdfs.js';
import { pdfPageTexts } from '../fixtures/pdf-readers.js';
import { pngSize } from '../helpers/image-readers.js';
import { encodeCanvas } from '../../engines/image/encode-canvas.js';

type Json = Record<string, any>;
const IMPORT = '/api/v1/dev/import/docx/file';
const run = promisify(execFile);

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started));

// ---------------------------------------------------------------- helpers

async function importFile(bytes: Uint8Array, name: string, options: Json = {}): Promise<{ status: number; body: Json }> {
  const fileId = await api.uploadId(bytes, name);
  const r = await api.post(IMPORT, { fileId, ...options });
  return { status: r.status, body: r.body };
}

async function imported(bytes: Uint8Array, name: string, options: Json = {}): Promise<{ document: Json; report: Json }> {
  const r = await importFile(bytes, name, options);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { document: Json; report: Json };
}

/** LibreOffice (headless, a private profile) converts one HTML file to DOCX. */
async function libreOfficeDocx(html: string): Promise<Buffer> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'quire-import-lo-'));
  try {
    await writeFile(path.join(work, 'fixture.html'), html);
    await run('soffice', [`-env:UserInstallation=file://${work}/profile`, '--headless', '--norestore', '--convert-to', 'docx:MS Word 2007 XML', '--outdir', work, path.join(work, 'fixture.html')], { timeout: 120_000 });
    return await readFile(path.join(work, 'fixture.docx'));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Renders document JSON with POST /render and downloads the output. */
async function render(config: Json): Promise<Buffer> {
  const created = await api.post('/api/v1/dev/render', { config });
  assert.is(created.status, 202, created.bytes.toString());
  const job = (await api.get(`/api/v1/dev/render/${created.body.jobId}?waitMs=30000`)).body;
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  return (await api.download(job.downloadUrl)).bytes;
}

function content(doc: Json): any[] {
  return doc.sections.flatMap((s: Json) => s.content);
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

/** A minimal DOCX package written entry by entry, for Word features and hostile shapes no converter writes. */
async function handMadeDocx(bodyXml: string, extra: Record<string, string | Uint8Array> = {}, documentRels = '', compression: 'DEFLATE' | 'STORE' = 'DEFLATE'): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/_rels/document.xml.rels', `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${documentRels}</Relationships>`);
  zip.file('word/document.xml', bodyXml.startsWith('<?xml') || bodyXml.startsWith('<!') ? bodyXml : `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${bodyXml}</w:body></w:document>`);
  for (const [name, data] of Object.entries(extra)) zip.file(name, data);
  return zip.generateAsync({ type: 'nodebuffer', compression });
}

async function credits(): Promise<number> {
  return (await api.get('/api/v1/dev/credits')).body.balance as number;
}

// ---------------------------------------------------------------- LibreOffice fixture

const LO_HTML = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Quarterly Field Report</title><meta name="author" content="Ada Writer"></head><body>
<h1>Harvest Overview</h1>
<p>Plain text with <b>bold words</b>, <i>italic words</i>, <u>underlined words</u> and <a href="https://example.com/harvest">the harvest page</a>.</p>
<p>Literal markup stays text: *stars* [brackets] {{not a var}} ~ABBR~ $5 and $6 @[cite] ^[note]</p>
<h2>Orchard Details</h2>
<ul><li>Apples overall<ul><li>Granny Smith rows</li></ul></li><li>Pears overall</li></ul>
<ol><li>Pick the fruit</li><li>Sort the crates</li></ol>
<table border="1"><thead><tr><th>Variety</th><th>Crates</th><th>Remark</th></tr></thead>
<tbody><tr><td colspan="2">Merged across two</td><td rowspan="2">Merged down two</td></tr><tr><td>Fuji</td><td>42</td></tr></tbody></table>
<p><img src="data:image/png;base64,${(await (async () => {
  const c = createCanvas(30, 20);
  const g = c.getContext('2d');
  g.fillStyle = '#2a7';
  g.fillRect(0, 0, 30, 20);
  return (await encodeCanvas(c, 'png')).toString('base64');
})())}" width="60" height="40"></p>
</body></html>`;

test('imports a DOCX made by LibreOffice: headings, emphasis, link, escaped literals, nested lists, table with header row and spans, image, metadata', async () => {
  const docx = await libreOfficeDocx(LO_HTML);
  const before = await credits();
  const { document, report } = await imported(docx, 'field-report.docx');
  assert.is(await credits(), before - 1, 'one credit charged');
  assert.is(document.document.title, 'Quarterly Field Report');
  assert.is(document.document.author, 'Ada Writer');
  assert.is(document.document.filename, 'field-report');
  const els = content(document);
  assert.equal(els.filter((e) => /^h\d$/.test(e.type)).map((e) => [e.type, e.text]), [['h1', 'Harvest Overview'], ['h2', 'Orchard Details']]);
  const paragraph = els.find((e) => e.type === 'text' && e.text.includes('Plain text'));
  assert.is(paragraph.text, 'Plain text with **bold words**, *italic words*, underlined words and [the harvest page](https://example.com/harvest).');
  const literal = els.find((e) => e.type === 'text' && e.text.includes('stars'));
  assert.is(literal.text, 'Literal markup stays text: \\*stars\\* \\[brackets] \\{{not a var}} \\~ABBR~ \\$5 and \\$6 \\@\\[cite] \\^\\[note]');
  const lists = els.filter((e) => e.type === 'list');
  assert.equal(lists.map((l) => [l.ordered, l.items]), [
    [false, [{ text: 'Apples overall', items: ['Granny Smith rows'] }, 'Pears overall']],
    [true, ['Pick the fruit', 'Sort the crates']],
  ]);
  const table = els.find((e) => e.type === 'table');
  assert.equal(table.rows, [{ cells: ['Variety', 'Crates', 'Remark'], header: true }, [{ text: 'Merged across two', colspan: 2 }, { text: 'Merged down two', rowspan: 2 }], ['Fuji', '42']]);
  const image = els.find((e) => e.type === 'image');
  assert.match(image.src, /^\/temp-image\/[0-9a-f-]{36}$/);
  assert.ok(report.warnings.some((w: Json) => w.code === 'UNDERLINE_DROPPED' && /^word\/document\.xml paragraph \d+$/.test(w.location)), JSON.stringify(report.warnings));
  assert.ok(report.score < 100 && report.score >= 90, `score ${report.score}`);
  assert.equal(report.summary, { paragraphs: 2, headings: 2, lists: 2, tables: 1, images: 1, footnotes: 0, pageBreaks: 0 });
  assert.equal(report.variables, [], '{{not a var}} is no variable name');
  assert.is(document.variables, undefined);

  // The imported document renders; the PDF (read by pdfjs) carries the source's text and the literal characters.
  const pdf = await render(document);
  const text = (await pdfPageTexts(pdf)).join(' ');
  for (const s of ['Harvest Overview', 'bold words', 'the harvest page', '*stars* [brackets] {{not a var}} ~ABBR~ $5 and $6 @[cite] ^[note]', 'Granny Smith rows', 'Merged down two', 'Fuji']) {
    assert.ok(text.includes(s), `PDF text lacks "${s}": ${text}`);
  }
});

// ---------------------------------------------------------------- python-docx fixture (Word's built-in styles)

/** python-docx (its Word template: Heading n, List Bullet/List Bullet 2/List Number styles) writes a DOCX. */
async function pythonDocx(): Promise<Buffer> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'quire-import-pd-'));
  const script = `
import sys, docx
from docx.shared import Cm
from docx.oxml import OxmlElement
d = docx.Document()
d.core_properties.title = 'Python Docx Fixture'
d.core_properties.author = 'Grace Builder'
s = d.sections[0]
s.page_width, s.page_height = Cm(21.59), Cm(27.94)
s.top_margin = s.bottom_margin = Cm(2); s.left_margin = Cm(2.5); s.right_margin = Cm(1.5)
s.header.paragraphs[0].text = 'Fixture header {{not a variable}}'
d.add_heading('Chapter One', level=1)
d.add_heading('Section Three Deep', level=3)
p = d.add_paragraph('Start ')
p.add_run('bold').bold = True
p.add_run(' and ')
p.add_run('italic').italic = True
p.add_run(' end.')
d.add_paragraph('Bullet top', style='List Bullet')
d.add_paragraph('Bullet nested', style='List Bullet 2')
d.add_paragraph('Number one', style='List Number')
d.add_paragraph('Number two', style='List Number')
t = d.add_table(rows=3, cols=3)
for i, h in enumerate(['H1', 'H2', 'H3']): t.cell(0, i).text = h
t.cell(1, 0).merge(t.cell(1, 1)).text = 'Wide'
t.cell(1, 2).merge(t.cell(2, 2)).text = 'Tall'
t.cell(2, 0).text = 'a'; t.cell(2, 1).text = 'b'
t.rows[0]._tr.get_or_add_trPr().append(OxmlElement('w:tblHeader'))
d.save(sys.argv[1])
`;
  try {
    await writeFile(path.join(work, 'make.py'), script);
    await run('/usr/bin/python3', [path.join(work, 'make.py'), path.join(work, 'fixture.docx')], { timeout: 60_000 });
    return await readFile(path.join(work, 'fixture.docx'));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

test('imports a DOCX written by python-docx: Word heading and list styles, merged cells, Letter page, header', async () => {
  const { document, report } = await imported(await pythonDocx(), 'python.docx');
  assert.equal(
    { title: document.document.title, author: document.document.author, size: document.document.size, orientation: document.document.orientation },
    { title: 'Python Docx Fixture', author: 'Grace Builder', size: 'Letter', orientation: 'portrait' },
  );
  assert.equal([document.document.marginTop, document.document.marginRight, document.document.marginBottom, document.document.marginLeft], [2, 1.5, 2, 2.5]);
  assert.is(document.defaults.header.text, 'Fixture header {{not a variable}}', 'header text is plain text: only {{page}}, {{pages}} and defined variables are read in it');
  const els = content(document);
  assert.equal(els.map((e) => e.type), ['h1', 'h3', 'text', 'list', 'list', 'table']);
  assert.is(els[2].text, 'Start **bold** and *italic* end.');
  assert.equal(els[3].items, [{ text: 'Bullet top', items: ['Bullet nested'] }], 'List Bullet 2 nests under List Bullet');
  assert.equal([els[4].ordered, els[4].items], [true, ['Number one', 'Number two']]);
  assert.equal(els[5].rows, [{ cells: ['H1', 'H2', 'H3'], header: true }, [{ text: 'Wide', colspan: 2 }, { text: 'Tall', rowspan: 2 }], ['a', 'b']]);
  assert.is(report.score, 100);
  const text = (await pdfPageTexts(await render(document))).join(' ');
  for (const s of ['Chapter One', 'Section Three Deep', 'Bullet nested', 'Number two', 'Wide', 'Tall', 'Fixture header {{not a variable}}']) assert.ok(text.includes(s), `PDF text lacks "${s}": ${text}`);
});

// ---------------------------------------------------------------- round trip through Quire's DOCX target

test('round trip: a document rendered to DOCX by Quire imports back to the same structure', async () => {
  const canvas = createCanvas(48, 32);
  const g = canvas.getContext('2d');
  g.fillStyle = '#1144cc';
  g.fillRect(0, 0, 48, 32);
  const png = await encodeCanvas(canvas, 'png');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)]), 'blue.png');
  const uploaded = (await (await fetch(`${api.baseUrl}/api/v1/dev/images/upload`, { method: 'POST', headers: { 'X-API-Key': OWNER_KEY }, body: form })).json()) as Json;
  const source = {
    document: { type: 'docx', title: 'Round Trip Report', author: 'Quire Tester', size: 'Letter', orientation: 'landscape', marginTop: 2, marginRight: 1.5, marginBottom: 2, marginLeft: 3 },
    defaults: { header: { text: 'Round trip header' }, footer: { text: 'Page {{page}} of {{pages}}' } },
    sections: [
      {
        type: 'flow',
        content: [
          { type: 'h1', text: 'First Chapter' },
          { type: 'text', text: 'Some **strong** and *emphasised* text with [a link](https://example.org/page) and a note.^[The footnote text.]' },
          { type: 'text', text: 'Escapes survive: \\*not bold\\* \\[x] \\{{var}} \\~K~ \\$9' },
          { type: 'h2', text: 'Lists' },
          { type: 'list', items: ['Alpha', { text: 'Beta', items: ['Beta one', 'Beta two'] }, 'Gamma'] },
          { type: 'list', ordered: true, items: ['One', 'Two'] },
          { type: 'h2', text: 'Table' },
          {
            type: 'table',
            headerRows: 1,
            rows: [
              ['Region', 'Q1', 'Q2'],
              [{ text: 'North', rowspan: 2 }, { text: 'Both quarters', colspan: 2 }],
              ['10', '20'],
            ],
          },
          { type: 'image', src: uploaded.path, alt: 'A blue box', width: 4 },
        ],
      },
    ],
  };
  const docx = await render(source);
  // The source's escaped \{{var}} is literal text in Word; importing with placeholders "literal" gives it back escaped.
  const { document, report } = await imported(docx, 'round-trip.docx', { placeholders: 'literal' });
  assert.is(document.document.title, 'Round Trip Report');
  assert.is(document.document.author, 'Quire Tester');
  assert.is(document.document.size, 'Letter');
  assert.is(document.document.orientation, 'landscape');
  for (const side of ['marginTop', 'marginRight', 'marginBottom', 'marginLeft'] as const) {
    assert.ok(Math.abs(document.document[side] - source.document[side]) < 0.05, `${side}: ${document.document[side]}`);
  }
  assert.is(document.defaults.header.text, 'Round trip header');
  assert.is(document.defaults.footer.text, 'Page {{page}} of {{pages}}');
  const els = content(document);
  const src = source.sections[0]!.content as Json[];
  assert.equal(els.filter((e) => /^h\d$/.test(e.type)).map((e) => [e.type, e.text]), src.filter((e) => /^h\d$/.test(e.type)).map((e) => [e.type, e.text]));
  const texts = els.filter((e) => e.type === 'text').map((e) => e.text);
  assert.equal(texts, [src[1]!.text, src[2]!.text]);
  assert.equal(els.filter((e) => e.type === 'list').map((l) => [l.ordered, l.items]), [[false, src[4]!.items], [true, src[5]!.items]]);
  const table = els.find((e) => e.type === 'table');
  assert.equal(table.rows, [{ cells: ['Region', 'Q1', 'Q2'], header: true }, [{ text: 'North', rowspan: 2 }, { text: 'Both quarters', colspan: 2 }], ['10', '20']]);
  const image = els.find((e) => e.type === 'image');
  assert.is(image.alt, 'A blue box');
  assert.ok(Math.abs(image.width - 4) < 0.05, `width ${image.width}`);
  assert.match(image.src, /^\/temp-image\/[0-9a-f-]{36}$/);
  assert.is.not(image.src, uploaded.path, 'a new temporary image');
  assert.is(report.summary.footnotes, 1);

  // The imported image is the same picture, and the document renders to a PDF holding the text.
  const pdf = await render({ ...document, document: { ...document.document, type: 'pdf' } });
  const text = (await pdfPageTexts(pdf)).join(' ');
  for (const s of ['First Chapter', 'strong', 'a link', '*not bold* [x] {{var}} ~K~ $9', 'Beta two', 'Both quarters', 'Round trip header', 'The footnote text.']) {
    assert.ok(text.includes(s), `PDF text lacks "${s}": ${text}`);
  }
  const reimportedImage = await render({ document: { type: 'docx' }, sections: [{ type: 'flow', content: [image] }] });
  const media = await JSZip.loadAsync(reimportedImage);
  const pngs = Object.keys(media.files).filter((n) => n.startsWith('word/media/'));
  assert.is(pngs.length, 1);
  assert.equal(pngSize(await media.file(pngs[0]!)!.async('nodebuffer')), { width: 48, height: 32 });
});

// ---------------------------------------------------------------- Word features written by hand

test('accepts tracked insertions, drops deletions, comments, text boxes and underline, and says so with locations', async () => {
  const body =
    '<w:p><w:r><w:t xml:space="preserve">Kept </w:t></w:r><w:ins w:id="1" w:author="A"><w:r><w:t>inserted</w:t></w:r></w:ins><w:del w:id="2" w:author="A"><w:r><w:delText>deleted</w:delText></w:r></w:del><w:r><w:t xml:space="preserve"> end</w:t></w:r></w:p>' +
    '<w:p><w:r><w:rPr><w:u w:val="single"/></w:rPr><w:t>under</w:t></w:r><w:r><w:commentReference w:id="0"/></w:r></w:p>' +
    '<w:p><w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent><w:p><w:r><w:t>Boxed text</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></w:r><w:r><w:t>After box &amp; &lt;tags&gt; &#x263A;</w:t></w:r></w:p>' +
    '<w:p><w:hyperlink w:anchor="somewhere"><w:r><w:t>internal link</w:t></w:r></w:hyperlink><w:r><w:br w:type="page"/></w:r></w:p>' +
    '<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">Bold with edge space </w:t></w:r><w:r><w:t>plain</w:t></w:r></w:p>' +
    '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1134" w:right="1134" w:bottom="1134" w:left="1701"/></w:sectPr>';
  const { document, report } = await imported(await handMadeDocx(body), 'word-features.docx');
  const els = content(document);
  assert.equal(els.map((e) => e.type === 'text' ? e.text : e.type), ['Kept inserted end', 'under', 'After box & <tags> ☺', 'internal link', 'pageBreak', '**Bold with edge space** plain']);
  const codes = (c: string) => report.warnings.filter((w: Json) => w.code === c);
  assert.is(codes('TRACKED_INSERTION_ACCEPTED').length, 1);
  assert.is(codes('TRACKED_DELETION_DROPPED')[0].location, 'word/document.xml paragraph 1');
  assert.match(codes('TRACKED_DELETION_DROPPED')[0].message, /deleted/);
  assert.is(codes('UNDERLINE_DROPPED')[0].location, 'word/document.xml paragraph 2');
  assert.is(codes('COMMENT_DROPPED')[0].location, 'word/document.xml paragraph 2');
  assert.match(codes('TEXT_BOX_DROPPED')[0].message, /Boxed text/);
  assert.is(codes('TEXT_BOX_DROPPED')[0].location, 'word/document.xml paragraph 3');
  assert.is(codes('LINK_DROPPED')[0].location, 'word/document.xml paragraph 4');
  assert.equal(document.document.size, 'A4');
  assert.ok(Math.abs(document.document.marginLeft - 3) < 0.01);
  assert.ok(report.score < 95, `score ${report.score}`);
  assert.ok(report.dropped.some((d: Json) => d.code === 'TEXT_BOX_DROPPED' && d.count === 1));
});

// ---------------------------------------------------------------- refusals

test('refuses a file that is not a DOCX with 415, and an unknown id with 404', async () => {
  const pdf = await api.uploadId(await makePdf(1), 'doc.pdf');
  const r = await api.post(IMPORT, { fileId: pdf });
  assert.is(r.status, 415);
  assert.match(r.body.detail, /^fileId:/);
  const missing = await api.post(IMPORT, { fileId: '00000000-0000-4000-8000-000000000000' });
  assert.is(missing.status, 404);
  const bad = await api.post(IMPORT, { fileId: pdf, extra: 1 });
  assert.is(bad.status, 400);
});

test('refuses a zip bomb (an entry inflating thousands of times) with 422 DOCX_TOO_LARGE, charging nothing', async () => {
  const before = await credits();
  const bomb = await handMadeDocx('<w:p><w:r><w:t>small</w:t></w:r></w:p>', { 'word/media/padding.bin': new Uint8Array(60 * 1024 * 1024) });
  assert.ok(bomb.length < 200 * 1024, `the bomb is ${bomb.length} bytes`);
  const r = await importFile(bomb, 'bomb.docx');
  assert.is(r.status, 422, JSON.stringify(r.body));
  assert.is(r.body.code, 'IMPORT_FAILED');
  assert.is(r.body.errors[0].code, 'DOCX_TOO_LARGE');
  assert.match(r.body.detail, /inflates/);
  assert.is(await credits(), before, 'a failed import costs nothing');
});

test('refuses a DTD entity bomb (billion laughs) with 422 DOCX_INVALID', async () => {
  const laughs = `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><w:document ${W}><w:body><w:p><w:r><w:t>&c;</w:t></w:r></w:p></w:body></w:document>`;
  const r = await importFile(await handMadeDocx(laughs), 'laughs.docx');
  assert.is(r.status, 422, JSON.stringify(r.body));
  assert.is(r.body.errors[0].code, 'DOCX_INVALID');
  assert.match(r.body.detail, /DTD/);
});

test('refuses XML nested 200,000 elements deep with 422 DOCX_INVALID (no stack overflow), and still serves', async () => {
  const n = 200_000;
  const deep = await handMadeDocx(`${'<w:sdt><w:sdtContent>'.repeat(n)}<w:p/>${'</w:sdtContent></w:sdt>'.repeat(n)}`, {}, '', 'STORE');
  const r = await importFile(deep, 'deep.docx');
  assert.is(r.status, 422, JSON.stringify(r.body));
  assert.is(r.body.errors[0].code, 'DOCX_INVALID');
  const ok = await importFile(await handMadeDocx('<w:p><w:r><w:t>After the deep one</w:t></w:r></w:p>'), 'fine.docx');
  assert.is(ok.status, 200);
  assert.is(content(ok.body.document)[0].text, 'After the deep one');
});

test('never follows a relationship out of the package: a path-traversal image target is left out with a warning', async () => {
  const body = '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="360000" cy="360000"/><wp:docPr id="1" name="x" descr="escape"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:blipFill><a:blip r:embed="rIdEvil"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r><w:r><w:t>Text stays</w:t></w:r></w:p>';
  const rels = '<Relationship Id="rIdEvil" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="../../../../../etc/passwd"/>';
  const { document, report } = await imported(await handMadeDocx(body, { '../evil.xml': '<x/>' }, rels), 'traversal.docx');
  assert.equal(content(document).map((e) => e.type), ['text']);
  assert.ok(report.warnings.some((w: Json) => w.code === 'IMAGE_UNSUPPORTED'), JSON.stringify(report.warnings));
});

test.run();
