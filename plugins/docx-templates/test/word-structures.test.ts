// Hand-built DOCX as Word writes it (split runs, proofErr, bookmarks, revisions, smart tags, fields, text boxes, nested tables, notes) and hostile packages, through HTTP.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { type RunningServer, useServer } from '../../../test/helpers/quire-server.js';
import { ApiClient } from '../../../test/helpers/api-client.js';
import { canary, cell, docxReport, handDocx, handOdt, linkedPictureDocx, odtReport, p, pdfImageCount, pdfText, png, r, row, table } from './fixtures.js';

const ROUTE = '/api/v1/dev/tools/docx/replace-placeholders';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started));

async function job(bytes: Uint8Array, variables: Record<string, unknown>, outputFormat?: string, name = 'template.docx'): Promise<any> {
  const fileId = await api.uploadId(bytes, name);
  const created = await api.post(ROUTE, { fileId, variables, ...(outputFormat ? { outputFormat } : {}) });
  assert.is(created.status, 202, JSON.stringify(created.body));
  return api.waitForJob(created.body.id, 300_000);
}

async function output(j: any): Promise<Buffer> {
  assert.is(j.status, 'COMPLETED', j.error);
  return (await api.download(j.downloadUrl)).bytes;
}

const textBox = (inner: string) =>
  `<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="1" behindDoc="0" locked="0" layoutInCell="1" allowOverlap="1">` +
  `<wp:simplePos x="0" y="0"/><wp:positionH relativeFrom="column"><wp:posOffset>0</wp:posOffset></wp:positionH><wp:positionV relativeFrom="paragraph"><wp:posOffset>0</wp:posOffset></wp:positionV>` +
  `<wp:extent cx="1828800" cy="457200"/><wp:effectExtent l="0" t="0" r="0" b="0"/><wp:wrapNone/><wp:docPr id="7" name="Text Box 7"/><wp:cNvGraphicFramePr/>` +
  `<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:wsp><wps:cNvSpPr txBox="1"/><wps:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="1828800" cy="457200"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></wps:spPr>` +
  `<wps:txbx><w:txbxContent>${inner}</w:txbxContent></wps:txbx><wps:bodyPr/></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice>` +
  `<mc:Fallback><w:pict><v:shape id="tb7" style="width:144pt;height:36pt"><v:textbox><w:txbxContent>${inner}</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>`;

/** Every way Word breaks a placeholder apart, one paragraph each. */
function wordTemplate(): Promise<Uint8Array> {
  const body = [
    // 1. split over three runs with a proofing mark and a bookmark in between; the first run is plain, the middle one bold.
    p(r('Hello {'), '<w:proofErr w:type="spellStart"/>', r('{cli', true), '<w:bookmarkStart w:id="0" w:name="who"/>', r('ent}'), '<w:bookmarkEnd w:id="0"/>', '<w:proofErr w:type="spellEnd"/>', r('}, welcome.')),
    // 2. revision marks: inserted runs count, deleted text does not.
    p(r('City: '), `<w:ins w:id="1" w:author="A" w:date="2024-01-01T00:00:00Z">${r('{{ci')}</w:ins>`, `<w:del w:id="2" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:delText>XX</w:delText></w:r></w:del>`, r('ty}}.')),
    p(r('Deleted: '), `<w:del w:id="3" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:delText>{{city}}</w:delText></w:r></w:del>`, r('end.')),
    // 3. a smart tag around part of it, and the ${} syntax.
    p(r('Tagged: '), `<w:smartTag w:uri="urn:schemas-microsoft-com:office:smarttags" w:element="place">${r('${ci')}</w:smartTag>`, r('ty}!')),
    // 4. inside a field result (fldSimple) and a complex field's result between separate and end.
    p(`<w:fldSimple w:instr=" DOCPROPERTY Title "><w:r><w:t>{{title}}</w:t></w:r></w:fldSimple>`),
    p('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> REF who </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>', r('{{ti'), r('tle}}'), '<w:r><w:fldChar w:fldCharType="end"/></w:r>'),
    // 5. a hyperlink's text.
    p(`<w:hyperlink w:anchor="who">${r('{{link}}')}</w:hyperlink>`),
    // 6. a text box (DrawingML with a VML fallback).
    p(r('Box: '), textBox(p(r('{{boxed}}')))),
    // 7. a nested table: the inner table's data row repeats.
    table(row(cell(p(r('Outer {{title}}'))), cell(table(row(cell(p(r('A'))), cell(p(r('B')))), row(cell(p(r('{{lines.a}}'))), cell(p(r('{{li'), r('nes.b}}')))))))),
    // 8. a footnote and an endnote reference.
    p(r('Noted'), '<w:r><w:footnoteReference w:id="1"/></w:r>', r(' and '), '<w:r><w:endnoteReference w:id="1"/></w:r>'),
    // 9. a multi-line value and a tab.
    p(r('Address: {{address}}')),
  ].join('');
  const note = (kind: 'footnote' | 'endnote', text: string) =>
    `<w:${kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:${kind}><w:${kind} w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:${kind}>` +
    `<w:${kind} w:id="1">${p(r(text))}</w:${kind}>`;
  return handDocx({
    body,
    header: p(r('Head {{ti'), r('tle}}')),
    footer: p(r('Foot ${ti', true), r('tle}')),
    footnotes: note('footnote', 'Footnote for {{client}}'),
    endnotes: note('endnote', 'Endnote in {{city}}'),
  });
}

const WORD_VARIABLES = {
  client: 'Jane Doe',
  city: 'Lyon',
  title: 'Quarterly Report',
  link: 'see here',
  boxed: 'In the box',
  lines: { type: 'table', rows: [{ a: 'a1', b: 'b1' }, { a: 'a2', b: 'b2' }] },
  address: '1 Main St\nSpringfield\tUSA',
};

test('finds placeholders Word split across runs, proofErr, bookmarks, revisions, smart tags, fields, hyperlinks, text boxes, nested tables, notes, header and footer', async () => {
  const j = await job(await wordTemplate(), WORD_VARIABLES);
  // client ×2 (body, footnote), city ×3 (insertion, smart tag, endnote), title ×5 (two fields, nested table, header, footer),
  // link, boxed (the VML fallback copy is replaced but not counted), 2 rows × 2 cells, address.
  assert.equal(j.result, { replacedVariables: 17, outputFormat: 'docx', unresolvedPlaceholders: [], unusedVariables: [] });
  const doc = await docxReport(await output(j));
  const body = doc.parts['word/document.xml']!.split('\n');
  for (const line of ['Hello Jane Doe, welcome.', 'City: Lyon.', 'Tagged: Lyon!', 'Quarterly Report', 'see here', 'Box: ', 'In the box', 'Outer Quarterly Report', 'Noted and ']) {
    assert.ok(body.includes(line), `${line} in ${JSON.stringify(body)}`);
  }
  // Both copies of the text box hold the value.
  assert.is(body.filter((l) => l === 'In the box').length, 2);
  // The deleted revision keeps its placeholder as deleted text: it is not document text, so it is neither replaced nor reported.
  assert.ok(body.includes('Deleted: end.'));
  // The value sits in the run where the placeholder started: plain, not the bold middle run.
  const hello = doc.runs.find((runs) => runs.map((x) => x.text).join('') === 'Hello Jane Doe, welcome.')!;
  assert.equal(hello[0], { text: 'Hello Jane Doe', bold: null });
  assert.equal(doc.nested, [[['A', 'B'], ['a1', 'b1'], ['a2', 'b2']]]);
  assert.ok(doc.paragraphs.includes('Address: 1 Main St\nSpringfield\tUSA'), JSON.stringify(doc.paragraphs));
  assert.is(doc.parts['word/header1.xml'], 'Head Quarterly Report');
  assert.is(doc.parts['word/footer1.xml'], 'Foot Quarterly Report');
  assert.ok(doc.parts['word/footnotes.xml']!.includes('Footnote for Jane Doe'));
  assert.ok(doc.parts['word/endnotes.xml']!.includes('Endnote in Lyon'));
});

test('the filled hand-built DOCX opens in LibreOffice: its PDF shows the header, text box, nested rows and footnote', async () => {
  const j = await job(await wordTemplate(), WORD_VARIABLES, 'pdf');
  const text = await pdfText(await output(j));
  for (const s of ['Head Quarterly Report', 'Hello Jane Doe, welcome.', 'In the box', 'a2 b2', 'Footnote for Jane Doe', 'Foot Quarterly Report']) assert.ok(text.includes(s), `${s} in ${text}`);
});

test('a table placeholder outside any table row fails with TABLE_ROW_NOT_FOUND naming it', async () => {
  const j = await job(await handDocx({ body: p(r('Lines: {{lines.a}}')) }), { lines: { type: 'table', rows: [{ a: '1' }] } });
  assert.is(j.status, 'FAILED');
  assert.is(j.errorCode, 'TABLE_ROW_NOT_FOUND');
  assert.ok(j.error.includes('{{lines.a}}'), j.error);
});

test('an image placed in a header gets its relationship in the header part', async () => {
  const logo = await api.uploadId(png(30, 10), 'logo.png');
  const j = await job(await handDocx({ body: p(r('Body {{logo}}')), header: p(r('Head {{logo}}')) }), { logo: { type: 'image', src: logo, width: 30, height: 10 } });
  assert.is(j.result.replacedVariables, 2);
  const doc = await docxReport(await output(j));
  assert.is(doc.imageRels['word/_rels/header1.xml.rels']!.length, 1);
  assert.is(doc.imageRels['word/_rels/document.xml.rels']!.length, 1);
  assert.equal(Object.values(doc.media), ['30x10']);
  assert.equal(doc.shapes, [{ cx: 30 * 9525, cy: 10 * 9525, descr: '' }]);
});

test('ODT: placeholders split by spans and bookmarks, spaces kept with text:s, tracked deletions and comments left alone, header in styles.xml', async () => {
  const body =
    `<text:tracked-changes><text:changed-region text:id="ct1"><text:deletion><office:change-info><dc:creator>A</dc:creator><dc:date>2024-01-01T00:00:00</dc:date></office:change-info><text:p>{{client}}</text:p></text:deletion></text:changed-region></text:tracked-changes>` +
    `<text:p>Hi <text:span text:style-name="T1">{{cl</text:span>ient}}<text:bookmark text:name="b"/>, from \${ci<text:span text:style-name="T1">ty</text:span>}.</text:p>` +
    `<text:p>Gap:{{gap}}|</text:p>` +
    `<text:p>Note<office:annotation><dc:creator>A</dc:creator><text:p>{{nope}}</text:p></office:annotation></text:p>` +
    `<text:p><text:change-start text:change-id="ct1"/><text:change-end text:change-id="ct1"/>Lines: {{lines}}</text:p>`;
  const styles = '<style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>';
  const j = await job(await handOdt(body, '<text:p>Top {{city}}</text:p>', styles), { client: 'Jane', city: 'Lyon', gap: '  two  spaces ', lines: 'one\ntwo' }, undefined, 'template.odt');
  assert.equal(j.result, { replacedVariables: 5, outputFormat: 'odt', unresolvedPlaceholders: [], unusedVariables: [] });
  const doc = await odtReport(await output(j));
  assert.ok(doc.paragraphs.includes('Hi Jane, from Lyon.'), JSON.stringify(doc.paragraphs));
  assert.ok(doc.paragraphs.includes('Gap:  two  spaces |'), JSON.stringify(doc.paragraphs));
  assert.ok(doc.paragraphs.includes('Lines: one\ntwo'), JSON.stringify(doc.paragraphs));
  assert.ok(doc.paragraphs.some((x) => x.startsWith('Note') && x.includes('{{nope}}')), 'the comment keeps its text');
  assert.equal(doc.headers, ['Top Lyon']);
});

test('an SVG with a script, or a truncated PNG, fails the job with INVALID_IMAGE naming the variable', async () => {
  const evil = await api.uploadId(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'), 'evil.svg');
  const broken = await api.uploadId(png(8, 8).subarray(0, 20), 'broken.png');
  const template = await handDocx({ body: p(r('Logo {{logo}}')) });
  for (const [src, why] of [[evil, /script/], [broken, /header/]] as const) {
    const j = await job(template, { logo: { type: 'image', src } });
    assert.is(j.status, 'FAILED');
    assert.is(j.errorCode, 'INVALID_IMAGE');
    assert.ok(j.error.startsWith('variables.logo.src') && why.test(j.error), j.error);
  }
});

// ---- hostile packages ----

test('a DTD (billion laughs) in a part is refused with INVALID_TEMPLATE, nothing expanded', async () => {
  const laughs = '<!DOCTYPE w:document [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>';
  const j = await job(await handDocx({ body: p(r('&d; {{x}}')), prolog: laughs }), { x: 'y' });
  assert.is(j.status, 'FAILED');
  assert.is(j.errorCode, 'INVALID_TEMPLATE');
  assert.ok(/DOCTYPE/.test(j.error), j.error);
});

test('a zip bomb entry (20 MB of zeros in 20 KB) is refused with TEMPLATE_TOO_LARGE', async () => {
  const zip = await JSZip.loadAsync(await handDocx({ body: p(r('{{x}}')) }));
  zip.file('word/media/padding.bin', new Uint8Array(20 * 1024 * 1024));
  const j = await job(await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE', compressionOptions: { level: 9 } }), { x: 'y' });
  assert.is(j.status, 'FAILED');
  assert.is(j.errorCode, 'TEMPLATE_TOO_LARGE');
  assert.ok(j.error.includes('word/media/padding.bin'), j.error);
});

test('an entry whose header understates its size is stopped while inflating (TEMPLATE_TOO_LARGE)', async () => {
  const zip = await JSZip.loadAsync(await handDocx({ body: p(r('{{x}}')) }));
  zip.file('word/media/liar.bin', new Uint8Array(4 * 1024 * 1024));
  const bytes = Buffer.from(await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }));
  // Rewrite the declared uncompressed size of liar.bin to 1000 bytes in the local and the central header.
  const name = Buffer.from('word/media/liar.bin');
  for (let at = bytes.indexOf(name); at >= 0; at = bytes.indexOf(name, at + 1)) {
    if (bytes.readUInt32LE(at - 30) === 0x04034b50) bytes.writeUInt32LE(1000, at - 30 + 22);
    else if (bytes.readUInt32LE(at - 46) === 0x02014b50) bytes.writeUInt32LE(1000, at - 46 + 24);
  }
  const j = await job(bytes, { x: 'y' });
  assert.is(j.status, 'FAILED');
  assert.is(j.errorCode, 'TEMPLATE_TOO_LARGE');
  assert.ok(j.error.includes('liar.bin'), j.error);
});

test('a package with more entries than the limit is refused with TEMPLATE_TOO_LARGE', async () => {
  const zip = await JSZip.loadAsync(await handDocx({ body: p(r('{{x}}')) }));
  for (let i = 0; i < 2100; i++) zip.file(`customXml/item${i}.bin`, 'x');
  const j = await job(await zip.generateAsync({ type: 'uint8array' }), { x: 'y' });
  assert.is(j.status, 'FAILED');
  assert.is(j.errorCode, 'TEMPLATE_TOO_LARGE');
  assert.ok(/entries/.test(j.error), j.error);
});

test('external relationships are never fetched: a linked picture and a hyperlink to a loopback canary, converted to PDF', async () => {
  const spy = await canary();
  try {
    const j = await job(await linkedPictureDocx(`${spy.url}/picture.png`), { who: 'you' }, 'pdf');
    const pdf = await output(j);
    assert.ok((await pdfText(pdf)).includes('Linked picture for you'));
    assert.equal(spy.hits, []);
  } finally {
    await spy.close();
  }
});

test('a picture linked to a local file (file://) is not embedded in the PDF', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-tpl-local-'));
  try {
    const secret = path.join(dir, 'secret.png');
    await writeFile(secret, png(16, 16));
    const j = await job(await linkedPictureDocx(`file://${secret}`), { who: 'you' }, 'pdf');
    const pdf = await output(j);
    assert.ok((await pdfText(pdf)).includes('Linked picture for you'));
    assert.is(await pdfImageCount(pdf), 0);
    assert.ok((await readFile(secret)).length > 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
