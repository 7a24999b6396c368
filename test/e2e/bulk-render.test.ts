// POST /bulk-render end to end: a saved document rendered once per variable set, polled to its end, its ZIP read by
// Python's zipfile and each entry by pdftotext, python-docx or odfpy; limits, tenancy, credits and the webhook.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { admin, cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { BULK, downloadBulkZip, ledger, pdfText, pythonRead, saveLetter, waitForBulk } from '../helpers/bulk-jobs.js';
import { receiver, until } from '../helpers/webhook-receiver.js';

const dataDir = tempDir();
let server: RunningServer;
let api: ApiClient;
/** An API key of a second organization, whose balance is 2 credits. */
let other: ApiClient;
let letter: string;

test.before(async () => {
  // The first start creates the default organization; the admin CLI adds the second while the server is stopped.
  const first = await startServer({ dataDir });
  assert.is(await first.stop(), 0);
  const org = await admin(dataDir, ['org', 'create', '--name', 'Small Org', '--credits', '2']);
  assert.is(org.code, 0, org.stderr);
  const key = await admin(dataDir, ['key', 'create', '--org', org.json.id, '--role', 'owner']);
  assert.is(key.code, 0, key.stderr);
  server = await startServer({ dataDir, env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  other = new ApiClient(server.baseUrl, key.json.key);
  letter = await saveLetter(api);
});

test.after(async () => {
  await server?.stop();
  cleanup(dataDir);
});

test('renders one PDF per item, each with its own variables, zipped under the document filename or the item filename', async () => {
  const names = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing'];
  const created = await api.post(BULK, { documentId: letter, items: [{ name: names[0] }, { name: names[1] }, { name: names[2], filename: 'turing' }] });
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.headers.get('location'), `${BULK}/${created.body.bulkJobId}`);
  assert.is(created.body.documentId, letter);
  assert.is(created.body.format, 'PDF');
  assert.is(created.body.totalItems, 3);
  assert.is(created.body.creditCost, 3);
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  assert.is(bulk.status, 'COMPLETED', bulk.error);
  assert.is(bulk.completedItems, 3);
  assert.is(bulk.failedItems, 0);
  assert.is(bulk.error, null);
  assert.type(bulk.completedAt, 'string');
  assert.equal(
    bulk.items.map((i: any) => [i.index, i.status, i.filename, i.error]),
    [
      [0, 'COMPLETED', 'letter-001.pdf', null],
      [1, 'COMPLETED', 'letter-002.pdf', null],
      [2, 'COMPLETED', 'turing.pdf', null],
    ],
  );
  // Each item is a render job of this organization, and of no other.
  for (const item of bulk.items) {
    const job = await api.get(`/api/v1/dev/render/${item.jobId}`);
    assert.is(job.status, 200);
    assert.is(job.body.status, 'COMPLETED');
    assert.is((await other.get(`/api/v1/dev/render/${item.jobId}`)).status, 404);
  }
  const zip = await downloadBulkZip(api, bulk);
  assert.equal([...zip.keys()].sort(), ['letter-001.pdf', 'letter-002.pdf', 'turing.pdf']);
  for (const [i, item] of bulk.items.entries()) {
    const text = await pdfText(zip.get(item.filename)!);
    assert.match(text, `Dear ${names[i]},`);
    for (const otherName of names.filter((n) => n !== names[i])) assert.not.match(text, otherName);
  }
  // The ZIP is also served to the API key, and never to a request with neither key nor token.
  assert.is((await api.download(`${server.baseUrl}${BULK}/${bulk.bulkJobId}/download`, true)).status, 200);
  assert.is((await api.withKey(null).download(`${server.baseUrl}${BULK}/${bulk.bulkJobId}/download`)).status, 401);
});

test('renders DOCX and ODT bulks whose entries python-docx and odfpy read back with each item text', async () => {
  for (const [format, ext] of [['DOCX', 'docx'], ['ODT', 'odt']] as const) {
    const created = await api.post(BULK, { documentId: letter, format, items: [{ name: 'Ada' }, { name: 'Bob' }] });
    assert.is(created.status, 202, created.bytes.toString());
    assert.is(created.body.format, format);
    const bulk = await waitForBulk(api, created.body.bulkJobId);
    assert.is(bulk.status, 'COMPLETED', bulk.error);
    const zip = await downloadBulkZip(api, bulk);
    assert.equal([...zip.keys()].sort(), [`letter-001.${ext}`, `letter-002.${ext}`]);
    for (const [i, name] of ['Ada', 'Bob'].entries()) {
      const read = await pythonRead(zip.get(`letter-00${i + 1}.${ext}`)!, ext);
      const paragraphs: string[] = ext === 'docx' ? read.paragraphs.map((p: { text: string }) => p.text) : read.paragraphs;
      assert.ok(paragraphs.includes(`Dear ${name},`), `${format} ${i + 1}: ${JSON.stringify(paragraphs)}`);
    }
  }
});

test('answers a status request with waitMs when the bulk job finishes, without polling', async () => {
  const created = await api.post(BULK, { documentId: letter, items: [{ name: 'Wait One' }, { name: 'Wait Two' }] });
  assert.is(created.status, 202, created.bytes.toString());
  // One request, held by the server until the last item ends and the ZIP is written.
  const waited = await api.get(`${BULK}/${created.body.bulkJobId}?waitMs=30000`);
  assert.is(waited.status, 200, waited.bytes.toString());
  assert.is(waited.body.status, 'COMPLETED');
  assert.is(waited.body.completedItems, 2);
  assert.ok(waited.body.downloadUrl);
  const bad = await api.get(`${BULK}/${created.body.bulkJobId}?waitMs=soon`);
  assert.is(bad.status, 400);
  assert.is(bad.body.errors[0].path, 'query.waitMs');
});

test('refuses 0 and 101 items with 400 naming the limit on items', async () => {
  for (const count of [0, 101]) {
    const r = await api.post(BULK, { documentId: letter, items: Array.from({ length: count }, (_, i) => ({ name: `N${i}` })) });
    assert.is(r.status, 400);
    assert.is(r.body.code, 'VALIDATION_FAILED');
    assert.is(r.body.errors[0].path, 'items');
    assert.match(r.body.errors[0].message, count ? 'more than 100 items' : 'fewer than 1 items');
  }
});

test('refuses a format other than PDF, DOCX and ODT with 400', async () => {
  const r = await api.post(BULK, { documentId: letter, format: 'PNG', items: [{ name: 'Ada' }] });
  assert.is(r.status, 400);
  assert.is(r.body.errors[0].path, 'format');
});

test("answers 404 for an unknown document and for another organization's document and bulk job", async () => {
  const unknown = await api.post(BULK, { documentId: '00000000-0000-4000-8000-000000000000', items: [{ name: 'Ada' }] });
  assert.is(unknown.status, 404);
  assert.is(unknown.body.code, 'NOT_FOUND');
  const foreignDoc = await other.post(BULK, { documentId: letter, items: [{ name: 'Ada' }] });
  assert.is(foreignDoc.status, 404);
  const created = await api.post(BULK, { documentId: letter, items: [{ name: 'Ada' }] });
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  assert.is((await other.get(`${BULK}/${bulk.bulkJobId}`)).status, 404);
  assert.is((await other.download(`${server.baseUrl}${BULK}/${bulk.bulkJobId}/download`, true)).status, 404);
  assert.is((await api.get(`${BULK}/00000000-0000-4000-8000-000000000000`)).status, 404);
});

test('fails an item whose variables make an invalid document alone, while the others complete', async () => {
  const created = await api.post(BULK, { documentId: letter, items: [{ name: 'Ada' }, { name: { type: 'sparkle' } }, { name: 'Bob' }] });
  assert.is(created.status, 202, created.bytes.toString());
  // The invalid item is known at once and costs nothing.
  assert.is(created.body.creditCost, 2);
  assert.is(created.body.items[1].status, 'FAILED');
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  assert.is(bulk.status, 'COMPLETED');
  assert.is(bulk.completedItems, 2);
  assert.is(bulk.failedItems, 1);
  const bad = bulk.items[1];
  assert.is(bad.status, 'FAILED');
  assert.is(bad.jobId, null);
  assert.match(bad.error, 'variables.name');
  const zip = await downloadBulkZip(api, bulk);
  assert.equal([...zip.keys()].sort(), ['letter-001.pdf', 'letter-003.pdf']);
  assert.match(await pdfText(zip.get('letter-003.pdf')!), 'Dear Bob,');
});

test('fails the bulk job with no ZIP when no item can be rendered', async () => {
  const created = await api.post(BULK, { documentId: letter, items: [{ name: { type: 'sparkle' } }, { name: ['a list'] }] });
  assert.is(created.status, 202, created.bytes.toString());
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  assert.is(bulk.status, 'FAILED');
  assert.is(bulk.completedItems, 0);
  assert.is(bulk.failedItems, 2);
  assert.is(bulk.creditCost, 0);
  assert.is(bulk.downloadUrl, null);
  assert.match(bulk.error, 'variables.name');
  const dl = await api.download(`${server.baseUrl}${BULK}/${bulk.bulkJobId}/download`, true);
  assert.is(dl.status, 404);
});

test('answers 402 and creates nothing when the balance cannot cover every item, and renders what it covers', async () => {
  const own = await saveLetter(other);
  const before = await other.get('/api/v1/dev/credits');
  assert.is(before.body.balance, 2);
  const refused = await other.post(BULK, { documentId: own, items: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] });
  assert.is(refused.status, 402);
  assert.is(refused.body.code, 'INSUFFICIENT_CREDITS');
  const after = await other.get('/api/v1/dev/credits');
  assert.equal(after.body, before.body, 'the ledger is unchanged and nothing is reserved');
  // Two items fit the balance exactly: both render and both are charged.
  const created = await other.post(BULK, { documentId: own, items: [{ name: 'A' }, { name: 'B' }] });
  assert.is(created.status, 202, created.bytes.toString());
  const bulk = await waitForBulk(other, created.body.bulkJobId);
  assert.is(bulk.completedItems, 2);
  const { balance, charges } = await ledger(other);
  assert.is(balance, 0);
  assert.equal(charges.map((c) => c.jobId).sort(), bulk.items.map((i: any) => i.jobId).sort());
});

test('charges each completed item once in the ledger and nothing for a failed item', async () => {
  const before = await ledger(api);
  const created = await api.post(BULK, { documentId: letter, items: [{ name: 'Ada' }, { name: { type: 'sparkle' } }, { name: 'Bob' }] });
  const bulk = await waitForBulk(api, created.body.bulkJobId);
  // Polling again charges nothing more.
  await api.get(`${BULK}/${bulk.bulkJobId}`);
  const after = await ledger(api);
  const jobIds = bulk.items.filter((i: any) => i.status === 'COMPLETED').map((i: any) => i.jobId);
  assert.is(jobIds.length, 2);
  const added = after.charges.filter((c) => !before.charges.some((b) => b.jobId === c.jobId));
  assert.equal(added.map((c) => c.jobId).sort(), [...jobIds].sort());
  for (const c of added) assert.is(c.amount, -1);
  assert.is(after.balance, before.balance - 2);
});

test('sends one job.completed event of the bulk job with its counts, and none for its item renders', async () => {
  const hook = await receiver();
  try {
    const created = await api.post(BULK, { documentId: letter, items: [{ name: 'Ada' }, { name: { type: 'sparkle' } }, { name: 'Bob' }], webhook: { webhookUrl: hook.url } });
    assert.is(created.status, 202, created.bytes.toString());
    assert.is(created.body.webhookUrl, hook.url);
    const bulk = await waitForBulk(api, created.body.bulkJobId);
    await until(() => hook.calls.length >= 1);
    // Item renders would have been sent by now: they finished before the bulk job did.
    await new Promise((r) => setTimeout(r, 1000));
    assert.is(hook.calls.length, 1, JSON.stringify(hook.calls.map((c) => c.body)));
    const event = hook.calls[0]!.body;
    assert.is(event.event, 'job.completed');
    assert.is(event.jobType, 'bulk-render');
    assert.is(event.jobId, bulk.bulkJobId);
    assert.is(event.status, 'COMPLETED');
    assert.equal(event.metadata, { totalItems: 3, completedItems: 2, failedItems: 1 });
    assert.is(event.completedAt, bulk.completedAt);
    // The event's link works without an API key.
    const zip = await downloadBulkZip(api, event);
    assert.equal([...zip.keys()].sort(), ['letter-001.pdf', 'letter-003.pdf']);

    const failed = await api.post(BULK, { documentId: letter, items: [{ name: { type: 'sparkle' } }], webhook: { webhookUrl: hook.url } });
    await until(() => hook.calls.length === 2);
    const failure = hook.calls[1]!.body;
    assert.is(failure.event, 'job.failed');
    assert.is(failure.jobType, 'bulk-render');
    assert.is(failure.jobId, failed.body.bulkJobId);
    assert.equal(failure.metadata, { totalItems: 1, completedItems: 0, failedItems: 1 });
    assert.not.ok('downloadUrl' in failure);
  } finally {
    await hook.close();
  }
});

test.run();
