// POST /tools/pdf/metadata: reading (no output file) and setting (a new file), compared with what poppler's pdfinfo and pdfjs read.
// test-stores: once (PDF metadata; its jobs and files reach the store as files.test's and pdf-tools.test's do).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PDFDocument, PageSizes, degrees } from 'pdf-lib';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { encryptedPdf, makePdf } from '../fixtures/pdfs.js';
import { invoiceDocument } from '../fixtures/documents.js';
import { libreOfficeFormPdf } from '../fixtures/pdf-forms.js';
import { pdfFormFields, pdfinfoFields, pdfinfoXmp, qpdfCheck } from '../fixtures/pdf-readers.js';

const METADATA = '/api/v1/dev/tools/pdf/metadata';
let server: RunningServer;
let api: ApiClient;

test.before(async () => {
  // Private network allowed: the webhook test's receiver listens on loopback.
  server = await startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

async function metadata(body: Record<string, unknown>): Promise<any> {
  const created = await api.post(METADATA, body);
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.action, 'pdf.metadata');
  return api.waitForJob(created.body.id);
}

/** Renders document JSON with Quire's own renderer and uploads the PDF as a tools file. */
async function renderedUpload(config: Record<string, unknown>, pdfProfile?: string): Promise<{ id: string; pdf: Buffer }> {
  const created = await api.post('/api/v1/dev/render', pdfProfile ? { config, pdfProfile } : { config });
  assert.is(created.status, 202, created.bytes.toString());
  let job: any;
  for (let i = 0; i < 600; i++) {
    job = (await api.get(`/api/v1/dev/render/${created.body.jobId}`)).body;
    if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.is(job.status, 'COMPLETED', job.error);
  const pdf = (await api.withKey(null).download(job.downloadUrl)).bytes;
  return { id: await api.uploadId(pdf, 'rendered.pdf'), pdf };
}

/** pdfinfo's ISO 8601 date (pdfinfoFields asks for -isodates) in UTC, as the API gives it. */
function pdfinfoDate(value: string): string {
  return new Date(value).toISOString();
}

test('reads the document information, version, pages and tagging as poppler does, with no output file', async () => {
  const { id, pdf } = await renderedUpload(invoiceDocument(7));
  const job = await metadata({ fileId: id });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.outputFileId, null);
  assert.is(job.downloadUrl ?? null, null);
  assert.equal(job.result, job.metadata);
  assert.is(job.creditCost, 1);
  const r = job.result;
  const info = await pdfinfoFields(pdf);
  assert.is(r.title, info.Title);
  assert.is(r.title, 'Invoice INV-00007');
  assert.is(r.author, info.Author ?? null);
  assert.is(r.subject, info.Subject ?? null);
  assert.is(r.keywords, info.Keywords ?? null);
  assert.is(r.creator, info.Creator ?? null);
  assert.is(r.producer, info.Producer ?? null);
  assert.is(r.creationDate, info.CreationDate ? pdfinfoDate(info.CreationDate) : null);
  assert.is(r.pdfVersion, info['PDF version']);
  assert.is(r.pageCount, Number(info.Pages));
  assert.is(r.encrypted, false);
  assert.is(r.tagged, info.Tagged === 'yes');
  assert.is(r.pageSizes.length, 1);
  assert.is(r.pageSizes[0].pages, r.pageCount > 1 ? `1-${r.pageCount}` : '1');
  assert.is(r.pageSizes[0].name, 'A4');
  const [w, h] = /^([\d.]+) x ([\d.]+) pts/.exec(info['Page size']!)!.slice(1).map(Number);
  assert.ok(Math.abs(r.pageSizes[0].width - w!) < 0.01 && Math.abs(r.pageSizes[0].height - h!) < 0.01, `${JSON.stringify(r.pageSizes)} vs ${info['Page size']}`);
  assert.is(r.pdfA, null);
  assert.is(r.pdfUA, null);
  assert.equal(r.formFields, []);
  assert.equal(r.warnings, []);
});

test('identifies PDF/A-2b and PDF/UA-1 from the XMP of files rendered with those profiles', async () => {
  const a = await renderedUpload(invoiceDocument(8), 'pdfa-2b');
  const ua = await renderedUpload(invoiceDocument(9), 'pdfua-1');
  const plain = await api.uploadId(await makePdf(1), 'plain.pdf');
  const [ja, jua, jplain] = await Promise.all([metadata({ fileId: a.id }), metadata({ fileId: ua.id }), metadata({ fileId: plain })]);
  assert.equal(ja.result.pdfA, { part: 2, conformance: 'B', identifier: 'PDF/A-2b' });
  assert.is(ja.result.pdfUA, null);
  assert.is(ja.result.tagged, true);
  assert.equal(jua.result.pdfUA, { part: 1, identifier: 'PDF/UA-1' });
  assert.is(jua.result.tagged, (await pdfinfoFields(ua.pdf)).Tagged === 'yes');
  assert.is(jplain.result.pdfA, null);
  assert.is(jplain.result.tagged, false);
});

test('reports runs of page sizes and rotations, naming standard sizes', async () => {
  const doc = await PDFDocument.create();
  doc.addPage(PageSizes.A4);
  doc.addPage(PageSizes.A4);
  doc.addPage(PageSizes.Letter);
  doc.addPage([842, 595]).setRotation(degrees(90));
  doc.addPage([300, 400]);
  const pdf = await doc.save();
  const job = await metadata({ fileId: await api.uploadId(pdf, 'mixed.pdf') });
  assert.equal(job.result.pageSizes, [
    { pages: '1-2', width: 595.28, height: 841.89, rotation: 0, name: 'A4' },
    { pages: '3', width: 612, height: 792, rotation: 0, name: 'Letter' },
    { pages: '4', width: 842, height: 595, rotation: 90, name: 'A4' },
    { pages: '5', width: 300, height: 400, rotation: 0, name: null },
  ]);
  const info = await pdfinfoFields(pdf);
  assert.is(job.result.pageCount, Number(info.Pages));
  assert.is(job.result.pdfVersion, info['PDF version']);
});

test('lists the form fields with type, options and current value, as pdfjs reads them', async () => {
  const form = await api.uploadId(await libreOfficeFormPdf(), 'form.pdf');
  const filled = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/fill-form', { fileId: form, fields: { fullName: 'Grace', agree: true, size: 'small', fruit: 'Plum' } })).body.id);
  assert.is(filled.status, 'COMPLETED', filled.error);
  const job = await metadata({ fileId: filled.outputFileId });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result.formFields, [
    { name: 'fullName', type: 'text', options: null, value: 'Grace' },
    { name: 'notes', type: 'multilineText', options: null, value: '' },
    { name: 'agree', type: 'checkbox', options: null, value: true },
    { name: 'size', type: 'radio', options: ['small', 'large'], value: 'small' },
    { name: 'colour', type: 'dropdown', options: ['Red', 'Green', 'Blue'], value: null },
    { name: 'fruit', type: 'listbox', options: ['Apple', 'Pear', 'Plum'], value: 'Plum' },
    { name: 'city', type: 'dropdown', options: ['Oslo', 'Bergen'], value: null },
  ]);
  const pdfjs = await pdfFormFields((await api.download(filled.downloadUrl)).bytes);
  assert.equal(Object.keys(pdfjs).sort(), job.result.formFields.map((f: { name: string }) => f.name).sort());
  assert.is(pdfjs.fullName![0]!.value, 'Grace');
  assert.is(pdfjs.fruit![0]!.value, 'Plum');
});

test('reports an encrypted file as encrypted, without its encrypted strings, pointing at unlock', async () => {
  const locked = await encryptedPdf({ password: 'pw', objectStreams: false, pageCount: 3 });
  const job = await metadata({ fileId: await api.uploadId(locked, 'locked.pdf') });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.result.encrypted, true);
  assert.is(job.result.pageCount, 3);
  assert.is(job.result.title, null);
  assert.match(job.result.warnings[0], '/tools/pdf/unlock');
  assert.match((await pdfinfoFields(locked, 'pw')).Encrypted, /^yes/);
  // With its pages in encrypted object streams not even the page count is readable: the job says so.
  const packed = await metadata({ fileId: await api.uploadId(await encryptedPdf('pw'), 'packed.pdf') });
  assert.is(packed.status, 'FAILED');
  assert.is(packed.errorCode, 'PDF_ENCRYPTED');
  assert.match(packed.error, 'POST /tools/pdf/unlock');
});

test('set writes the information into a new file, Info and XMP alike, keeping the PDF/A identification', async () => {
  const { id } = await renderedUpload(invoiceDocument(10), 'pdfa-2b');
  const set = {
    title: 'Renamed <report> & "notes"',
    author: 'Zoë Åström',
    subject: 'Quarterly figures',
    keywords: ['finance', 'Q3 2026'],
    creator: 'Quire tests',
    producer: 'Quire metadata tool',
    creationDate: '2025-01-02T03:04:05Z',
    modificationDate: '2026-06-07T08:09:10Z',
  };
  const job = await metadata({ fileId: id, set });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.ok(job.outputFileId);
  const out = (await api.withKey(null).download(job.downloadUrl)).bytes;
  const info = await pdfinfoFields(out);
  assert.is(info.Title, set.title);
  assert.is(info.Author, set.author);
  assert.is(info.Subject, set.subject);
  assert.is(info.Keywords, 'finance, Q3 2026');
  assert.is(info.Creator, set.creator);
  assert.is(info.Producer, set.producer);
  assert.is(pdfinfoDate(info.CreationDate!), '2025-01-02T03:04:05.000Z');
  assert.is(pdfinfoDate(info.ModDate!), '2026-06-07T08:09:10.000Z');
  // The result describes the new file.
  assert.is(job.result.title, set.title);
  assert.is(job.result.keywords, 'finance, Q3 2026');
  assert.is(job.result.modificationDate, '2026-06-07T08:09:10.000Z');
  assert.equal(job.result.pdfA, { part: 2, conformance: 'B', identifier: 'PDF/A-2b' });
  // XMP: read back by an independent reader (poppler prints the packet), well formed and matching.
  const xmp = await pdfinfoXmp(out);
  assert.match(xmp, 'Renamed &lt;report&gt; &amp; &quot;notes&quot;');
  assert.match(xmp, 'Zoë Åström');
  assert.match(xmp, /<pdfaid:part>2<\/pdfaid:part>|pdfaid:part="2"/);
  assert.match(xmp, '2026-06-07T08:09:10.000Z');
  assert.not.match(xmp, 'Invoice INV-00010', 'the old title is gone from the XMP');
  const check = await qpdfCheck(out);
  assert.ok(check.ok, check.output);
  // A second metadata job on the output reads the same values.
  const again = await metadata({ fileId: job.outputFileId });
  assert.is(again.result.author, set.author);
});

test('set on an encrypted file fails asking for it to be unlocked; set with no entries or bad values answers 400', async () => {
  const locked = await api.uploadId(await encryptedPdf({ password: 'pw', objectStreams: false }), 'locked.pdf');
  const job = await metadata({ fileId: locked, set: { title: 'x' } });
  assert.is(job.errorCode, 'PDF_ENCRYPTED');
  assert.match(job.error, 'POST /tools/pdf/unlock');
  const plain = await api.uploadId(await makePdf(1), 'one.pdf');
  const empty = await api.post(METADATA, { fileId: plain, set: {} });
  assert.is(empty.status, 400);
  const bad = await api.post(METADATA, { fileId: plain, set: { title: 'x'.repeat(201), creationDate: 'yesterday', colour: 'red' } });
  assert.is(bad.status, 400);
  const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
  assert.equal(paths, ['set.colour', 'set.creationDate', 'set.title']);
});

test('calls the webhook when done, without a download URL since there is no file', async () => {
  const calls: Array<Record<string, unknown>> = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      calls.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const port = (receiver.address() as AddressInfo).port;
    const id = await api.uploadId(await makePdf(1), 'one.pdf');
    const created = await api.post(METADATA, { fileId: id, webhook: { webhookUrl: `http://127.0.0.1:${port}/hook` } });
    assert.is(created.status, 202);
    await api.waitForJob(created.body.id);
    for (let i = 0; i < 100 && calls.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.is(calls.length, 1);
    assert.is(calls[0]!.event, 'job.completed');
    assert.is(calls[0]!.action, 'pdf.metadata');
    assert.is(calls[0]!.jobId, created.body.id);
    assert.is(calls[0]!.downloadUrl ?? null, null);
  } finally {
    receiver.close();
  }
});

test.run();
