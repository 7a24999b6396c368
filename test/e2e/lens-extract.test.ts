// Lens extract on receipts over HTTP: the issuer's name under a person's name, day-first dates priced in
// RM, totals after a rounding adjustment, "Paid: no." as false, an IBAN only with a valid checksum, the
// evidence of each value, and a page whose only line repeats on every page keeping its text. Documents are
// made with Quire (POST /render, /render/images) and pdf-lib; the scan has no text layer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { lensJob, renderFile, renderPng, scannedPdf } from '../helpers/lens-fixtures.js';

type Json = any;
let server: RunningServer;
let api: ApiClient;

test.before(async () => {
  server = await startServer();
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

/** A till receipt as document JSON: one text element per printed line, in a narrow page. */
function receipt(lines: string[]): Json {
  return { document: { type: 'pdf', size: 'A5' }, sections: [{ type: 'flow', content: lines.map((text) => ({ type: 'text', text })) }] };
}

const RECEIPT = [
  'TAN AH KOW',
  'PINGHWAI TRADING SDN BHD',
  '(1211036-W)',
  'NO.2, JALAN METRO PERDANA TIMUR 11,',
  '52100 KUALA LUMPUR',
  'GST ID: 001371123712',
  'TAX INVOICE',
  'Doc No.: CS00020001 Date: 09/01/2019',
  'UDANG KERING 2 x 16.96 RM 33.92',
  'SUBTOTAL: RM 33.92',
  'ROUNDING ADJ: -0.02',
  'TOTAL: RM 33.90',
  'CASH: RM 50.00',
  'CHANGE: RM 16.10',
  'Paid: no.',
  'Account: DE89 3704 0044 0532 0130 01 (closed)',
];

const FIELDS = {
  company: { type: 'string', description: 'name of the shop or company that issued the receipt' },
  date: { type: 'date', description: 'receipt date' },
  total: { type: 'number', description: 'total amount paid' },
  iban: { type: 'string', description: 'bank account IBAN' },
  paid: { type: 'boolean' },
};

test('extract on a born-digital receipt: the company under a person\'s name, 09/01/2019 as 9 January with RM prices, the total after ROUNDING, Paid: no. as false, a look-alike IBAN as null', async () => {
  const id = await api.uploadId(await renderFile(api, receipt(RECEIPT)), 'receipt.pdf');
  const job = await lensJob(api, 'extract', { fileId: id, fields: FIELDS });
  assert.is(job.status, 'COMPLETED', job.error);
  // DE89 3704 0044 0532 0130 01 looks like an IBAN but fails the checksum (…0130 00 is the valid one).
  assert.equal(job.result.data, { company: 'PINGHWAI TRADING SDN BHD', date: '2019-01-09', total: 33.9, iban: null, paid: false });
  const ev = job.result.evidence;
  assert.is(ev.company.page, 1);
  assert.is(ev.company.text, 'PINGHWAI TRADING SDN BHD');
  assert.match(ev.date.text, /09\/01\/2019/);
  assert.match(ev.date.rule, /day first/);
  assert.match(ev.total.text, /TOTAL: RM 33\.90/);
  assert.ok(ev.total.box.width > 0 && ev.total.box.height > 0 && ev.total.box.y > ev.company.box.y, JSON.stringify(ev));
  assert.match(ev.paid.text, /Paid: no\./);
});

test('extract: an IBAN with a valid checksum is found, and a month-first locale reads 09/01/2019 as 1 September', async () => {
  const lines = RECEIPT.map((l) => l.replace('DE89 3704 0044 0532 0130 01', 'DE89 3704 0044 0532 0130 00').replace(/RM /g, ''));
  const id = await api.uploadId(await renderFile(api, receipt(lines)), 'receipt-us.pdf');
  const job = await lensJob(api, 'extract', { fileId: id, fields: { date: FIELDS.date, iban: FIELDS.iban }, locale: 'en-US' });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result.data, { date: '2019-09-01', iban: 'DE89370400440532013000' });
  assert.equal(job.result.fieldsMissing, []);
  assert.is(job.result.evidence.iban.rule, 'IBAN with a valid checksum');
  assert.match(job.result.evidence.date.rule, /month first: the request's locale en-US/);
});

test('extract on a scanned receipt (no text layer): company, day-first date and rounded total, with OCR boxes as evidence', async () => {
  const png = await renderPng(api, receipt(RECEIPT.slice(0, 14)), 300);
  const id = await api.uploadId(await scannedPdf([png]), 'receipt-scan.pdf');
  const job = await lensJob(api, 'extract', { fileId: id, fields: { company: FIELDS.company, date: FIELDS.date, total: FIELDS.total, iban: FIELDS.iban } });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result.data, { company: 'PINGHWAI TRADING SDN BHD', date: '2019-01-09', total: 33.9, iban: null });
  assert.ok(job.result.evidence.company.box.x >= 0, JSON.stringify(job.result.evidence));
});

test('classify puts a lemon-cake recipe under "cooking recipe" though no category word occurs in it, and says why', async () => {
  const recipe = [
    '# Lemon Drizzle Cake',
    '',
    'Serves 8. Preparation 20 minutes, baking 45 minutes.',
    '',
    'Ingredients: 225 g unsalted butter, softened; 225 g caster sugar; 4 eggs; finely grated zest of 1 lemon; 225 g self-raising flour.',
    '',
    'Heat the oven to 180 °C. Beat together the butter and sugar until pale and creamy, then add the eggs one at a time, slowly mixing through. Sift in the flour, add the lemon zest and mix until well combined.',
    '',
    'Bake for 45 to 50 minutes until a thin skewer inserted into the centre of the cake comes out clean. While the cake is cooling, mix the lemon juice and sugar and pour it over.',
    '',
  ].join('\n');
  const id = await api.uploadId(Buffer.from(recipe), 'lemon-cake.md');
  const job = await lensJob(api, 'classify', { fileId: id, categories: ['invoice', 'cooking recipe', 'legal contract'] });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.result.category, 'cooking recipe');
  assert.ok(job.result.confidence >= 0.5, JSON.stringify(job.result));
  assert.match(job.result.reasoning, /WordNet/);
});

test('OCR md keeps a born-digital page whose only line repeats on every page (digits aside)', async () => {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let p = 1; p <= 3; p++) pdf.addPage([595, 842]).drawText(`Quarterly statement of account number ${p}`, { x: 72, y: 800, size: 12, font });
  const id = await api.uploadId(Buffer.from(await pdf.save()), 'repeated.pdf');
  const job = await lensJob(api, 'ocr', { fileId: id, outputFormat: 'md' });
  assert.is(job.status, 'COMPLETED', job.error);
  for (let p = 1; p <= 3; p++) assert.match(job.result.content, new RegExp(`Quarterly statement of account number ${p}`));
});

test.run();
