// docx.replace-placeholders through HTTP: LibreOffice-authored DOCX/ODT templates, every variable kind, table expansion, outputs read back by python-docx, odfpy and poppler.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../../../test/helpers/quire-server.js';
import { ApiClient } from '../../../test/helpers/api-client.js';
import { SVG_BADGE, docxReport, libreOfficeInvoice, odtReport, pdfImageCount, pdfText, png } from './fixtures.js';

const ROUTE = '/api/v1/dev/tools/docx/replace-placeholders';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const ODT = 'application/vnd.oasis.opendocument.text';

let server: RunningServer;
let api: ApiClient;
let docxId: string;
let odtId: string;
let logoId: string;
let svgId: string;

test.before(async () => {
  // One after the other: on a busy machine two cold LibreOffice starts beside a server boot can outlast its start timeout.
  const invoice = await libreOfficeInvoice();
  server = await startServer();
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  docxId = await api.uploadId(invoice.docx, 'invoice.docx');
  odtId = await api.uploadId(invoice.odt, 'invoice.odt');
  logoId = await api.uploadId(png(40, 20), 'logo.png');
  svgId = await api.uploadId(new TextEncoder().encode(SVG_BADGE), 'badge.svg');
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

function invoiceVariables(rows: Array<Record<string, string>> = [{ name: 'Pen', qty: '2', price: '1.50' }, { name: 'Ink', qty: '1', price: '3.00' }]) {
  return {
    company: 'ACME & Sons <Ltd>',
    number: 'INV-042',
    client: 'Jane Doe',
    items: { type: 'table', rows },
    logo: { type: 'image', src: logoId, width: 120, height: 60, caption: 'Company logo' },
    notes: { type: 'list', items: ['first', 'second'] },
    total: '4.50 EUR',
    spare: 'not in the template',
  };
}

async function runJob(body: Record<string, unknown>): Promise<any> {
  const created = await api.post(ROUTE, body);
  assert.is(created.status, 202, JSON.stringify(created.body));
  assert.is(created.body.action, 'docx.replace-placeholders');
  assert.is(created.body.status, 'PENDING');
  assert.is(created.body.outputFileId, null);
  return api.waitForJob(created.body.id, 300_000);
}

async function download(job: any): Promise<{ bytes: Buffer; type: string | null; disposition: string | null }> {
  assert.is(job.status, 'COMPLETED', job.error);
  const dl = await api.withKey(null).download(job.downloadUrl);
  assert.is(dl.status, 200);
  return { bytes: dl.bytes, type: dl.headers.get('content-type'), disposition: dl.headers.get('content-disposition') };
}

test('fills a LibreOffice-saved DOCX: text in body, header and footer, bold run kept, table rows, image, list; reports unresolved and unused names', async () => {
  const job = await runJob({ fileId: docxId, variables: invoiceVariables() });
  // company ×2 (header, footer), number, client, 2 rows × 3 cells, logo, notes, total.
  assert.equal(job.result, { replacedVariables: 13, outputFormat: 'docx', unresolvedPlaceholders: ['unknown_thing'], unusedVariables: ['spare'] });
  assert.equal(job.metadata, job.result);
  assert.equal(job.inputFileIds, [docxId, logoId]);
  const out = await download(job);
  assert.is(out.type, DOCX);
  assert.ok(out.disposition?.includes('invoice.docx'), String(out.disposition));
  const doc = await docxReport(out.bytes);
  assert.ok(doc.paragraphs.includes('Invoice INV-042'), doc.paragraphs.join(' | '));
  assert.ok(doc.paragraphs.includes('Dear Jane Doe, thank you for your order.'));
  const dear = doc.runs[doc.paragraphs.indexOf('Dear Jane Doe, thank you for your order.')]!;
  assert.ok(dear.some((r) => r.text === 'Jane Doe' && r.bold === true), JSON.stringify(dear));
  assert.equal(doc.tables[0], [['Item', 'Qty', 'Price'], ['Pen', '2', '1.50'], ['Ink', '1', '3.00']]);
  assert.ok(doc.headers.includes('Letterhead of ACME & Sons <Ltd>'), doc.headers.join(' | '));
  assert.ok(doc.footers.includes('Footer of ACME & Sons <Ltd>'), doc.footers.join(' | '));
  assert.ok(doc.paragraphs.includes('Notes: • first\n• second'), doc.paragraphs.join(' | '));
  assert.ok(doc.paragraphs.includes('Total due: 4.50 EUR'));
  assert.ok(doc.paragraphs.includes('Left alone: {{unknown_thing}}'));
  assert.equal(doc.shapes, [{ cx: 120 * 9525, cy: 60 * 9525, descr: 'Company logo' }]);
  assert.equal(Object.values(doc.media).filter((v) => v === '40x20').length, 1);
});

test('fills a LibreOffice-saved ODT: spans, header and footer in styles.xml, table-row expansion, draw:frame image', async () => {
  const job = await runJob({ fileId: odtId, variables: invoiceVariables() });
  assert.equal(job.result, { replacedVariables: 13, outputFormat: 'odt', unresolvedPlaceholders: ['unknown_thing'], unusedVariables: ['spare'] });
  const out = await download(job);
  assert.is(out.type, ODT);
  const doc = await odtReport(out.bytes);
  assert.ok(doc.paragraphs.includes('Invoice INV-042'), doc.paragraphs.join(' | '));
  assert.ok(doc.paragraphs.includes('Dear Jane Doe, thank you for your order.'), doc.paragraphs.join(' | '));
  assert.ok(doc.boldSpans.includes('Jane Doe'), JSON.stringify(doc.boldSpans));
  assert.equal(doc.tables[0], [['Item', 'Qty', 'Price'], ['Pen', '2', '1.50'], ['Ink', '1', '3.00']]);
  assert.ok(doc.headers.includes('Letterhead of ACME & Sons <Ltd>'), doc.headers.join(' | '));
  assert.ok(doc.footers.includes('Footer of ACME & Sons <Ltd>'), doc.footers.join(' | '));
  assert.ok(doc.paragraphs.includes('Notes: • first\n• second'), doc.paragraphs.join(' | '));
  assert.ok(doc.paragraphs.includes('Left alone: {{unknown_thing}}'));
  assert.is(doc.frames.length, 1);
  assert.equal(doc.frames[0]!.width, '1.2500in');
  assert.equal(doc.frames[0]!.height, '0.6250in');
  assert.is(doc.frames[0]!.desc, 'Company logo');
  assert.ok(doc.manifest.includes(doc.frames[0]!.hrefs[0]!), JSON.stringify(doc));
});

test('outputFormat pdf converts the filled DOCX through LibreOffice: the text, table and picture are in the PDF', async () => {
  const job = await runJob({ fileId: docxId, variables: invoiceVariables(), outputFormat: 'pdf' });
  assert.is(job.result.outputFormat, 'pdf');
  assert.is(job.result.replacedVariables, 13);
  const out = await download(job);
  assert.is(out.type, 'application/pdf');
  assert.ok(out.disposition?.includes('invoice.pdf'));
  const text = await pdfText(out.bytes);
  for (const s of ['Letterhead of ACME & Sons <Ltd>', 'Invoice INV-042', 'Dear Jane Doe', 'Pen 2 1.50', 'Ink 1 3.00', 'Total due: 4.50 EUR', 'Footer of ACME']) assert.ok(text.includes(s), `${s} in: ${text}`);
  assert.is(await pdfImageCount(out.bytes), 1);
});

test('ODT template to DOCX output and DOCX template to ODT output (cross-format through LibreOffice)', async () => {
  const [toDocx, toOdt] = await Promise.all([
    runJob({ fileId: odtId, variables: invoiceVariables(), outputFormat: 'docx' }),
    runJob({ fileId: docxId, variables: invoiceVariables(), outputFormat: 'odt' }),
  ]);
  const a = await download(toDocx);
  assert.is(a.type, DOCX);
  const docx = await docxReport(a.bytes);
  assert.ok(docx.paragraphs.includes('Invoice INV-042'), docx.paragraphs.join(' | '));
  assert.equal(docx.tables[0], [['Item', 'Qty', 'Price'], ['Pen', '2', '1.50'], ['Ink', '1', '3.00']]);
  const b = await download(toOdt);
  assert.is(b.type, ODT);
  const odt = await odtReport(b.bytes);
  assert.ok(odt.paragraphs.includes('Dear Jane Doe, thank you for your order.'), odt.paragraphs.join(' | '));
  assert.equal(odt.tables[0], [['Item', 'Qty', 'Price'], ['Pen', '2', '1.50'], ['Ink', '1', '3.00']]);
});

test('an SVG image gets a PNG fallback: DOCX carries both (svgBlip), ODT offers both in the frame', async () => {
  const vars = { ...invoiceVariables(), logo: { type: 'image', src: svgId, width: 120, height: 60, caption: 'Badge' } };
  const [dj, oj] = await Promise.all([runJob({ fileId: docxId, variables: vars }), runJob({ fileId: odtId, variables: vars })]);
  const docx = await docxReport((await download(dj)).bytes);
  assert.equal(docx.shapes, [{ cx: 120 * 9525, cy: 60 * 9525, descr: 'Badge' }]);
  const kinds = Object.values(docx.media);
  assert.ok(kinds.includes('svg'), JSON.stringify(docx.media));
  assert.ok(kinds.includes('240x120'), JSON.stringify(docx.media)); // the fallback is drawn at twice the placed size
  const rels = docx.imageRels['word/_rels/document.xml.rels']!;
  assert.ok(rels.some((t) => t.endsWith('.svg')) && rels.some((t) => t.endsWith('.png')), JSON.stringify(rels));
  const odt = await odtReport((await download(oj)).bytes);
  assert.is(odt.frames.length, 1);
  assert.ok(odt.frames[0]!.hrefs[0]!.endsWith('.svg') && odt.frames[0]!.hrefs[1]!.endsWith('.png'), JSON.stringify(odt.frames));
});

test('table expansion with 0 rows removes the data row and keeps the header row; 1 row gives one data row', async () => {
  const [zero, one] = await Promise.all([runJob({ fileId: docxId, variables: invoiceVariables([]) }), runJob({ fileId: odtId, variables: invoiceVariables([{ name: 'Only', qty: '7', price: '9.99' }]) })]);
  assert.is(zero.result.replacedVariables, 7);
  assert.equal((await docxReport((await download(zero)).bytes)).tables[0], [['Item', 'Qty', 'Price']]);
  assert.is(one.result.replacedVariables, 10);
  assert.equal((await odtReport((await download(one)).bytes)).tables[0], [['Item', 'Qty', 'Price'], ['Only', '7', '9.99']]);
});

test('table expansion with 500 rows keeps their order in DOCX and ODT', async () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ name: `Item ${i + 1}`, qty: String(i % 7), price: `${i}.00` }));
  const [dj, oj] = await Promise.all([runJob({ fileId: docxId, variables: invoiceVariables(rows) }), runJob({ fileId: odtId, variables: invoiceVariables(rows) })]);
  assert.is(dj.result.replacedVariables, 7 + 1500);
  const docx = await docxReport((await download(dj)).bytes);
  assert.is(docx.tables[0]!.length, 501);
  assert.equal(docx.tables[0]![1], ['Item 1', '0', '0.00']);
  assert.equal(docx.tables[0]![500], ['Item 500', String(499 % 7), '499.00']);
  const odt = await odtReport((await download(oj)).bytes);
  assert.is(odt.tables[0]!.length, 501);
  assert.equal(odt.tables[0]![250], ['Item 250', String(249 % 7), '249.00']);
});

test('a row that lacks a column, or has one the template does not use, fails the job naming the row and the columns', async () => {
  const missing = await runJob({ fileId: docxId, variables: invoiceVariables([{ name: 'Pen', qty: '1', price: '2' }, { name: 'Ink', qty: '1' }]) });
  assert.is(missing.status, 'FAILED');
  assert.is(missing.errorCode, 'TABLE_COLUMNS_MISMATCH');
  assert.ok(missing.error.includes('variables.items.rows[1]') && missing.error.includes('"price"') && missing.error.includes('{{items.price}}'), missing.error);
  const extra = await runJob({ fileId: odtId, variables: invoiceVariables([{ name: 'Pen', qty: '1', price: '2', colour: 'blue' }]) });
  assert.is(extra.status, 'FAILED');
  assert.is(extra.errorCode, 'TABLE_COLUMNS_MISMATCH');
  assert.ok(extra.error.includes('variables.items.rows[0]') && extra.error.includes('"colour"'), extra.error);
  assert.is(extra.outputFileId, null);
});

test('user text is data: markup, entities and control characters in values come out literally', async () => {
  const hostile = '</w:t></w:r><w:r><w:t>x]]>&amp;<text:span/>\u0001"\'';
  // A value that looks like a placeholder is text too: values are never scanned again.
  const vars = { ...invoiceVariables([{ name: hostile, qty: '1', price: '2' }]), client: hostile, total: '{{number}} ${number}' };
  const [dj, oj] = await Promise.all([runJob({ fileId: docxId, variables: vars }), runJob({ fileId: odtId, variables: vars })]);
  const shown = hostile.replace('\u0001', '');
  const docx = await docxReport((await download(dj)).bytes);
  assert.ok(docx.paragraphs.includes(`Dear ${shown}, thank you for your order.`), docx.paragraphs.join(' | '));
  assert.is(docx.tables[0]![1]![0], shown);
  assert.ok(docx.paragraphs.includes('Total due: {{number}} ${number}'), docx.paragraphs.join(' | '));
  const odt = await odtReport((await download(oj)).bytes);
  assert.ok(odt.paragraphs.includes(`Dear ${shown}, thank you for your order.`), odt.paragraphs.join(' | '));
});

test('creation checks: at least one variable, known variable shapes, files that exist and have the right type', async () => {
  const empty = await api.post(ROUTE, { fileId: docxId, variables: {} });
  assert.is(empty.status, 400);
  assert.ok(empty.body.errors.some((e: any) => e.path === 'variables'), JSON.stringify(empty.body));
  const absent = await api.post(ROUTE, { fileId: docxId });
  assert.is(absent.status, 400);
  assert.ok(absent.body.errors.some((e: any) => e.path === 'variables' && e.message === 'is required'));
  const badName = await api.post(ROUTE, { fileId: docxId, variables: { 'two words': 'x' } });
  assert.is(badName.status, 400);
  const badFormat = await api.post(ROUTE, { fileId: docxId, variables: { a: 'x' }, outputFormat: 'html' });
  assert.is(badFormat.status, 400);
  assert.ok(badFormat.body.errors.some((e: any) => e.path === 'outputFormat'));
  const unknownTemplate = await api.post(ROUTE, { fileId: '00000000-0000-4000-8000-000000000000', variables: { a: 'x' } });
  assert.is(unknownTemplate.status, 404);
  assert.ok(unknownTemplate.body.detail.startsWith('fileId:'), unknownTemplate.body.detail);
  const unknownImage = await api.post(ROUTE, { fileId: docxId, variables: { logo: { type: 'image', src: '00000000-0000-4000-8000-000000000000' } } });
  assert.is(unknownImage.status, 404);
  assert.ok(unknownImage.body.detail.startsWith('variables.logo.src:'), unknownImage.body.detail);
  const pngTemplate = await api.post(ROUTE, { fileId: logoId, variables: { a: 'x' } });
  assert.is(pngTemplate.status, 415);
  const docxImage = await api.post(ROUTE, { fileId: docxId, variables: { logo: { type: 'image', src: odtId } } });
  assert.is(docxImage.status, 415);
  assert.ok(docxImage.body.detail.startsWith('variables.logo.src:'), docxImage.body.detail);
});

test('a table variable written as a plain {{name}} fills nothing and is reported unresolved', async () => {
  const job = await runJob({ fileId: docxId, variables: { ...invoiceVariables(), number: 'x', notes: 'n', company: { type: 'table', rows: [] } } });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.ok(job.result.unresolvedPlaceholders.includes('company'), JSON.stringify(job.result));
});

test.run();
