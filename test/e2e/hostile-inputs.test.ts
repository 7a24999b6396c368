// Hostile PDFs fail their job cleanly within the deadline, cost nothing, and leave the server healthy.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf, decompressionBombPdf, pageTreeCyclePdf, deeplyNestedPdf, truncatedPdf, encryptedPdf } from '../fixtures/pdfs.js';
import { pdfPageTexts } from '../fixtures/pdf-readers.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started), { config: { plugins: { 'pdf-merge': { pool: { timeoutMs: 20_000 } }, 'pdf-split': { pool: { timeoutMs: 20_000 } } } } });

const balance = async () => (await api.get('/api/v1/dev/credits')).body.balance as number;

const cases: Array<[string, () => Promise<Uint8Array> | Uint8Array, RegExp]> = [
  ['a decompression bomb', () => decompressionBombPdf(), /decompress|inflat|bomb|too large|expand/i],
  ['a page-tree cycle', () => pageTreeCyclePdf(), /cycle|loop|page tree/i],
  ['50,000-deep nesting that parses to 0 pages', () => deeplyNestedPdf(50_000), /nest|deep|complex|no pages|0 pages/i],
  ['a truncated file', () => truncatedPdf(), /readable|corrupt|truncat|damaged|no pages/i],
  ['an encrypted file', () => encryptedPdf('secret'), /encrypt|password|unlock/i],
];

for (const [name, make, pattern] of cases) {
  test(`fails the merge job with a clear error for ${name} and charges nothing`, async () => {
    const before = await balance();
    const good = await api.uploadId(await makePdf(1), 'good.pdf');
    const bad = await api.uploadId(await make(), 'hostile.pdf');
    const created = await api.post('/api/v1/dev/tools/pdf/merge', { fileIds: [good, bad] });
    assert.is(created.status, 202, created.bytes.toString());
    const job = await api.waitForJob(created.body.id, 60_000);
    assert.is(job.status, 'FAILED');
    assert.match(job.error, pattern);
    assert.not.match(job.error, /deadline/i, 'fails on inspection, not by running out of time');
    assert.is(job.outputFileId, null);
    assert.match(job.errorCode, /^PDF_[A-Z_]+$/);
    assert.is(await balance(), before);
    assert.is((await api.get('/readyz')).status, 200);
  });
}

test('keeps serving ordinary jobs after the hostile ones', async () => {
  const id = await api.uploadId(await makePdf(2, { label: 'After' }), 'after.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/split', { fileId: id, ranges: ['2'] })).body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  const texts = await pdfPageTexts((await api.download(job.downloadUrl)).bytes);
  assert.match(texts[0]!, 'After page 2');
});

test.run();
