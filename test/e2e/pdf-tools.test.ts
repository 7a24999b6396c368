// Upload → job → poll → download for merge, split and rotate, checked with pdfjs, qpdf and jszip.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import JSZip from 'jszip';
import { type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf, notAPdf } from '../fixtures/pdfs.js';
import { pdfPageTexts, pdfPageRotations, qpdfCheck } from '../fixtures/pdf-readers.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started));

test('merges two uploaded PDFs into one PDF with the pages in request order', async () => {
  const a = await api.uploadId(await makePdf(2, { label: 'Alpha' }), 'alpha.pdf');
  const b = await api.uploadId(await makePdf(3, { label: 'Beta' }), 'beta.pdf');
  const created = await api.post('/api/v1/dev/tools/pdf/merge', { fileIds: [b, a] });
  assert.is(created.status, 202);
  assert.is(created.body.status, 'PENDING');
  assert.is(created.body.action, 'pdf.merge');
  assert.equal(created.body.inputFileIds, [b, a]);
  assert.is(created.body.outputFileId, null);
  assert.is(created.headers.get('location'), `/api/v1/dev/tools/jobs/${created.body.id}`);
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.ok(job.startedAt && job.completedAt);
  assert.equal(job.result, job.metadata);
  const file = await api.get(`/api/v1/dev/tools/files/${job.outputFileId}`);
  assert.is(file.body.kind, 'OUTPUT');
  assert.is(file.body.sourceAction, 'pdf.merge');
  assert.is(file.body.mimeType, 'application/pdf');
  const dl = await api.withKey(null).download(job.downloadUrl);
  assert.is(dl.status, 200);
  assert.is(dl.headers.get('content-type'), 'application/pdf');
  const texts = await pdfPageTexts(dl.bytes);
  assert.is(texts.length, 5);
  ['Beta page 1', 'Beta page 2', 'Beta page 3', 'Alpha page 1', 'Alpha page 2'].forEach((t, i) => assert.ok(texts[i]!.includes(t), `page ${i + 1}: ${texts[i]}`));
  assert.ok((await qpdfCheck(dl.bytes)).ok);
});

test('splits with one range into a single PDF holding exactly that range', async () => {
  const id = await api.uploadId(await makePdf(6, { label: 'S' }), 'six.pdf');
  const created = await api.post('/api/v1/dev/tools/pdf/split', { fileId: id, ranges: ['2-4'] });
  assert.is(created.status, 202);
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  const dl = await api.download(job.downloadUrl);
  assert.is(dl.headers.get('content-type'), 'application/pdf');
  const texts = await pdfPageTexts(dl.bytes);
  assert.equal(texts.map((t) => /S page (\d+)/.exec(t)![1]), ['2', '3', '4']);
  assert.ok((await qpdfCheck(dl.bytes)).ok);
});

test('splits with several ranges into a ZIP of one valid PDF per range', async () => {
  const id = await api.uploadId(await makePdf(5, { label: 'Z' }), 'five.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/split', { fileId: id, ranges: ['1', '2-3', '4-'] })).body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  const dl = await api.download(job.downloadUrl);
  assert.is(dl.headers.get('content-type'), 'application/zip');
  const zip = await JSZip.loadAsync(dl.bytes);
  const names = Object.keys(zip.files).sort();
  assert.is(names.length, 3);
  const pagesPerPart: string[][] = [];
  for (const name of names) {
    const bytes = await zip.files[name]!.async('uint8array');
    assert.ok((await qpdfCheck(bytes)).ok, name);
    pagesPerPart.push((await pdfPageTexts(bytes)).map((t) => /Z page (\d+)/.exec(t)![1]!));
  }
  assert.equal(pagesPerPart.flat().sort(), ['1', '2', '3', '4', '5']);
  assert.equal(pagesPerPart.map((p) => p.length).sort(), [1, 2, 2]);
});

test('rotates only the selected pages and keeps the others', async () => {
  const id = await api.uploadId(await makePdf(4, { label: 'R' }), 'four.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 90, pages: ['2-3'] })).body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  const dl = await api.download(job.downloadUrl);
  assert.equal(await pdfPageRotations(dl.bytes), [0, 90, 90, 0]);
  const again = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: job.outputFileId, angle: -180 })).body.id);
  assert.is(again.status, 'COMPLETED', again.error);
  assert.equal(await pdfPageRotations((await api.download(again.downloadUrl)).bytes), [180, 270, 270, 180]);
});

test('answers 415 at creation when a tool gets a file that is not a PDF', async () => {
  const png = await api.uploadId(notAPdf(), 'looks-like.pdf');
  const meta = await api.get(`/api/v1/dev/tools/files/${png}`);
  assert.is(meta.body.mimeType, 'image/png');
  const pdf = await api.uploadId(await makePdf(1), 'real.pdf');
  const r = await api.post('/api/v1/dev/tools/pdf/merge', { fileIds: [pdf, png] });
  assert.is(r.status, 415);
  assert.is(r.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  assert.match(r.body.detail, 'fileIds[1]');
  assert.match(r.body.detail, 'application/pdf');
});

test('answers 400 naming each malformed or out-of-range page spec', async () => {
  const id = await api.uploadId(await makePdf(3), 'three.pdf');
  const r = await api.post('/api/v1/dev/tools/pdf/split', { fileId: id, ranges: ['1-2', 'abc', '4', '3-2', '0'] });
  assert.is(r.status, 400);
  assert.is(r.body.code, 'VALIDATION_FAILED');
  const paths = r.body.errors.map((e: { path: string }) => e.path);
  assert.equal(paths, ['ranges[1]', 'ranges[2]', 'ranges[3]', 'ranges[4]']);
  assert.match(r.body.errors[1].message, '"4" is out of range');
  assert.match(r.body.errors[0].message, '"abc"');
  const rot = await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 45 });
  assert.is(rot.status, 400);
  assert.is(rot.body.errors[0].path, 'angle');
});

test('answers 400 naming the field when the body breaks the contract', async () => {
  const r = await api.post('/api/v1/dev/tools/pdf/merge', { fileIds: ['only-one'], extra: true });
  assert.is(r.status, 400);
  assert.is(r.headers.get('content-type'), 'application/problem+json');
  const paths = r.body.errors.map((e: { path: string }) => e.path).sort();
  assert.ok(paths.includes('extra'), JSON.stringify(r.body.errors));
  assert.ok(paths.some((p: string) => p.startsWith('fileIds')), JSON.stringify(r.body.errors));
  assert.ok(r.body.requestId);
  const bad = await api.post('/api/v1/dev/tools/pdf/merge', '{not json');
  assert.is(bad.status, 400);
  assert.is(bad.body.code, 'VALIDATION_FAILED');
});

test('answers 404 for an unknown file id given to a tool', async () => {
  const r = await api.post('/api/v1/dev/tools/pdf/split', { fileId: '00000000-0000-4000-8000-000000000000', ranges: ['1'] });
  assert.is(r.status, 404);
  assert.is(r.body.code, 'NOT_FOUND');
  assert.match(r.body.detail, 'fileId');
});

test.run();
