// POST /tools/pdf/fill-form on a LibreOffice-exported AcroForm, read back with pdfjs (field values), poppler (appearance text) and qpdf.
// test-stores: once (AcroForm filling; its jobs and files reach the store as files.test's and pdf-tools.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { encryptedPdf, makePdf, withObjectStreams } from '../fixtures/pdfs.js';
import { libreOfficeFormPdf } from '../fixtures/pdf-forms.js';
import { pdfFormFields, pdfWidgetCounts, pdftotextPages, qpdfCheck, qpdfObjects } from '../fixtures/pdf-readers.js';

const FILL = '/api/v1/dev/tools/pdf/fill-form';
let server: RunningServer;
let api: ApiClient;
let formId: string;

const ALL_VALUES = {
  fullName: 'Ada Lovelace',
  notes: 'First line of notes\nSecond line, with ümlauts & <brackets>',
  agree: true,
  size: 'large',
  colour: 'Green',
  fruit: 'Pear',
  city: 'Trondheim',
};

test.before(async () => {
  server = await startServer();
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  formId = await api.uploadId(await libreOfficeFormPdf(), 'order-form.pdf');
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

async function fill(body: Record<string, unknown>): Promise<any> {
  const created = await api.post(FILL, body);
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.action, 'pdf.fill-form');
  return api.waitForJob(created.body.id);
}

const balance = async () => (await api.get('/api/v1/dev/credits')).body.balance as number;

test('the LibreOffice fixture is a real AcroForm with one field of every kind, all empty', async () => {
  const fields = await pdfFormFields((await api.download(`${server.baseUrl}/api/v1/dev/tools/files/${formId}/download`, true)).bytes);
  assert.equal(Object.keys(fields).sort(), ['agree', 'city', 'colour', 'fruit', 'fullName', 'notes', 'size']);
  assert.is(fields.fullName![0]!.value, '');
  assert.is(fields.agree![0]!.value, 'Off');
  assert.is(fields.notes![0]!.multiline, true);
});

test('fills text, multi-line text, checkbox, radio, dropdown, list box and an editable combo box; every reader sees the values', async () => {
  const before = await balance();
  const job = await fill({ fileId: formId, fields: ALL_VALUES });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result, { filledFields: Object.keys(ALL_VALUES), fieldCount: 7, flattened: false, xfaRemoved: false, pageCount: 1 });
  assert.is(job.creditCost, 1);
  assert.is(await balance(), before - 1);
  const dl = await api.withKey(null).download(job.downloadUrl);
  assert.is(dl.headers.get('content-type'), 'application/pdf');
  const pdf = dl.bytes;

  // Field values, as pdfjs reads them.
  const fields = await pdfFormFields(pdf);
  assert.is(fields.fullName![0]!.value, 'Ada Lovelace');
  assert.is(fields.notes![0]!.value, ALL_VALUES.notes);
  assert.is(fields.agree![0]!.value, fields.agree![0]!.exportValues, 'the checkbox is on');
  assert.equal(fields.size!.map((w) => w.value), ['large', 'large']);
  assert.is(fields.colour![0]!.value, 'Green');
  assert.is(fields.fruit![0]!.value, 'Pear');
  assert.is(fields.city![0]!.value, 'Trondheim');

  // Appearance streams: poppler draws what the file's appearances show.
  const [text] = await pdftotextPages(pdf);
  for (const shown of ['Ada Lovelace', 'First line of notes', 'Second line, with ümlauts & <brackets>', 'Green', 'Trondheim']) assert.ok(text!.includes(shown), `${shown} in:\n${text}`);
  // Still a form: the widgets are there and editable.
  assert.equal(await pdfWidgetCounts(pdf), [8]); // seven fields, the radio group with two buttons
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, check.output);
});

test('unchecks a checkbox with false and keeps the fields it was not asked about', async () => {
  const first = await fill({ fileId: formId, fields: { agree: true, fullName: 'Kept' } });
  const second = await fill({ fileId: first.outputFileId, fields: { agree: false } });
  assert.is(second.status, 'COMPLETED', second.error);
  const fields = await pdfFormFields((await api.download(second.downloadUrl)).bytes);
  assert.is(fields.agree![0]!.value, 'Off');
  assert.is(fields.fullName![0]!.value, 'Kept');
});

test('flatten: true draws the values into the page and removes the form', async () => {
  const job = await fill({ fileId: formId, fields: ALL_VALUES, flatten: true });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.result.flattened, true);
  const pdf = (await api.download(job.downloadUrl)).bytes;
  assert.equal(await pdfFormFields(pdf), {});
  assert.equal(await pdfWidgetCounts(pdf), [0]);
  const [text] = await pdftotextPages(pdf);
  for (const shown of ['Ada Lovelace', 'Second line, with ümlauts & <brackets>', 'Green', 'Trondheim']) assert.ok(text!.includes(shown), `${shown} in:\n${text}`);
  // pdftotext's output includes poppler's complaints: none about the file's structure.
  assert.not.match(text!, /Syntax Error|XRef|xref/);
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, check.output);
});

test('flatten on a form stored in object streams leaves no page pointing at a removed widget', async () => {
  // pdf-lib's flatten deletes check box and radio widgets but left them in the page's /Annots; poppler then
  // finds the cross-reference table broken ("Invalid XRef entry") and rebuilds it.
  const packed = await api.uploadId(await withObjectStreams(await libreOfficeFormPdf()), 'packed-form.pdf');
  const job = await fill({ fileId: packed, fields: { fullName: 'Ada Lovelace', agree: true, size: 'small' }, flatten: true });
  assert.is(job.status, 'COMPLETED', job.error);
  const pdf = (await api.download(job.downloadUrl)).bytes;
  const [text] = await pdftotextPages(pdf);
  assert.ok(text!.includes('Ada Lovelace'), text);
  assert.not.match(text!, /Syntax Error|XRef|xref/);
  assert.equal(await pdfWidgetCounts(pdf), [0]);
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, check.output);
});

test('fails naming unknown field names and listing the form\'s fields, and charges nothing', async () => {
  const before = await balance();
  const job = await fill({ fileId: formId, fields: { fullName: 'x', 'full name': 'y', Agree: true } });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'FORM_FIELD_UNKNOWN');
  assert.match(job.error, '"full name"');
  assert.match(job.error, '"Agree"');
  for (const valid of ['"fullName" (text)', '"agree" (checkbox)', '"size" (radio group: "small", "large")', '"colour" (dropdown: "Red", "Green", "Blue")']) assert.match(job.error, valid);
  assert.is(job.outputFileId, null);
  assert.is(await balance(), before);
});

test('fails naming every invalid value with what its field accepts', async () => {
  const job = await fill({ fileId: formId, fields: { size: 'medium', colour: 'Purple', fruit: 'Kiwi', agree: 'yes', fullName: true } });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'FORM_VALUE_INVALID');
  assert.match(job.error, 'fields["size"]: "medium" is not one of the radio group\'s options; valid: "small" and "large"');
  assert.match(job.error, 'fields["colour"]: "Purple" is not one of the dropdown\'s options; valid: "Red", "Green" and "Blue"');
  assert.match(job.error, 'fields["fruit"]: "Kiwi"');
  assert.match(job.error, 'fields["agree"] is a checkbox: give true or false');
  assert.match(job.error, 'fields["fullName"] is a text: give a string');
});

const UNICODE_VALUES = { fullName: 'Ελληνικά Кириллица', notes: 'Ünïcödé – Łódź\nВторая строка', city: 'Zürich – Цюрих' };

type QpdfObjects = Awaited<ReturnType<typeof qpdfObjects>>;
/** A value of qpdf's JSON with an indirect reference (`"12 0 R"`) replaced by the object it names. */
function deref(objects: QpdfObjects, v: unknown): any {
  return typeof v === 'string' && /^\d+ \d+ R$/.test(v) ? (objects[`obj:${v}`]!.value ?? objects[`obj:${v}`]!.stream!.dict) : v;
}
/** What qpdf reads of the form: /DR /Font (key → BaseFont and reference) and each field's /DA. */
async function formFonts(pdf: Uint8Array): Promise<{ dr: Record<string, { baseFont: string; ref: string }>; da: Record<string, string> }> {
  const objects = await qpdfObjects(pdf);
  const catalog = Object.values(objects).find((o) => (o.value as any)?.['/Type'] === '/Catalog')!.value as any;
  const acroForm = deref(objects, catalog['/AcroForm']);
  const fonts = deref(objects, deref(objects, acroForm['/DR'])?.['/Font']) ?? {};
  const dr = Object.fromEntries(Object.entries(fonts).map(([key, ref]) => [key.slice(1), { baseFont: String(deref(objects, ref)['/BaseFont']), ref: String(ref) }]));
  const da: Record<string, string> = {};
  for (const o of Object.values(objects)) {
    const v = o.value as any;
    // qpdf --json=2 writes PDF strings as "u:<text>".
    if (v?.['/FT'] && typeof v['/T'] === 'string' && typeof v['/DA'] === 'string') da[v['/T'].replace(/^u:/, '')] = v['/DA'].replace(/^u:/, '');
  }
  return { dr, da };
}
const fontOfDa = (da: string) => /\/(\S+) [\d.]+ Tf/.exec(da)?.[1];

test('fills Greek, Cyrillic and accented Latin in a Noto Sans subset: pdfjs reads the values, poppler shows them, /DA and /DR name the font', async () => {
  const job = await fill({ fileId: formId, fields: UNICODE_VALUES });
  assert.is(job.status, 'COMPLETED', job.error);
  const pdf = (await api.download(job.downloadUrl)).bytes;
  const fields = await pdfFormFields(pdf);
  for (const [name, value] of Object.entries(UNICODE_VALUES)) assert.is(fields[name]![0]!.value, value, name);
  const [text] = await pdftotextPages(pdf);
  for (const shown of ['Ελληνικά Кириллица', 'Ünïcödé – Łódź', 'Вторая строка', 'Zürich – Цюрих']) assert.ok(text!.includes(shown), `${shown} in:\n${text}`);
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, check.output);
  // A viewer that rebuilds an appearance finds the embedded font through the field's /DA and the form's /DR.
  const { dr, da } = await formFonts(pdf);
  for (const name of Object.keys(UNICODE_VALUES)) {
    const key = fontOfDa(da[name]!)!;
    assert.ok(dr[key], `${name}: /DA ${da[name]} names a font in /DR (${Object.keys(dr)})`);
    assert.match(dr[key]!.baseFont, 'NotoSans-Regular');
  }
  assert.ok(pdf.length < 60_000, `${pdf.length} bytes: the font is a subset`);
});

test('a form filled twice keeps each Noto Sans subset under its own /DR key, and Hebrew takes Noto Sans Hebrew', async () => {
  const first = await fill({ fileId: formId, fields: { fullName: 'Ελληνικά' } });
  const second = await fill({ fileId: first.outputFileId, fields: { notes: 'Кириллица', city: 'שלום עולם' } });
  assert.is(second.status, 'COMPLETED', second.error);
  const pdf = (await api.download(second.downloadUrl)).bytes;
  const fields = await pdfFormFields(pdf);
  assert.is(fields.fullName![0]!.value, 'Ελληνικά');
  assert.is(fields.notes![0]!.value, 'Кириллица');
  assert.is(fields.city![0]!.value, 'שלום עולם');
  const { dr, da } = await formFonts(pdf);
  const [greek, cyrillic, hebrew] = ['fullName', 'notes', 'city'].map((n) => dr[fontOfDa(da[n]!)!]!);
  assert.match(greek!.baseFont, 'NotoSans-Regular');
  assert.match(cyrillic!.baseFont, 'NotoSans-Regular');
  assert.is.not(greek!.ref, cyrillic!.ref, 'two subsets, two keys');
  assert.match(hebrew!.baseFont, 'NotoSansHebrew-Regular');
  const [text] = await pdftotextPages(pdf);
  for (const shown of ['Ελληνικά', 'Кириллица']) assert.ok(text!.includes(shown), `${shown} in:\n${text}`);
  assert.ok((await qpdfCheck(pdf)).ok);
});

test('Chinese, Japanese and Thai values take a subset of the script\'s Noto font, named in the field\'s /DA', async () => {
  const job = await fill({ fileId: formId, fields: { fullName: '张伟', notes: 'ひらがな 東京', city: 'กรุงเทพ' } });
  assert.is(job.status, 'COMPLETED', job.error);
  const pdf = (await api.download(job.downloadUrl)).bytes;
  const fields = await pdfFormFields(pdf);
  assert.is(fields.fullName![0]!.value, '张伟');
  assert.is(fields.notes![0]!.value, 'ひらがな 東京');
  assert.is(fields.city![0]!.value, 'กรุงเทพ');
  const { dr, da } = await formFonts(pdf);
  const expected: Record<string, string> = { fullName: 'NotoSansSC-Regular', notes: 'NotoSansJP-Regular', city: 'NotoSansThai-Regular' };
  for (const [name, font] of Object.entries(expected)) assert.match(dr[fontOfDa(da[name]!)!]!.baseFont, font, name);
  const [text] = await pdftotextPages(pdf);
  for (const shown of ['张伟', 'ひらがな 東京']) assert.ok(text!.includes(shown), `${shown} in:\n${text}`);
  assert.ok((await qpdfCheck(pdf)).ok);
  assert.ok(pdf.length < 100_000, `${pdf.length} bytes: the fonts are subsets`);
});

test('flatten: true draws Unicode values into the page', async () => {
  const job = await fill({ fileId: formId, fields: UNICODE_VALUES, flatten: true });
  assert.is(job.status, 'COMPLETED', job.error);
  const pdf = (await api.download(job.downloadUrl)).bytes;
  assert.equal(await pdfFormFields(pdf), {});
  const [text] = await pdftotextPages(pdf);
  for (const shown of ['Ελληνικά Кириллица', 'Ünïcödé – Łódź', 'Вторая строка', 'Zürich – Цюрих']) assert.ok(text!.includes(shown), `${shown} in:\n${text}`);
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, check.output);
});

test('fails naming the field and the characters no bundled font has, or the fonts a value would need together, and for line breaks in a one-line field', async () => {
  const job = await fill({ fileId: formId, fields: { fullName: '张伟 ᱚᱛ ✓ 𐀀', notes: 'ok', city: 'Ελληνικά שלום' } });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'FORM_VALUE_INVALID');
  assert.match(job.error, 'fields["fullName"]: no bundled font has the characters "ᱚ" (U+1C5A), "ᱛ" (U+1C5B), "𐀀" (U+10000)');
  assert.match(job.error, 'fields["city"]: its characters need Noto Sans and Noto Sans Hebrew together');
  assert.not.match(job.error, 'fields["notes"]');
  assert.is(job.outputFileId, null);
  const lines = await fill({ fileId: formId, fields: { fullName: 'a\nb' } });
  assert.match(lines.error, 'single-line');
});

test('fails a PDF without a form with PDF_NO_FORM saying so', async () => {
  const id = await api.uploadId(await makePdf(2), 'plain.pdf');
  const job = await fill({ fileId: id, fields: { name: 'x' } });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PDF_NO_FORM');
  assert.match(job.error, 'has no form');
  assert.match(job.error, 'no fillable form fields');
});

test('fails an encrypted PDF pointing at /tools/pdf/unlock', async () => {
  const id = await api.uploadId(await encryptedPdf('pw'), 'locked.pdf');
  const job = await fill({ fileId: id, fields: { name: 'x' } });
  assert.is(job.errorCode, 'PDF_ENCRYPTED');
  assert.match(job.error, '/tools/pdf/unlock');
});

test('answers 400 for a body that breaks the contract: no fields, a number value, an unknown property', async () => {
  const empty = await api.post(FILL, { fileId: formId, fields: {} });
  assert.is(empty.status, 400);
  assert.is(empty.body.errors[0].path, 'fields');
  const number = await api.post(FILL, { fileId: formId, fields: { fullName: 42 } });
  assert.is(number.status, 400);
  assert.match(number.body.errors.map((e: { path: string }) => e.path).join(' '), 'fields.fullName');
  const extra = await api.post(FILL, { fileId: formId, fields: { fullName: 'x' }, flaten: true });
  assert.is(extra.status, 400);
  assert.match(JSON.stringify(extra.body.errors), 'flaten');
});

test.run();
