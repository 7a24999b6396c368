// Lens extract on receipts over HTTP: the issuer's name under a person's name, day-first dates priced in
// RM, totals after a rounding adjustment, "Paid: no." as false, an IBAN only with a valid checksum, the
// evidence of each value, a receipt's date through the damage OCR does to it (a year split in two or run
// into the time, spaces beside a separator, digit look-alikes, an amount beside a ratio), and a page whose
// only line repeats on every page keeping its text. Documents are made with Quire (POST /render,
// /render/images) and pdf-lib; the scan has no text layer.
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

/** A till receipt with the given lines between a shop's head and its total, extracted for its date. */
async function dateOf(name: string, lines: string[]): Promise<Json> {
  const content = ['KEDAI RUNCIT MAJU SDN BHD', 'NO. 8, JALAN BUNGA RAYA 3', '43000 KAJANG, SELANGOR', ...lines, 'SHAMPOO 200ML 1 X 12.90 12.90', 'TOTAL RM 12.90'];
  const id = await api.uploadId(await renderFile(api, receipt(content)), `${name}.pdf`);
  const job = await lensJob(api, 'extract', { fileId: id, fields: { date: FIELDS.date } });
  assert.is(job.status, 'COMPLETED', job.error);
  return job.result;
}

test('a four-digit year that OCR split in two ("Date: 29/10/20 17", "Date: 18/09/2 017") is read as 2017, not 2020 or none', async () => {
  const r = await dateOf('split-year', ['Cash Inv No.: 7029F711', 'Date: 29/10/20 17']);
  assert.is(r.data.date, '2017-10-29');
  assert.match(r.evidence.date.text, /29\/10\/20 17/);
  assert.match(r.evidence.date.rule, /date after a date label/);
  assert.is((await dateOf('split-year-2', ['Date: 18/09/2 017'])).data.date, '2017-09-18');
});

test('a two-digit year run into the time ("01/05/1612:30") is a 2016 date beside a time', async () => {
  const r = await dateOf('glued-time', ['Slip 0020018018', '01/05/1612:30 Staff: 20980']);
  assert.is(r.data.date, '2016-05-01');
  assert.match(r.evidence.date.rule, /date beside a time/);
});

test('spaces OCR put beside a separator ("25-01 -16 11:59") still make a date when a time follows it', async () => {
  const r = await dateOf('spaced-separator', ['Item(s) : 2 Qty(s) : 2', '25-01 -16 11:59 SH01 ZJ08 T3']);
  assert.is(r.data.date, '2016-01-25');
  assert.match(r.evidence.date.text, /25-01 -16 11:59/);
});

test('figures with spaced dashes and neither a date label nor a time ("SIZE 12 - 05 - 16") are no date', async () => {
  const r = await dateOf('spaced-no-date', ['HOSE CLIP SIZE 12 - 05 - 16']);
  assert.is(r.data.date, null);
  assert.equal(r.fieldsMissing, ['date']);
});

test('digit look-alikes inside a slashed date ("Date: O1/O5/2Ol6") are read as digits', async () => {
  const r = await dateOf('look-alikes', ['Date: O1/O5/2Ol6']);
  assert.is(r.data.date, '2016-05-01');
});

test('an amount beside a ratio ("10.56/10.55") does not make 06/12/2016 month first: it is 6 December', async () => {
  const r = await dateOf('ratio', ['MTD SVGV: 10.56/10.55', 'INV NO/DATE: K074-001096 (06/12/2016)']);
  assert.is(r.data.date, '2016-12-06');
  assert.match(r.evidence.date.rule, /day first/);
});

test.run();
