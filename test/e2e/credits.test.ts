// Credits: checked at creation (402), charged exactly once on COMPLETED, never on FAILED.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, type RunningServer, useServer } from '../helpers/quire-server.js';
import JSZip from 'jszip';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf, truncatedPdf } from '../fixtures/pdfs.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started), { env: { QUIRE_BOOTSTRAP_CREDITS: '3' } });

test('starts the default organization with the bootstrap grant in its ledger', async () => {
  const r = await api.get('/api/v1/dev/credits');
  assert.is(r.status, 200);
  assert.is(r.body.balance, 3);
  assert.is(r.body.available, 3);
  assert.is(r.body.entries.length, 1);
  assert.is(r.body.entries[0].kind, 'grant');
});

test('charges a completed job once, with a ledger entry naming the job', async () => {
  const id = await api.uploadId(await makePdf(2), 'a.pdf');
  const created = await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 90 });
  assert.is(created.body.creditCost, 1);
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED');
  // Polling again never charges again.
  await api.get(`/api/v1/dev/tools/jobs/${job.id}`);
  const r = await api.get('/api/v1/dev/credits');
  assert.is(r.body.balance, 2);
  const charges = r.body.entries.filter((e: { kind: string }) => e.kind === 'charge');
  assert.is(charges.length, 1);
  assert.is(charges[0].jobId, job.id);
  assert.is(charges[0].amount, -1);
  assert.is(charges[0].action, 'pdf.rotate');
});

test('charges nothing for a failed job', async () => {
  const bad = await api.uploadId(await truncatedPdf(), 'broken.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: bad, angle: 90 })).body.id);
  assert.is(job.status, 'FAILED');
  const r = await api.get('/api/v1/dev/credits');
  assert.is(r.body.balance, 2);
  assert.is(r.body.entries.filter((e: { kind: string }) => e.kind === 'charge').length, 1);
});

test('answers 402 INSUFFICIENT_CREDITS when the balance does not cover the estimate', async () => {
  const id = await api.uploadId(await makePdf(1), 'b.pdf');
  const first = await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 90 });
  const second = await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 90 });
  assert.is(first.status, 202);
  assert.is(second.status, 202);
  // Balance 2, both reserved or spent: a third job is refused before it is created.
  const third = await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 90 });
  assert.is(third.status, 402);
  assert.is(third.body.code, 'INSUFFICIENT_CREDITS');
  assert.match(third.body.detail, 'costs 1 credit');
  await api.waitForJob(first.body.id);
  await api.waitForJob(second.body.id);
  const r = await api.get('/api/v1/dev/credits');
  assert.is(r.body.balance, 0);
  assert.is(r.body.reserved, 0);
});

/** A minimal Word file for import.docx. */
async function helloDocx(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/document.xml', '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>');
  return zip.generateAsync({ type: 'nodebuffer' });
}

test('answers 402 to a synchronous DOCX import the balance cannot cover, and charges nothing', async () => {
  const id = await api.uploadId(await helloDocx(), 'hello.docx');
  const r = await api.post('/api/v1/dev/import/docx/file', { fileId: id });
  assert.is(r.status, 402);
  assert.is(r.body.code, 'INSUFFICIENT_CREDITS');
  assert.match(r.body.detail, 'import.docx costs 1 credit');
  const credits = await api.get('/api/v1/dev/credits');
  assert.is(credits.body.balance, 0);
});

test('imports in progress hold their credits against jobs created meanwhile: the balance is never over-committed', async () => {
  const other = await startServer({ env: { QUIRE_BOOTSTRAP_CREDITS: '2' } });
  try {
    const client = new ApiClient(other.baseUrl, OWNER_KEY);
    const docx = await client.uploadId(await helloDocx(), 'hello.docx');
    const pdf = await client.uploadId(await makePdf(1), 'c.pdf');
    // Sent together, imports and jobs interleave; whichever order they arrive in, at most 2 may be accepted.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? client.post('/api/v1/dev/import/docx/file', { fileId: docx }) : client.post('/api/v1/dev/tools/pdf/rotate', { fileId: pdf, angle: 90 }))),
    );
    const accepted = answers.filter((r) => r.status === 200 || r.status === 202);
    for (const r of answers) if (!accepted.includes(r)) assert.is(r.body.code, 'INSUFFICIENT_CREDITS');
    assert.ok(accepted.length >= 1 && accepted.length <= 2, `accepted ${accepted.length}`);
    for (const r of accepted) if (r.status === 202) assert.is((await client.waitForJob(r.body.id)).status, 'COMPLETED');
    const credits = await client.get('/api/v1/dev/credits');
    assert.is(credits.body.balance, 2 - accepted.length);
    assert.is(credits.body.reserved, 0);
    assert.is(credits.body.available, 2 - accepted.length);
  } finally {
    await other.stop();
    cleanup(other.dataDir);
  }
});

test.run();
