// Lens end to end over HTTP: OCR of born-digital, scanned, multi-column and multi-page PDFs, DOCX and
// Markdown; format/pages combinations; credits per page; plan page limits; classify, extract, filenames.
// Fixtures are made with Quire itself (POST /render, /render/images) and pdf-lib (an image-only "scan").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, OWNER_KEY, cleanup, admin, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { INVOICE, invoiceDocument, letterDocument, twoColumnDocument, renderFile, renderPng, scannedPdf, lensJob } from '../helpers/lens-fixtures.js';
import { validateDocument } from '../../document/validator.js';

let server: RunningServer;
let api: ApiClient;
let invoicePdf: Buffer;
let invoiceId: string;
let letterId: string;

test.before(async () => {
  server = await startServer();
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  invoicePdf = await renderFile(api, invoiceDocument());
  invoiceId = await api.uploadId(invoicePdf, 'invoice.pdf');
  letterId = await api.uploadId(await renderFile(api, letterDocument()), 'letter.pdf');
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

async function balance(): Promise<number> {
  return (await api.get('/api/v1/dev/credits')).body.balance;
}

test('OCR md of a born-digital invoice: heading, label lines and the line items as a Markdown table; 2 credits for its page', async () => {
  const before = await balance();
  const created = await api.post('/api/v1/dev/tools/lens/ocr', { fileId: invoiceId, outputFormat: 'md' });
  assert.is(created.status, 202);
  assert.is(created.body.creditCost, 2);
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.action, 'lens.ocr');
  assert.is(job.outputFileId, null);
  assert.is(job.result.outputFormat, 'md');
  const md: string = job.result.content;
  assert.match(md, /^# Invoice$/m);
  assert.match(md, /^## Items$/m);
  assert.match(md, /Invoice number: INV-2024-0042/);
  assert.match(md, /^\| Description \| Quantity \| Amount \|$/m);
  assert.match(md, /^\| Consulting services \| 10 \| EUR 1,000\.00 \|$/m);
  assert.is(await balance(), before - 2);
});

test('OCR reads a scanned page (no text layer) with Tesseract', async () => {
  const scan = await scannedPdf([await renderPng(api, invoiceDocument())]);
  // pdftotext confirms the fixture has no text layer.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lens-scan-'));
  writeFileSync(path.join(dir, 's.pdf'), scan);
  assert.is(execFileSync('pdftotext', [path.join(dir, 's.pdf'), '-']).toString().trim(), '');
  cleanup(dir);
  const job = await lensJob(api, 'ocr', { fileId: await api.uploadId(scan, 'scan.pdf'), outputFormat: 'md', ocrEngine: 'tesseract' });
  assert.is(job.status, 'COMPLETED', job.error);
  for (const s of ['Invoice number: INV-2024-0042', 'Northwind Traders', 'Due date: April 14, 2024', 'Total amount due: EUR 1,234.50']) assert.ok(job.result.content.includes(s), `"${s}" in:\n${job.result.content}`);
});

test('OCR keeps a two-column page in reading order: the left column before the right, the title first', async () => {
  const id = await api.uploadId(await renderFile(api, twoColumnDocument()), 'columns.pdf');
  const job = await lensJob(api, 'ocr', { fileId: id, outputFormat: 'md' });
  assert.is(job.status, 'COMPLETED', job.error);
  const md: string = job.result.content;
  assert.ok(md.startsWith('# Two Column Report\n'), md.slice(0, 200));
  const order = [...md.matchAll(/Sentence (\d+)/g)].map((m) => Number(m[1]));
  assert.equal(order, Array.from({ length: 70 }, (_, i) => i + 1));
});

test('OCR mdd: front matter with document settings and the running footer as a template, kept out of the body', async () => {
  const job = await lensJob(api, 'ocr', { fileId: letterId, outputFormat: 'mdd' });
  assert.is(job.status, 'COMPLETED', job.error);
  const mdd: string = job.result.content;
  assert.match(mdd, /^---\ndocument:\n  type: "pdf"\n  title: "Renewal letter"\n  size: "A4"/);
  assert.match(mdd, /footer: \{"text":"Northwind Traders · Page \{\{page\}\} of \{\{pages\}\}"\}/);
  assert.not.match(mdd.split('---').slice(2).join('---'), /Page \d of 3/);
  assert.equal([...mdd.matchAll(/^# Part (\d)$/gm)].map((m) => m[1]), ['1', '2', '3']);
  assert.is(job.creditCost ?? (await api.get(`/api/v1/dev/tools/jobs/${job.id}`)).body.creditCost, 54);
});

test('OCR json: document JSON valid against the contract, one flow section per page', async () => {
  const job = await lensJob(api, 'ocr', { fileId: letterId, outputFormat: 'json' });
  assert.is(job.status, 'COMPLETED', job.error);
  const doc = JSON.parse(job.result.content);
  assert.ok(validateDocument(doc).valid, JSON.stringify(validateDocument(doc).errors));
  assert.is(doc.sections.length, 3);
  assert.equal(doc.sections[1].content[0], { type: 'h1', text: 'Part 2' });
  assert.is(doc.defaults.footer.text, 'Northwind Traders · Page {{page}} of {{pages}}');
});

test('OCR md with pages reads and charges only those pages', async () => {
  const before = await balance();
  const created = await api.post('/api/v1/dev/tools/lens/ocr', { fileId: letterId, outputFormat: 'md', pages: ['2-3'] });
  assert.is(created.body.creditCost, 4);
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.not.match(job.result.content, /Part 1/);
  assert.match(job.result.content, /# Part 2[\s\S]*# Part 3/);
  assert.is(await balance(), before - 4);
});

test('format and pages combinations outside the spec answer 400 naming the field', async () => {
  const md = await api.uploadId(Buffer.from('# Notes\n\nSome text.\n'), 'notes.md');
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ fileId: letterId, outputFormat: 'mdd', pages: ['1'] }, 'pages'],
    [{ fileId: letterId, outputFormat: 'json', pages: ['1'] }, 'pages'],
    [{ fileId: md, outputFormat: 'mdd' }, 'outputFormat'],
    [{ fileId: md, outputFormat: 'json' }, 'outputFormat'],
    [{ fileId: md, outputFormat: 'md', pages: ['1'] }, 'pages'],
    [{ fileId: letterId, outputFormat: 'md', pages: ['9'] }, 'pages[0]'],
    [{ fileId: letterId, outputFormat: 'txt' }, 'outputFormat'],
  ];
  for (const [body, field] of cases) {
    const r = await api.post('/api/v1/dev/tools/lens/ocr', body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.ok(r.body.errors.some((e: { path: string }) => e.path === field), `${JSON.stringify(body)} → ${JSON.stringify(r.body.errors)}`);
  }
});

test('OCR md of Markdown passes it through normalised, and of DOCX gives headings, paragraphs and tables; one page each', async () => {
  const md = await api.uploadId(Buffer.from('# Notes\r\n\r\n\r\n\r\nSome text.   \r\n'), 'notes.md');
  const created = await api.post('/api/v1/dev/tools/lens/ocr', { fileId: md, outputFormat: 'md' });
  assert.is(created.body.creditCost, 2);
  const job = await api.waitForJob(created.body.id);
  assert.is(job.result.content, '# Notes\n\nSome text.\n');

  const docx = await renderFile(api, invoiceDocument(INVOICE, 'docx'));
  const docxJob = await lensJob(api, 'ocr', { fileId: await api.uploadId(docx, 'invoice.docx'), outputFormat: 'md' });
  assert.is(docxJob.status, 'COMPLETED', docxJob.error);
  const out: string = docxJob.result.content;
  assert.match(out, /^# Invoice$/m);
  assert.match(out, /^## Items$/m);
  assert.match(out, /^Invoice number: INV-2024-0042$/m);
  assert.match(out, /^\| Consulting services \| 10 \| EUR 1,000\.00 \|$/m);
});

test('classify picks the matching category with a calibrated confidence and names the deciding words', async () => {
  const categories = ['contract', 'invoice', 'letter', 'receipt', 'report'];
  const job = await lensJob(api, 'classify', { fileId: invoiceId, categories });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.result.category, 'invoice');
  assert.ok(job.result.confidence > 0.3 && job.result.confidence < 1, String(job.result.confidence));
  assert.match(job.result.reasoning, /"invoice"/);
  assert.is(job.creditCost ?? 6, 6);

  const letter = await lensJob(api, 'classify', { fileId: letterId, categories: ['recipe', 'invoice'] });
  assert.ok(['recipe', 'invoice'].includes(letter.result.category));
  assert.ok(letter.result.confidence < 0.3, `weak evidence, low confidence: ${letter.result.confidence}`);
});

test('classify of an empty document: the first category, confidence 0, and a message saying it is empty', async () => {
  const empty = await api.uploadId(Buffer.from('   \n\n'), 'empty.md');
  const job = await lensJob(api, 'classify', { fileId: empty, categories: ['memo', 'invoice'] });
  assert.equal(job.result.category, 'memo');
  assert.is(job.result.confidence, 0);
  assert.match(job.result.reasoning, /empty/);
  const r = await api.post('/api/v1/dev/tools/lens/classify', { fileId: empty, categories: ['only one'] });
  assert.is(r.status, 400);
});

test('extract finds typed values next to their labels; absent fields are null and listed; 14 credits per page', async () => {
  const created = await api.post('/api/v1/dev/tools/lens/extract', {
    fileId: invoiceId,
    fields: {
      invoice_number: { type: 'string' },
      invoice_date: { type: 'date' },
      due_date: { type: 'date' },
      total: { type: 'number', description: 'total amount due' },
      customer: { type: 'string', description: 'bill to' },
      purchase_order: { type: 'string', description: 'PO reference' },
    },
  });
  assert.is(created.body.creditCost, 14);
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result.data, { invoice_number: INVOICE.number, invoice_date: INVOICE.date, due_date: INVOICE.dueDate, total: INVOICE.total, customer: INVOICE.customer, purchase_order: null });
  assert.equal(job.result.fieldsMissing, ['purchase_order']);
});

test('extract reads day-first dotted dates, and a day that does not exist as no date', async () => {
  // Labels share no word, so each field can only take the value beside its own label.
  const notes = await api.uploadId(Buffer.from('# Logistics\n\nShipped: 11.08.2024\n\nDelivery: 31.04.2024\n\nPaid: 29.02.2023\n\nReturned: 29.02.2024\n'), 'delivery.md');
  const job = await lensJob(api, 'extract', { fileId: notes, fields: { shipped: { type: 'date' }, delivery: { type: 'date' }, paid: { type: 'date' }, returned: { type: 'date' } } });
  assert.equal(job.result.data, { shipped: '2024-08-11', delivery: null, paid: null, returned: '2024-02-29' });
  assert.equal(job.result.fieldsMissing, ['delivery', 'paid']);
});

test('extract: a label that names the field but is followed by no value of its type gives null, not a weaker label\'s value', async () => {
  // "Invoice date" also matches due_date (on "date"), but worse than "Due date", which says the date is not given.
  const terms = await api.uploadId(Buffer.from('# Invoice\n\nInvoice date: 12.03.2024\n\nDue date: on receipt\n\nTotal: 120.00\n'), 'terms.md');
  const job = await lensJob(api, 'extract', { fileId: terms, fields: { invoice_date: { type: 'date' }, due_date: { type: 'date' }, total: { type: 'number' } } });
  assert.equal(job.result.data, { invoice_date: '2024-03-12', due_date: null, total: 120 });
  assert.equal(job.result.fieldsMissing, ['due_date']);
});

test('extract of an empty document: every field null and missing', async () => {
  const empty = await api.uploadId(Buffer.from(' \n'), 'empty.md');
  const job = await lensJob(api, 'extract', { fileId: empty, fields: { total: { type: 'number' }, date: { type: 'date' } } });
  assert.equal(job.result, { data: { total: null, date: null }, fieldsMissing: ['total', 'date'], evidence: { total: null, date: null }, engine: 'builtin' });
});

test('generate-filename fills placeholders, unknown when not found, and gives a safe name', async () => {
  const job = await lensJob(api, 'generate-filename', { fileId: invoiceId, filenameSchema: '{invoice_date}_{customer}_{invoice_number}_{colour}' });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result.placeholders, { invoice_date: '2024-03-15', customer: 'Contoso-Ltd', invoice_number: 'INV-2024-0042', colour: 'unknown' });
  assert.is(job.result.generatedFilename, '2024-03-15_Contoso-Ltd_INV-2024-0042_unknown');
  const hostile = await lensJob(api, 'generate-filename', { fileId: invoiceId, filenameSchema: '../{invoice_number}/x\u0001' });
  assert.not.match(hostile.result.generatedFilename, /[/\\\u0000-\u001f]/);
  assert.not.ok(hostile.result.generatedFilename.startsWith('.'));
});

test('plan page limit: an Engine organization may not process more than 20 pages per job (413)', async () => {
  const dir = server.dataDir;
  await server.stop();
  const org = await admin(dir, ['org', 'create', '--name', 'Engine org', '--credits', '1000', '--plan', 'Engine']);
  const key = await admin(dir, ['key', 'create', '--org', org.json.id, '--role', 'owner']);
  server = await startServer({ dataDir: dir });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  const engine = new ApiClient(server.baseUrl, key.json.key);
  const pages = { document: { type: 'pdf' }, sections: Array.from({ length: 21 }, (_, i) => ({ type: 'flow', content: [{ type: 'text', text: `Page ${i + 1}` }] })) };
  const pdf = await renderFile(engine, pages);
  const id = await engine.uploadId(pdf, 'long.pdf');
  const r = await engine.post('/api/v1/dev/tools/lens/ocr', { fileId: id, outputFormat: 'md' });
  assert.is(r.status, 413);
  assert.is(r.body.code, 'PAGE_LIMIT_EXCEEDED');
  assert.match(r.body.detail, /Engine allows 20/);
  const ok = await engine.post('/api/v1/dev/tools/lens/ocr', { fileId: id, outputFormat: 'md', pages: ['1-20'] });
  assert.is(ok.status, 202);
  assert.is(ok.body.creditCost, 40);
  // Classify reads 3 pages only, so the limit does not bite; the Team plan allows the whole file.
  assert.is((await engine.post('/api/v1/dev/tools/lens/classify', { fileId: id, categories: ['a', 'b'] })).status, 202);
  const team = await api.uploadId(pdf, 'long.pdf');
  assert.is((await api.post('/api/v1/dev/tools/lens/ocr', { fileId: team, outputFormat: 'md' })).body.creditCost, 42);
});

test.run();
