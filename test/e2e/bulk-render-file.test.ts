// POST /bulk-render/file end to end: variables files (CSV, JSON array, XLSX) uploaded as multipart, one item per
// row, each output read back from the ZIP by pdftotext or python-docx; bad rows, wrong files, limits and form fields.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, type RunningServer, useServer } from '../helpers/quire-server.js';
import type { ApiClient } from '../helpers/api-client.js';
import { downloadBulkZip, pdfText, postBulkFile, pythonRead, saveLetter, waitForBulk } from '../helpers/bulk-jobs.js';
import { makePdf } from '../fixtures/pdfs.js';
import { bombXlsx } from '../fixtures/bulk/bomb-xlsx.js';

let server: RunningServer;
let api: ApiClient;
/** A letter using a plain and a dotted variable name; the saved variables are the defaults of every item. */
let letter: string;

useServer(test, (started) => ({ server, api } = started));

test.before(async () => {
  letter = await saveLetter(api, 'Dear {{name}} of {{city}},\n\nyour account is with {{customer.name}}.\n', { variables: { name: 'nobody', city: 'nowhere', 'customer.name': 'no one' } });
});

/** The text of every PDF of the finished bulk job's ZIP, by entry name. */
async function pdfTexts(bulk: Record<string, any>): Promise<Record<string, string>> {
  const zip = await downloadBulkZip(api, bulk);
  const texts: Record<string, string> = {};
  for (const [name, bytes] of zip) texts[name] = await pdfText(bytes);
  return texts;
}

test('renders one item per CSV row, with a byte-order mark, CRLF, quoted commas and quotes, and a dotted column', async () => {
  const csv = '\uFEFFname,city,customer.name\r\n"Smith, Ada",Berlin,ACME Ltd\r\n"Bob ""The Builder""",Paris,Initech\r\n';
  const created = await postBulkFile(api, { bytes: csv, name: 'people.csv' }, { documentId: letter });
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.headers.get('location'), `/api/v1/dev/bulk-render/${created.body.bulkJobId}`);
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  assert.is(bulk.status, 'COMPLETED', bulk.error);
  assert.equal(
    bulk.items.map((i: any) => [i.row, i.status, i.error]),
    [
      [2, 'COMPLETED', null],
      [3, 'COMPLETED', null],
    ],
  );
  const texts = await pdfTexts(bulk);
  assert.equal(Object.keys(texts).sort(), ['letter-001.pdf', 'letter-002.pdf']);
  assert.match(texts['letter-001.pdf']!, 'Dear Smith, Ada of Berlin, your account is with ACME Ltd.');
  assert.match(texts['letter-002.pdf']!, 'Dear Bob "The Builder" of Paris, your account is with Initech.');
});

test('renders one item per element of a JSON array file, nested objects filling dotted names, in the format of the form', async () => {
  const json = JSON.stringify([
    { name: 'Ada', city: 'Oslo', customer: { name: 'Globex' } },
    { name: 'Bob', filename: 'bob-letter' },
  ]);
  const created = await postBulkFile(api, { bytes: json, name: 'people.json' }, { documentId: letter, format: 'docx' });
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.format, 'DOCX');
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  assert.is(bulk.status, 'COMPLETED', bulk.error);
  assert.equal(
    bulk.items.map((i: any) => [i.row, i.filename]),
    [
      [1, 'letter-001.docx'],
      [2, 'bob-letter.docx'],
    ],
  );
  const zip = await downloadBulkZip(api, bulk);
  const paragraphs = async (name: string) => (await pythonRead(zip.get(name)!, 'docx')).paragraphs.map((p: { text: string }) => p.text);
  assert.equal(await paragraphs('letter-001.docx'), ['Dear Ada of Oslo,', 'your account is with Globex.']);
  // What a row leaves out is the saved document's own value.
  assert.equal(await paragraphs('bob-letter.docx'), ['Dear Bob of nowhere,', 'your account is with no one.']);
});

test("renders one item per row of the XLSX fixture's first sheet, with typed cells as text", async () => {
  // Columns of test/fixtures/bulk/make-variables-xlsx.py: name, amount, paid, due, stamp, double, customer.city, items.0.name, site, code, note.
  const sheet = await saveLetter(api, '{{name}} owes {{amount}} by {{due}} (double {{double}}, code {{code}}, paid {{paid}}) from {{customer.city}}: {{items.0.name}}.\n', {
    variables: { name: '', amount: 0, due: '', double: 0, code: 'none', paid: '', 'customer.city': 'nowhere', 'items.0.name': 'nothing' },
  });
  const xlsx = readFileSync(path.join(ROOT, 'test/fixtures/bulk/variables.xlsx'));
  const created = await postBulkFile(api, { bytes: xlsx, name: 'variables.xlsx' }, { documentId: sheet });
  assert.is(created.status, 202, created.bytes.toString());
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  assert.equal(
    bulk.items.map((i: any) => [i.row, i.status, i.error]),
    [
      [2, 'COMPLETED', null],
      [4, 'COMPLETED', null],
    ],
  );
  const texts = await pdfTexts(bulk);
  assert.match(texts['letter-001.pdf']!, 'Ada owes 12.5 by 2026-03-01 (double 25, code 007, paid true) from Berlin: Pen.');
  assert.match(texts['letter-002.pdf']!, 'Bob owes 3 by 2025-12-31 (double 6, code none, paid false) from nowhere: nothing.');
});

test('fails a ragged CSV row alone, with its row number, and renders the others', async () => {
  const csv = 'name,city\nAda,Oslo\n\nBob\nEve,Rome\n';
  const created = await postBulkFile(api, { bytes: csv, name: 'ragged.csv' }, { documentId: letter });
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.creditCost, 2);
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  assert.is(bulk.status, 'COMPLETED');
  assert.is(bulk.failedItems, 1);
  const bad = bulk.items[1];
  assert.is(bad.row, 4, 'the empty line still counts');
  assert.is(bad.status, 'FAILED');
  assert.is(bad.jobId, null);
  assert.match(bad.error, /^row 4: has 1 fields?; the header has 2/);
  const texts = await pdfTexts(bulk);
  assert.equal(Object.keys(texts).sort(), ['letter-001.pdf', 'letter-003.pdf']);
  assert.match(texts['letter-003.pdf']!, 'Dear Eve of Rome,');
});

test('answers 415 to a PDF uploaded as the variables file', async () => {
  const r = await postBulkFile(api, { bytes: await makePdf(1), name: 'variables.csv' }, { documentId: letter });
  assert.is(r.status, 415);
  assert.is(r.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  assert.match(r.body.detail, 'PDF');
});

test('refuses a file of 101 rows with 400 naming the limit of 100', async () => {
  const csv = `name\n${Array.from({ length: 101 }, (_, i) => `N${i}`).join('\n')}\n`;
  const r = await postBulkFile(api, { bytes: csv, name: 'many.csv' }, { documentId: letter });
  assert.is(r.status, 400);
  assert.equal(r.body.errors.map((e: any) => [e.path, e.code]), [['file', 'LIMIT_EXCEEDED']]);
  assert.match(r.body.detail, 'at most 100');
});

test('refuses a missing documentId, an unknown form field, a bad webhook and a missing file with 400 naming each', async () => {
  const csv = { bytes: 'name\nAda\n', name: 'v.csv' };
  const cases: Array<[typeof csv | null, Record<string, string>, string]> = [
    [csv, {}, 'documentId'],
    [csv, { documentId: letter, colour: 'blue' }, 'colour'],
    [csv, { documentId: letter, webhook: 'not json' }, 'webhook'],
    [csv, { documentId: letter, format: 'PNG' }, 'format'],
    [null, { documentId: letter }, 'file'],
  ];
  for (const [file, fields, field] of cases) {
    const r = await postBulkFile(api, file, fields);
    assert.is(r.status, 400, `${field}: ${r.bytes.toString()}`);
    assert.is(r.body.code, 'VALIDATION_FAILED');
    assert.equal(r.body.errors.map((e: any) => e.path), [field]);
  }
  // A document of no one's is found only after the form is read: 404.
  assert.is((await postBulkFile(api, csv, { documentId: '00000000-0000-4000-8000-000000000000' })).status, 404);
});

test('refuses an XLSX zip bomb with 400 quickly, and the server keeps answering', async () => {
  const started = Date.now();
  const r = await postBulkFile(api, { bytes: bombXlsx(500 * 1024 * 1024), name: 'bomb.xlsx' }, { documentId: letter });
  assert.is(r.status, 400, r.bytes.toString());
  assert.equal(r.body.errors.map((e: any) => [e.path, e.code]), [['file', 'LIMIT_EXCEEDED']]);
  assert.ok(Date.now() - started < 5000, `answered in ${Date.now() - started} ms`);
  const health = await api.withKey(null).get('/healthz');
  assert.is(health.status, 200);
});

test.run();
