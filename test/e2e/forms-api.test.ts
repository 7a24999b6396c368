// Interactive forms and records through the API key routes: fields derived from every kind of variable and changed by
// overrides, links revoked, rotated and expired, paging, If-Match, records read, deleted and exported (CSV read back by
// csv-parse), renders of a record with filloutId (and at once, autoRender; kept with the reason when unpaid) read back by
// pdftotext, and another organization seeing none of it.
// Longer than 400 lines: one server set-up serves every route of the forms API, each test a few HTTP exchanges.
//
// The server runs in this process (startQuire + createServer, as test/kernel/injected-clock does): a record is made
// the way the public page makes it, through `services.forms.submit`, which no API route reaches.
import 'reflect-metadata';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import { loadConfig } from '../../kernel/config.js';
import { createLogger } from '../../kernel/logger.js';
import { startQuire, type Quire } from '../../server/composition-root.js';
import { createServer, type QuireServer } from '../../server/app.js';
import { FormLinkError, type FormUpload } from '../../services/forms/form-service.js';
import { FormListSchema, FormSchema, RecordListSchema, RecordSchema } from '../../contracts/forms.js';
import { compileSchema } from '../../contracts/schema.js';
import type { FormRecord, FormValue } from '../../kernel/model.js';
import { admin, cleanup, ON_POSTGRES, OWNER_KEY, tempDir } from '../helpers/quire-server.js';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.js';
import { ApiClient } from '../helpers/api-client.js';
import { redPng, uploadRedPng, waitForRender } from '../helpers/render-jobs.js';
import { pdftotextLayout } from '../helpers/poppler.js';

type Json = Record<string, any>;

const API = '/api/v1/dev';
const isForm = compileSchema(FormSchema);
const isFormList = compileSchema(FormListSchema);
const isRecord = compileSchema(RecordSchema);
const isRecordList = compileSchema(RecordListSchema);

const dataDir = tempDir();
let cluster: ThrowawayPostgres | undefined;
let quire: Quire;
let http: QuireServer;
let api: ApiClient;
let other: ApiClient;
/** An organization without credits. */
let broke: ApiClient;
let baseUrl: string;
let docId: string;
let otherDocId: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const patch = (p: string, body: unknown, headers?: Record<string, string>) => api.request('PATCH', p, body, headers);
const del = (client: ApiClient, p: string) => client.request('DELETE', p);

test.before(async () => {
  // On the PostgreSQL pass the in-process server and the admin CLI share a database of a throw-away cluster.
  const env: Record<string, string> = {};
  if (ON_POSTGRES) {
    cluster = await startPostgres();
    env.QUIRE_DATABASE_URL = await cluster.database('forms_api');
  }
  const run = async (args: string[]) => {
    const r = await admin(dataDir, args, env);
    assert.is(r.code, 0, r.stderr);
    return r.json;
  };
  await run(['org', 'create', '--name', 'Main', '--credits', '1000']);
  const otherOrg = await run(['org', 'create', '--name', 'Other', '--credits', '100']);
  const otherKey = await run(['key', 'create', '--org', otherOrg.id, '--role', 'owner']);
  const brokeOrg = await run(['org', 'create', '--name', 'Broke', '--credits', '0']);
  const brokeKey = await run(['key', 'create', '--org', brokeOrg.id, '--role', 'owner']);
  const config = loadConfig({ QUIRE_DATA_DIR: dataDir, QUIRE_BOOTSTRAP_API_KEY: OWNER_KEY, QUIRE_RATE_LIMIT_PER_MINUTE: '0', ...env });
  quire = await startQuire(config, { logger: createLogger('silent') });
  http = createServer(quire);
  await new Promise<void>((r) => http.server.listen(0, '127.0.0.1', () => r()));
  baseUrl = `http://127.0.0.1:${(http.server.address() as AddressInfo).port}`;
  quire.config.publicUrl = baseUrl;
  api = new ApiClient(baseUrl, OWNER_KEY);
  other = api.withKey(otherKey.key);
  broke = api.withKey(brokeKey.key);
  docId = (await saveDocument(api, await invoiceConfig(api))).id;
  otherDocId = (await saveDocument(other, { document: { type: 'pdf' }, variables: { name: 'x' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Hi {{name}}' }] }] })).id;
});

test.after(async () => {
  await http?.shutdown();
  await cluster?.stop();
  cleanup(dataDir);
});

/** A document with a variable of every kind, and `order_ref`, which its text uses without declaring. */
async function invoiceConfig(client: ApiClient): Promise<Json> {
  return {
    document: { type: 'pdf', title: 'Invoice' },
    variables: {
      client_name: 'ACME GmbH',
      notes: 'First line\nSecond line',
      due_date: '2026-12-31',
      amount: 1250,
      logo: { type: 'image', src: await uploadRedPng(client), alt: 'Logo', width: '20%' },
      tasks: { type: 'list', items: ['Design', 'Build'], ordered: true },
      lines: { type: 'table', columns: ['Item', 'Qty'], rows: [{ Item: 'Chair', Qty: 2 }] },
    },
    sections: [
      {
        type: 'flow',
        content: [
          { type: 'text', text: 'Invoice for {{client_name}}, due {{due_date}}: {{amount}} EUR. Order {{order_ref}}.' },
          { type: 'variableRef', name: 'notes' },
          { type: 'variableRef', name: 'tasks' },
          { type: 'variableRef', name: 'lines' },
          { type: 'variableRef', name: 'logo' },
        ],
      },
    ],
  };
}

async function saveDocument(client: ApiClient, config: Json): Promise<Json> {
  const r = await client.post(`${API}/documents`, { name: 'Invoice document', config });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

async function createForm(body: Json = {}, documentId = docId): Promise<Json> {
  const r = await api.post(`${API}/documents/${documentId}/forms`, body);
  assert.is(r.status, 201, r.bytes.toString());
  assert.ok(isForm(r.body as unknown), JSON.stringify(isForm.errors));
  assert.is(r.headers.get('location'), `${API}/forms/${r.body.id}`);
  return r.body;
}

/** The 400 of a create, with the paths its errors name. */
async function refused(body: Json): Promise<string[]> {
  const r = await api.post(`${API}/documents/${docId}/forms`, body);
  assert.is(r.status, 400, r.bytes.toString());
  assert.is(r.body.code, 'VALIDATION_FAILED');
  return r.body.errors.map((e: Json) => e.path);
}

const tokenOf = (form: Json) => new URL(form.publicUrl).searchParams.get('token');

/** What the public page does with a link: the form and its document, or the FormLinkError's status and reason. */
async function open(formId: string, token: string | null): Promise<{ form: FormRecord } | string> {
  try {
    return await quire.services.forms.openPublic(formId, token);
  } catch (err) {
    if (err instanceof FormLinkError) return `${err.status} ${err.reason}`;
    throw err;
  }
}

/** A record as the public page stores one: the form opened by its link, then the checked values submitted. */
async function submit(form: Json, values: Record<string, FormValue>, withLogo = false) {
  const opened = await open(form.id, tokenOf(form));
  assert.type(opened, 'object', String(opened));
  const uploads: Record<string, FormUpload> = withLogo ? { logo: { bytes: await redPng(), mimeType: 'image/png', filename: 'logo.png' } } : {};
  return quire.services.forms.submit((opened as { form: FormRecord }).form, values, uploads, { userAgent: 'test-agent', locale: 'en', ip: '203.0.113.9' });
}

async function pdfText(jobId: string): Promise<string> {
  const job = await waitForRender(api, jobId);
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  return pdftotextLayout((await api.download(job.downloadUrl)).bytes);
}

test('derives one field per variable, by its value, and a text field for a variable the text uses undeclared', async () => {
  const form = await createForm();
  const byName = Object.fromEntries(form.fields.map((f: Json) => [f.name, f]));
  assert.equal(form.fields.map((f: Json) => f.name), ['client_name', 'notes', 'due_date', 'amount', 'logo', 'tasks', 'lines', 'order_ref']);
  assert.equal(
    form.fields.map((f: Json) => f.kind),
    ['text', 'textarea', 'date', 'number', 'image', 'list', 'table', 'text'],
  );
  assert.is(byName.client_name.label, 'Client name');
  assert.is(byName.due_date.label, 'Due date');
  assert.is(byName.order_ref.label, 'Order ref');
  assert.is(byName.client_name.defaultValue, 'ACME GmbH');
  assert.is(byName.amount.defaultValue, 1250);
  assert.is(byName.logo.defaultValue, null);
  assert.is(byName.order_ref.defaultValue, null);
  assert.equal(byName.tasks.defaultValue, ['Design', 'Build']);
  assert.equal(byName.lines.columns, [
    { name: 'Item', label: 'Item', kind: 'text', required: false },
    { name: 'Qty', label: 'Qty', kind: 'number', required: false },
  ]);
  assert.equal(byName.lines.defaultValue, [{ Item: 'Chair', Qty: 2 }]);
  assert.ok(form.fields.every((f: Json) => f.required === false));
  assert.is(form.title, 'Invoice document');
  assert.equal([form.autoRender, form.format, form.locale, form.submissionsPerMinute, form.recordIp, form.status], [false, 'PDF', 'en', 10, false, 'ACTIVE']);
  assert.not.ok('tokenNonce' in form);
  assert.match(form.publicUrl, new RegExp(`^${baseUrl}/f/${form.id}\\?token=[A-Za-z0-9_-]{43}$`));
  assert.is(typeof (await open(form.id, tokenOf(form))), 'object');
});

test('applies overrides by name: kinds, choices, bounds, patterns, columns, and leaving a field out', async () => {
  const form = await createForm({
    title: 'Order form',
    description: 'Tell us what you need.',
    fields: [
      { name: 'client_name', kind: 'choice', choices: [{ value: 'ACME GmbH' }, { value: 'Globex', label: 'Globex Corp.' }], required: true, help: 'Who pays' },
      { name: 'amount', kind: 'text', label: 'Amount (EUR)' },
      { name: 'order_ref', pattern: '[A-Z]{3}-\\d+', patternMessage: 'Like ABC-123', placeholder: 'ABC-123' },
      { name: 'due_date', min: '2026-01-01', max: '2027-12-31' },
      { name: 'notes', include: false },
      { name: 'tasks', minItems: 1, maxItems: 5 },
      { name: 'lines', columns: [{ name: 'Qty', label: 'Quantity', required: true }], maxItems: 20 },
      { name: 'logo', required: false },
    ],
  });
  const byName = Object.fromEntries(form.fields.map((f: Json) => [f.name, f]));
  assert.is(form.title, 'Order form');
  assert.not.ok(byName.notes);
  assert.is(byName.client_name.kind, 'choice');
  assert.equal(byName.client_name.choices, [{ value: 'ACME GmbH', label: 'ACME GmbH' }, { value: 'Globex', label: 'Globex Corp.' }]);
  assert.is(byName.client_name.defaultValue, 'ACME GmbH');
  assert.is(byName.client_name.required, true);
  assert.is(byName.amount.kind, 'text');
  assert.is(byName.amount.defaultValue, '1250');
  assert.is(byName.order_ref.pattern, '[A-Z]{3}-\\d+');
  assert.is(byName.order_ref.maxLength, 2000, 'a field with a pattern accepts at most 2000 characters');
  assert.equal([byName.due_date.min, byName.due_date.max], ['2026-01-01', '2027-12-31']);
  assert.equal([byName.tasks.minItems, byName.tasks.maxItems], [1, 5]);
  assert.equal(byName.lines.columns[1], { name: 'Qty', label: 'Quantity', kind: 'number', required: true });
});

test('refuses overrides that cannot hold with 400s naming fields[i]', async () => {
  assert.equal(await refused({ fields: [{ name: 'client_name' }, { name: 'no_such_variable' }] }), ['fields[1].name']);
  assert.equal(await refused({ fields: [{ name: 'order_ref', pattern: '(a+)+$' }] }), ['fields[0].pattern']);
  assert.equal(await refused({ fields: [{ name: 'order_ref', pattern: '([a-z' }] }), ['fields[0].pattern']);
  assert.equal(await refused({ fields: [{ name: 'order_ref', pattern: '\\d+', maxLength: 5000 }] }), ['fields[0].maxLength']);
  assert.equal(await refused({ fields: [{ name: 'tasks', kind: 'text' }] }), ['fields[0].kind']);
  assert.equal(await refused({ fields: [{ name: 'amount', kind: 'date' }] }), ['fields[0].kind']);
  assert.equal(await refused({ fields: [{ name: 'client_name', kind: 'choice' }] }), ['fields[0].choices']);
  assert.equal(await refused({ fields: [{ name: 'client_name', min: 3 }] }), ['fields[0].min']);
  assert.equal(await refused({ fields: [{ name: 'amount', min: 10, max: 5 }] }), ['fields[0].max']);
  assert.equal(await refused({ fields: [{ name: 'lines', columns: [{ name: 'Colour' }] }] }), ['fields[0].columns[0].name']);
  assert.equal(await refused({ fields: [{ name: 'amount' }, { name: 'amount' }] }), ['fields[1].name']);
  assert.equal(await refused({ expiresAt: new Date(Date.now() - 60_000).toISOString() }), ['expiresAt']);
  const r = await api.post(`${API}/documents/${docId}/forms`, { format: 'PNG' });
  assert.is(r.status, 400, 'the body schema refuses an unknown format');
});

test('lists a document\'s forms newest first, a page at a time', async () => {
  const doc = await saveDocument(api, await invoiceConfig(api));
  const made = [];
  for (let i = 0; i < 3; i++) {
    made.push((await createForm({ title: `Form ${i}` }, doc.id)).id);
    await sleep(5); // newest first goes by creation time: each its own millisecond
  }
  const first = await api.get(`${API}/documents/${doc.id}/forms?limit=2`);
  assert.is(first.status, 200);
  assert.ok(isFormList(first.body as unknown));
  assert.equal(first.body.items.map((f: Json) => f.id), [made[2], made[1]]);
  assert.type(first.body.nextCursor, 'string');
  const second = await api.get(`${API}/documents/${doc.id}/forms?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
  assert.equal(second.body.items.map((f: Json) => f.id), [made[0]]);
  assert.is(second.body.nextCursor, null);
  assert.is((await api.get(`${API}/documents/${doc.id}/forms?limit=0`)).status, 400);
});

test('changes a form with If-Match guarding against a stale version', async () => {
  const form = await createForm({ expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  const stale = await patch(`${API}/forms/${form.id}`, { title: 'Late' }, { 'If-Match': '"7"' });
  assert.is(stale.status, 412);
  assert.is(stale.body.code, 'VERSION_CONFLICT');
  const changed = await patch(`${API}/forms/${form.id}`, { title: 'Renamed', autoRender: true, format: 'DOCX', locale: 'de', labels: { submit: 'Absenden' }, expiresAt: null, fields: [{ name: 'notes', include: false }] }, { 'If-Match': `"${form.version}"` });
  assert.is(changed.status, 200, changed.bytes.toString());
  assert.ok(isForm(changed.body as unknown));
  assert.is(changed.headers.get('etag'), `"${form.version + 1}"`);
  assert.equal([changed.body.title, changed.body.autoRender, changed.body.format, changed.body.locale, changed.body.labels, changed.body.expiresAt], ['Renamed', true, 'DOCX', 'de', { submit: 'Absenden' }, null]);
  assert.not.ok(changed.body.fields.some((f: Json) => f.name === 'notes'));
  assert.is(changed.body.publicUrl, form.publicUrl, 'a change keeps the link');
  assert.is((await patch(`${API}/forms/${form.id}`, { expiresAt: '2001-01-01T00:00:00Z' })).status, 400);
  assert.is((await patch(`${API}/forms/${form.id}`, {})).status, 400, 'an empty change is refused');
  const read = await api.get(`${API}/forms/${form.id}`);
  assert.equal(read.body, changed.body);
});

test('revokes a link (410, status REVOKED) and rotates it: a new URL, the old one 410 as revoked, a forged one 404', async () => {
  const form = await createForm();
  const revoked = await api.post(`${API}/forms/${form.id}/revoke`, undefined);
  assert.is(revoked.status, 200, revoked.bytes.toString());
  assert.is(revoked.body.status, 'REVOKED');
  assert.type(revoked.body.revokedAt, 'string');
  assert.is(await open(form.id, tokenOf(form)), '410 revoked');
  const rotated = await api.post(`${API}/forms/${form.id}/rotate-token`, undefined);
  assert.is(rotated.status, 200);
  assert.is(rotated.body.status, 'ACTIVE');
  assert.is(rotated.body.revokedAt, null);
  assert.is.not(rotated.body.publicUrl, form.publicUrl);
  assert.match(rotated.body.publicUrl, new RegExp(`^${baseUrl}/f/${form.id}\\?token=[A-Za-z0-9_-]{43}$`));
  assert.is(await open(form.id, tokenOf(form)), '410 revoked');
  assert.is(typeof (await open(form.id, tokenOf(rotated.body))), 'object');
  assert.is(await open(form.id, null), '404 not-found');
  const token = tokenOf(rotated.body)!;
  assert.is(await open(form.id, `${token[0] === 'x' ? 'y' : 'x'}${token.slice(1)}`), '404 not-found', 'a token changed in one character');
});

test('expires a link at expiresAt (status EXPIRED, 410)', async () => {
  const form = await createForm({ expiresAt: new Date(Date.now() + 1500).toISOString() });
  assert.is(form.status, 'ACTIVE');
  await sleep(1700);
  assert.is((await api.get(`${API}/forms/${form.id}`)).body.status, 'EXPIRED');
  assert.is(await open(form.id, tokenOf(form)), '410 expired');
});

test('stores a submission as a record: values, the uploaded image as an asset, no IP unless the form keeps it', async () => {
  const form = await createForm();
  const { record, job } = await submit(form, { client_name: 'Globex', amount: 99, tasks: ['Plan', 'Ship'], lines: [{ Item: 'Desk', Qty: 1 }] }, true);
  assert.is(job, null, 'a form without autoRender renders nothing');
  assert.is(record.submitter.ip, null);
  const r = await api.get(`${API}/records/${record.id}`);
  assert.is(r.status, 200, r.bytes.toString());
  assert.ok(isRecord(r.body as unknown), JSON.stringify(isRecord.errors));
  assert.equal(r.body.values.tasks, ['Plan', 'Ship']);
  assert.is(r.body.values.amount, 99);
  const logo = r.body.values.logo;
  assert.equal([logo.mimeType, logo.filename, logo.url], ['image/png', 'logo.png', `${API}/images/${logo.assetId}`]);
  const image = await api.get(logo.url);
  assert.is(image.status, 200);
  assert.equal(image.bytes, await redPng());
  assert.is((await other.get(logo.url)).status, 404, "another organization cannot read a record's image");
  const withIp = await createForm({ recordIp: true });
  assert.is((await submit(withIp, { client_name: 'Initech' })).record.submitter.ip, '203.0.113.9');
});

test('lists records by form and by document, newest first, a page at a time', async () => {
  const form = await createForm();
  const ids = [];
  for (const name of ['One', 'Two', 'Three']) {
    ids.push((await submit(form, { client_name: name })).record.id);
    await sleep(5); // newest first goes by creation time: each its own millisecond
  }
  const first = await api.get(`${API}/records?formId=${form.id}&limit=2`);
  assert.is(first.status, 200);
  assert.ok(isRecordList(first.body as unknown));
  assert.equal(first.body.items.map((r: Json) => r.id), [ids[2], ids[1]]);
  const second = await api.get(`${API}/records?formId=${form.id}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
  assert.equal(second.body.items.map((r: Json) => r.id), [ids[0]]);
  assert.is(second.body.nextCursor, null);
  const byDocument = await api.get(`${API}/records?documentId=${docId}&limit=200`);
  assert.ok(ids.every((id) => byDocument.body.items.some((r: Json) => r.id === id)));
  assert.ok(byDocument.body.items.every((r: Json) => r.documentId === docId));
});

test('renders a record with filloutId: its values in the PDF, the request\'s variables over them', async () => {
  const form = await createForm();
  const { record } = await submit(form, { client_name: 'Globex Ltd', order_ref: 'ORD-77', tasks: ['Survey site', 'Pour concrete'], lines: [{ Item: 'Cement', Qty: 40 }], notes: 'Deliver before noon' });
  const created = await api.post(`${API}/render/document/${docId}`, { filloutId: record.id });
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.filloutId, record.id);
  const text = await pdfText(created.body.jobId);
  for (const seen of ['Globex Ltd', 'ORD-77', 'Survey site', 'Pour concrete', 'Cement', '40', 'Deliver before noon', '1250']) assert.ok(text.includes(seen), `"${seen}" in:\n${text}`);
  assert.not.ok(text.includes('ACME'), "the record's value replaces the document's");
  const over = await api.post(`${API}/render/document/${docId}`, { filloutId: record.id, variables: { client_name: 'Override AG' } });
  const overText = await pdfText(over.body.jobId);
  assert.ok(overText.includes('Override AG') && overText.includes('ORD-77'), overText);
  assert.not.ok(overText.includes('Globex'));
});

test('refuses filloutId of another document (400), an unknown or another organization\'s record (404)', async () => {
  const form = await createForm();
  const { record } = await submit(form, { client_name: 'Wrong doc' });
  const doc = await saveDocument(api, { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Other' }] }] });
  const wrong = await api.post(`${API}/render/document/${doc.id}`, { filloutId: record.id });
  assert.is(wrong.status, 400, wrong.bytes.toString());
  assert.is(wrong.body.code, 'VALIDATION_FAILED');
  assert.equal(wrong.body.errors.map((e: Json) => e.path), ['filloutId']);
  const unknown = await api.post(`${API}/render/document/${docId}`, { filloutId: '00000000-0000-4000-8000-000000000000' });
  assert.is(unknown.status, 404);
  assert.match(unknown.body.detail, /filloutId/);
  const foreign = await other.post(`${API}/render/document/${otherDocId}`, { filloutId: record.id });
  assert.is(foreign.status, 404);
  assert.match(foreign.body.detail, /filloutId/);
});

test('renders each record of an autoRender form at once, with its filloutId, and reports the render', async () => {
  const form = await createForm({ autoRender: true, fields: [{ name: 'order_ref', kind: 'boolean', trueText: 'Express delivery', falseText: 'Standard delivery' }] });
  const { record, job } = await submit(form, { client_name: 'Auto Corp', order_ref: true }, true);
  assert.ok(job, 'the render was admitted');
  assert.is(record.jobId, job!.id);
  assert.is(record.renderError, null);
  const text = await pdfText(job!.id);
  assert.ok(text.includes('Auto Corp') && text.includes('Express delivery'), text);
  const view = await api.get(`${API}/render/${job!.id}`);
  assert.is(view.body.filloutId, record.id);
  const status = await quire.services.forms.renderStatus(record);
  assert.is(status?.status, 'COMPLETED');
  assert.match(status!.downloadUrl!, /\/render\/.+\/download\?token=/);
  assert.is((await api.get(`${API}/records/${record.id}`)).body.jobId, job!.id);
});

test('keeps a record whose render the organization cannot pay for, with the reason', async () => {
  const doc = await saveDocument(broke, { document: { type: 'pdf' }, variables: { name: 'x' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Hi {{name}}' }] }] });
  const made = await broke.post(`${API}/documents/${doc.id}/forms`, { autoRender: true });
  assert.is(made.status, 201, made.bytes.toString());
  const { record, job } = await submit(made.body, { name: 'Nobody' });
  assert.is(job, null);
  assert.is(record.renderError?.code, 'INSUFFICIENT_CREDITS');
  const read = await broke.get(`${API}/records/${record.id}`);
  assert.equal([read.body.values.name, read.body.jobId, read.body.renderError.code], ['Nobody', null, 'INSUFFICIENT_CREDITS']);
});

test('exports a form\'s records as CSV (spreadsheet formulas defused) and as JSON', async () => {
  const form = await createForm();
  await submit(form, { client_name: '=HYPERLINK("https://evil.example","click")', amount: -5, tasks: ['+1 first', 'second'], lines: [{ Item: 'Chair', Qty: 2 }], notes: '@SUM(A1)' }, true);
  await sleep(5);
  await submit(form, { client_name: 'Plain', order_ref: '-2+3' });
  const csv = await api.get(`${API}/records/export?formId=${form.id}&format=csv`);
  assert.is(csv.status, 200, csv.bytes.toString());
  assert.match(csv.headers.get('content-type')!, /^text\/csv/);
  assert.is(csv.headers.get('content-disposition'), `attachment; filename="records-${form.id}.csv"`);
  const rows: string[][] = parse(csv.bytes);
  assert.equal(rows[0], ['id', 'createdAt', 'jobId', 'client_name', 'notes', 'due_date', 'amount', 'logo', 'tasks', 'lines', 'order_ref']);
  assert.is(rows.length, 3);
  const [plain, hostile] = [rows[1]!, rows[2]!];
  assert.is(plain[3], 'Plain');
  assert.is(plain[10], "'-2+3");
  assert.is(hostile[3], `'=HYPERLINK("https://evil.example","click")`);
  assert.is(hostile[4], "'@SUM(A1)");
  assert.is(hostile[6], '-5', 'a number is no formula');
  assert.match(hostile[7]!, new RegExp(`^${API}/images/[0-9a-f-]{36}$`));
  assert.is(hostile[8], "'+1 first\nsecond");
  assert.equal(JSON.parse(hostile[9]!), [{ Item: 'Chair', Qty: 2 }]);
  const texts = rows.slice(1).flatMap((row) => row.filter((cell) => !/^-?\d+(\.\d+)?$/.test(cell)));
  for (const cell of texts) assert.not.match(cell, /^[=+\-@\t\r]/, `a cell a spreadsheet would run: ${cell}`);
  const json = await api.get(`${API}/records/export?formId=${form.id}&format=json`);
  assert.is(json.status, 200);
  assert.is(json.body.length, 2);
  assert.ok(json.body.every((r: Json) => isRecord(r as unknown)));
  assert.is(json.body[1].values.client_name, '=HYPERLINK("https://evil.example","click")', 'JSON keeps the values as submitted');
  assert.is((await api.get(`${API}/records/export?format=csv`)).status, 400, 'formId is required');
  assert.is((await api.get(`${API}/records/export?formId=${form.id}&format=xlsx`)).status, 400);
});

test('deletes a record with its image, and a form with its records', async () => {
  const form = await createForm();
  const kept = (await submit(form, { client_name: 'Kept' })).record;
  const gone = (await submit(form, { client_name: 'Gone' }, true)).record;
  const logo = (await api.get(`${API}/records/${gone.id}`)).body.values.logo;
  assert.is((await del(api, `${API}/records/${gone.id}`)).status, 204);
  assert.is((await api.get(`${API}/records/${gone.id}`)).status, 404);
  assert.is((await api.get(logo.url)).status, 404, "the record's image went with it");
  assert.is((await del(api, `${API}/records/${gone.id}`)).status, 404);
  assert.is((await del(api, `${API}/forms/${form.id}`)).status, 204);
  assert.is((await api.get(`${API}/forms/${form.id}`)).status, 404);
  assert.is((await api.get(`${API}/records/${kept.id}`)).status, 404, 'records go with their form');
  assert.is(await open(form.id, tokenOf(form)), '404 not-found');
});

test("keeps a deleted document's forms and records: readable, their links 410", async () => {
  const doc = await saveDocument(api, await invoiceConfig(api));
  const form = await createForm({}, doc.id);
  const { record } = await submit(form, { client_name: 'Survivor' });
  assert.is((await del(api, `${API}/documents/${doc.id}`)).status, 204);
  assert.is((await api.get(`${API}/forms/${form.id}`)).status, 200);
  assert.is((await api.get(`${API}/documents/${doc.id}/forms`)).body.items.length, 1);
  assert.is((await api.get(`${API}/records/${record.id}`)).body.values.client_name, 'Survivor');
  assert.equal((await api.get(`${API}/records?documentId=${doc.id}`)).body.items.map((r: Json) => r.id), [record.id]);
  assert.is(await open(form.id, tokenOf(form)), '410 document-deleted');
  const refetch = await patch(`${API}/forms/${form.id}`, { fields: [] });
  assert.is(refetch.status, 400, 'fields cannot be derived from a deleted document');
  assert.is((await api.post(`${API}/documents/${doc.id}/forms`, {})).status, 404);
});

test("answers 404 to another organization on every form and record route", async () => {
  const form = await createForm();
  const { record } = await submit(form, { client_name: 'Private' });
  const answers = [
    await other.post(`${API}/documents/${docId}/forms`, {}),
    await other.get(`${API}/documents/${docId}/forms`),
    await other.get(`${API}/forms/${form.id}`),
    await other.request('PATCH', `${API}/forms/${form.id}`, { title: 'Mine' }),
    await other.post(`${API}/forms/${form.id}/revoke`, undefined),
    await other.post(`${API}/forms/${form.id}/rotate-token`, undefined),
    await del(other, `${API}/forms/${form.id}`),
    await other.get(`${API}/records?formId=${form.id}`),
    await other.get(`${API}/records?documentId=${docId}`),
    await other.get(`${API}/records/${record.id}`),
    await del(other, `${API}/records/${record.id}`),
    await other.get(`${API}/records/export?formId=${form.id}`),
  ];
  assert.equal(answers.map((a) => a.status), answers.map(() => 404), answers.map((a) => a.bytes.toString()).join('\n'));
  const still = await api.get(`${API}/forms/${form.id}`);
  assert.equal([still.body.title, still.body.status, still.body.version], [form.title, 'ACTIVE', 1]);
  assert.is((await api.get(`${API}/records/${record.id}`)).status, 200);
});

test('describes the forms and records routes in the OpenAPI document', async () => {
  const spec = (await api.get(`${API}/openapi.json`)).body;
  for (const [path, method, tag] of [
    ['/api/v1/dev/documents/{documentId}/forms', 'post', 'Forms'],
    ['/api/v1/dev/forms/{formId}', 'patch', 'Forms'],
    ['/api/v1/dev/forms/{formId}/rotate-token', 'post', 'Forms'],
    ['/api/v1/dev/records', 'get', 'Records'],
    ['/api/v1/dev/records/export', 'get', 'Records'],
    ['/api/v1/dev/records/{recordId}', 'delete', 'Records'],
  ] as const) {
    assert.ok(spec.paths[path]?.[method], `${method} ${path}`);
    assert.equal(spec.paths[path][method].tags, [tag]);
  }
});

test.run();
