// POST /tools/pdf/unlock on files qpdf encrypted (RC4-40, RC4-128, AES-128, AES-256), checked with poppler and qpdf.
// test-stores: once (qpdf decryption; its jobs and files reach the store as files.test's and pdf-tools.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { encryptedPdf, makePdf } from '../fixtures/pdfs.js';
import { pdfinfoFields, pdftotextPages, qpdfCheck } from '../fixtures/pdf-readers.js';

const UNLOCK = '/api/v1/dev/tools/pdf/unlock';
const ALGORITHMS = ['RC4-40', 'RC4-128', 'AES-128', 'AES-256'] as const;
let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started));

async function unlock(fileId: string, password?: string): Promise<any> {
  const created = await api.post(UNLOCK, password === undefined ? { fileId } : { fileId, password });
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.action, 'pdf.unlock');
  return api.waitForJob(created.body.id);
}

/** Asserts the PDF opens without a password, is not encrypted, shows its pages' text and passes qpdf --check. */
async function assertUnlocked(pdf: Uint8Array, pages: number): Promise<void> {
  const info = await pdfinfoFields(pdf);
  assert.is(info.Encrypted, 'no');
  assert.is(info.Pages, String(pages));
  const texts = await pdftotextPages(pdf);
  for (let n = 1; n <= pages; n++) assert.match(texts[n - 1]!, `Locked page ${n}`);
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, check.output);
}

for (const algorithm of ALGORITHMS) {
  test(`removes ${algorithm} encryption with the user password, and with the owner password`, async () => {
    const locked = await encryptedPdf({ password: 'open sesame', ownerPassword: 'the-owner', algorithm, pageCount: 3 });
    // The fixture really is locked: poppler refuses it without the password.
    await pdfinfoFields(locked).then(
      () => assert.unreachable('pdfinfo should need the password'),
      (err: Error) => assert.match(err.message, /Incorrect password|password/i),
    );
    assert.match((await pdfinfoFields(locked, 'open sesame')).Encrypted, /^yes/);
    const id = await api.uploadId(locked, `${algorithm}.pdf`);

    const byUser = await unlock(id, 'open sesame');
    assert.is(byUser.status, 'COMPLETED', byUser.error);
    assert.equal(byUser.result, { wasEncrypted: true, encryption: algorithm, passwordMatched: 'user', pageCount: 3 });
    const dl = await api.withKey(null).download(byUser.downloadUrl);
    assert.is(dl.headers.get('content-type'), 'application/pdf');
    await assertUnlocked(dl.bytes, 3);

    const byOwner = await unlock(id, 'the-owner');
    assert.is(byOwner.status, 'COMPLETED', byOwner.error);
    assert.is(byOwner.result.passwordMatched, 'owner');
    await assertUnlocked((await api.download(byOwner.downloadUrl)).bytes, 3);
  });
}

test('fails with "incorrect password" for a wrong password, and charges nothing', async () => {
  const id = await api.uploadId(await encryptedPdf({ password: 'right', algorithm: 'AES-128' }), 'locked.pdf');
  const before = (await api.get('/api/v1/dev/credits')).body.balance;
  const job = await unlock(id, 'wrong');
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PDF_PASSWORD_INCORRECT');
  assert.match(job.error, 'incorrect password');
  assert.is(job.outputFileId, null);
  const missing = await unlock(id);
  assert.is(missing.errorCode, 'PDF_PASSWORD_INCORRECT');
  assert.match(missing.error, 'needs a password to open');
  assert.is((await api.get('/api/v1/dev/credits')).body.balance, before);
});

test('passes passwords that look like options, argument files or several lines literally', async () => {
  for (const [password, algorithm] of [
    ['--decrypt', 'AES-256'],
    ['@/etc/passwd', 'AES-256'],
    ['-', 'RC4-128'],
    ['  spaced out  ', 'AES-128'],
    ['pässwörd €', 'AES-256'],
    ['line one\nline two', 'AES-256'],
    ['trailing return\r', 'RC4-40'],
  ] as const) {
    const id = await api.uploadId(await encryptedPdf({ password, algorithm }), 'odd.pdf');
    const job = await unlock(id, password);
    assert.is(job.status, 'COMPLETED', `${JSON.stringify(password)}: ${job.error}`);
    assert.is(job.result.passwordMatched, 'user', JSON.stringify(password));
    assert.is((await pdfinfoFields((await api.download(job.downloadUrl)).bytes)).Encrypted, 'no');
    // A near miss is still refused: the password is compared exactly.
    const near = await unlock(id, `${password}x`);
    assert.is(near.errorCode, 'PDF_PASSWORD_INCORRECT', JSON.stringify(password));
  }
});

test('removes the restrictions of a file that opens without a password, and explains a wrong password for it', async () => {
  const id = await api.uploadId(await encryptedPdf({ password: '', ownerPassword: 'boss', algorithm: 'AES-256' }), 'restricted.pdf');
  const job = await unlock(id);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result, { wasEncrypted: true, encryption: 'AES-256', passwordMatched: 'none', pageCount: 2 });
  await assertUnlocked((await api.download(job.downloadUrl)).bytes, 2);
  const wrong = await unlock(id, 'not-the-boss');
  assert.is(wrong.errorCode, 'PDF_PASSWORD_INCORRECT');
  assert.match(wrong.error, 'opens without a password');
});

test('completes for a file that is not encrypted, says so, and returns it unchanged', async () => {
  const plain = await makePdf(2, { label: 'Plain' });
  const id = await api.uploadId(plain, 'plain.pdf');
  const job = await unlock(id, 'anything');
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result, { wasEncrypted: false, encryption: null, passwordMatched: null, pageCount: 2 });
  const out = (await api.download(job.downloadUrl)).bytes;
  assert.ok(Buffer.from(plain).equals(out));
});

test('an unlocked file can go straight on to another tool', async () => {
  const id = await api.uploadId(await encryptedPdf({ password: 'pw', pageCount: 3 }), 'locked.pdf');
  const refused = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/split', { fileId: id, ranges: ['2'] })).body.id);
  assert.is(refused.errorCode, 'PDF_ENCRYPTED');
  assert.match(refused.error, 'POST /tools/pdf/unlock');
  const unlocked = await unlock(id, 'pw');
  const split = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/split', { fileId: unlocked.outputFileId, ranges: ['2'] })).body.id);
  assert.is(split.status, 'COMPLETED', split.error);
  assert.match((await pdftotextPages((await api.download(split.downloadUrl)).bytes))[0]!, 'Locked page 2');
});

test('answers 400 for a password that is not a string or is too long', async () => {
  const id = await api.uploadId(await makePdf(1), 'one.pdf');
  const r = await api.post(UNLOCK, { fileId: id, password: 1234 });
  assert.is(r.status, 400);
  assert.is(r.body.errors[0].path, 'password');
  const long = await api.post(UNLOCK, { fileId: id, password: 'x'.repeat(257) });
  assert.is(long.status, 400);
});

test('is unavailable (503 naming qpdf) on a server without qpdf, while the other tools keep working', async () => {
  const bare = await startServer({ env: { PATH: '/nonexistent' } });
  try {
    const client = new ApiClient(bare.baseUrl, OWNER_KEY);
    const id = await client.uploadId(await makePdf(1), 'one.pdf');
    const r = await client.post(UNLOCK, { fileId: id, password: 'x' });
    assert.is(r.status, 503);
    assert.is(r.body.code, 'PLUGIN_UNAVAILABLE');
    assert.match(r.body.detail, 'qpdf');
    assert.is(r.headers.get('retry-after'), '3600');
    const plugins = (await client.get('/api/v1/dev/plugins')).body.items as Array<{ id: string; state: string; reason?: string }>;
    const unlockPlugin = plugins.find((p) => p.id === 'pdf-unlock')!;
    assert.is(unlockPlugin.state, 'unavailable');
    assert.match(unlockPlugin.reason!, 'apt-get install qpdf');
    const rotate = await client.waitForJob((await client.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 90 })).body.id);
    assert.is(rotate.status, 'COMPLETED', rotate.error);
  } finally {
    await bare.stop();
    cleanup(bare.dataDir);
  }
});

test.run();
