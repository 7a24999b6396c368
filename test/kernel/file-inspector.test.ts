// The kernel's file inspector: page counts of uploads, and null (never an exception) for anything it cannot read safely.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FileInspector } from '../../kernel/file-inspector.js';
import { pdfinfoPages } from '../fixtures/pdf-readers.js';
import {
  decompressionBombPdf,
  deeplyNestedPdf,
  emptyPdf,
  encryptedPdf,
  inheritedAttributesPdf,
  makePdf,
  notAPdf,
  pageTreeCyclePdf,
  truncatedPdf,
} from '../fixtures/pdfs.js';

const inspector = new FileInspector({ timeoutMs: 10_000 });
const PDF = 'application/pdf';

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

test('counts the pages of generated PDFs the same way pdfinfo does', async () => {
  for (const n of [1, 7, 120]) {
    const bytes = await makePdf(n);
    assert.equal(await inspector.inspect(bytes, PDF), { pageCount: n });
    assert.is(await pdfinfoPages(bytes), n);
  }
});

test('counts the pages of a nested page tree', async () => {
  assert.equal(await inspector.inspect(inheritedAttributesPdf(), PDF), { pageCount: 3 });
});

test('leaves the caller\'s bytes intact', async () => {
  const bytes = await makePdf(2);
  const before = Buffer.from(bytes).toString('base64');
  await inspector.inspect(bytes, PDF);
  assert.is(Buffer.from(bytes).toString('base64'), before);
});

test('answers null for a type other than PDF without reading the bytes', async () => {
  assert.equal(await inspector.inspect(await makePdf(2), 'image/png'), { pageCount: null });
});

test('answers 0 for a well-formed PDF with an empty page tree', async () => {
  assert.equal(await inspector.inspect(await emptyPdf(), PDF), { pageCount: 0 });
});

test('answers null for PNG bytes labelled as a PDF', async () => {
  assert.equal(await inspector.inspect(notAPdf(), PDF), { pageCount: null });
});

test('answers null for a truncated PDF', async () => {
  assert.equal(await inspector.inspect(await truncatedPdf(), PDF), { pageCount: null });
});

test('answers null quickly for a page tree that loops back on an ancestor', async () => {
  const { value, ms } = await timed(() => inspector.inspect(pageTreeCyclePdf(), PDF));
  assert.equal(value, { pageCount: null });
  assert.ok(ms < 5_000, `took ${ms} ms`);
});

test('answers null quickly for arrays nested 50,000 deep', async () => {
  const { value, ms } = await timed(() => inspector.inspect(deeplyNestedPdf(), PDF));
  assert.equal(value, { pageCount: null });
  assert.ok(ms < 5_000, `took ${ms} ms`);
});

test('answers null quickly for a decompression bomb, without inflating all of it', async () => {
  const { value, ms } = await timed(() => inspector.inspect(decompressionBombPdf(), PDF));
  assert.equal(value, { pageCount: null });
  assert.ok(ms < 5_000, `took ${ms} ms`);
});

test('counts an encrypted PDF whose page tree is stored as plain objects', async () => {
  const bytes = await encryptedPdf({ pageCount: 3, objectStreams: false });
  assert.is(await pdfinfoPages(bytes, 'secret'), 3);
  assert.equal(await inspector.inspect(bytes, PDF), { pageCount: 3 });
});

test('answers null for an encrypted PDF whose page tree sits in encrypted object streams', async () => {
  const bytes = await encryptedPdf({ pageCount: 3 });
  assert.ok(Buffer.from(bytes).includes('/ObjStm'));
  assert.equal(await inspector.inspect(bytes, PDF), { pageCount: null });
});

test('answers many inspections at once, each with its own count', async () => {
  const sizes = [3, 1, 4, 1, 5, 9, 2, 6];
  const files = await Promise.all(sizes.map((n) => makePdf(n)));
  const answers = await Promise.all(files.map((bytes) => inspector.inspect(bytes, PDF)));
  assert.equal(answers.map((a) => a.pageCount), sizes);
});

test('answers null when the deadline passes, and keeps working afterwards', async () => {
  const slow = new FileInspector({ timeoutMs: 30 });
  try {
    const big = await makePdf(3000);
    const { value, ms } = await timed(() => slow.inspect(big, PDF));
    assert.equal(value, { pageCount: null });
    assert.ok(ms < 3_000, `took ${ms} ms`);
  } finally {
    await slow.close();
  }
  assert.equal(await inspector.inspect(await makePdf(2), PDF), { pageCount: 2 });
});

test('answers null after it is closed instead of throwing', async () => {
  const closed = new FileInspector();
  await closed.close();
  assert.equal(await closed.inspect(await makePdf(1), PDF), { pageCount: null });
});

test.after(async () => {
  await inspector.close();
});

test.run();
