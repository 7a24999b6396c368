// pdf.split through the kernel's run API; outputs checked with jszip, pdfjs, pdfinfo and qpdf.
import { randomUUID } from 'node:crypto';
import JSZip from 'jszip';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JobError } from '../../../contracts/errors.js';
import type { WorkerOutput } from '../../../sdk/index.js';
import { PluginPool } from '../../../kernel/plugin-pool.js';
import { pdfinfoPages, pdfPageRotations, pdfPageTexts, qpdfCheck } from '../../../test/fixtures/pdf-readers.js';
import { inheritedAttributesPdf, makePdf } from '../../../test/fixtures/pdfs.js';
import plugin from '../manifest.js';

const action = plugin.manifest.actions[0]!;
const pool = PluginPool.forPlugin(plugin);
/** Refusals run with this deadline; each must come well before it. (Hostile PDFs: test/hostile-pdf/.) */
const REFUSAL_DEADLINE_MS = 20_000;

function run(bytes: Uint8Array, ranges: string[], timeoutMs?: number): Promise<WorkerOutput> {
  const fileId = randomUUID();
  const files = [{ field: 'fileId', fileId, filename: 'input.pdf', mimeType: 'application/pdf', bytes: new Uint8Array(bytes) }];
  return pool.run(action.export, { params: { fileId, ranges }, files, settings: {} }, timeoutMs);
}

async function rejection(bytes: Uint8Array, ranges: string[]): Promise<{ error: JobError; ms: number }> {
  const started = Date.now();
  try {
    await run(bytes, ranges, REFUSAL_DEADLINE_MS);
  } catch (err) {
    assert.instance(err, JobError);
    return { error: err as JobError, ms: Date.now() - started };
  }
  assert.unreachable('the split should have failed');
  throw new Error('unreachable');
}

function headings(texts: string[]): string[] {
  return texts.map((t) => /^\S+ page \d+/.exec(t)?.[0] ?? t);
}

async function zipEntries(bytes: Uint8Array): Promise<Array<{ name: string; bytes: Uint8Array }>> {
  const zip = await JSZip.loadAsync(bytes);
  const entries = Object.values(zip.files).filter((f) => !f.dir);
  return Promise.all(entries.map(async (f) => ({ name: f.name, bytes: await f.async('uint8array') })));
}

test('the manifest declares pdf.split on POST /tools/pdf/split with its page specs and error codes', async () => {
  assert.is(plugin.manifest.id, 'pdf-split');
  assert.equal(action.route, { method: 'POST', path: '/tools/pdf/split' });
  assert.equal(action.pageSpecs, [{ field: 'ranges', file: 'fileId' }]);
  assert.equal(Object.keys(plugin.manifest.errors).sort(), ['PAGE_OUT_OF_RANGE', 'PAGE_SPEC_INVALID', 'PDF_DECOMPRESSION_BOMB', 'PDF_ENCRYPTED', 'PDF_NO_PAGES', 'PDF_TOO_COMPLEX', 'PDF_UNREADABLE']);
  assert.equal(await pool.describe(), [action.export]);
});

test('splits one range into a single PDF holding exactly those pages in order', async () => {
  const out = await run(await makePdf(6, { label: 'Six' }), ['2-4']);
  assert.is(out.file?.mimeType, 'application/pdf');
  assert.is(out.file?.filename, 'pages-2-4.pdf');
  assert.equal(out.result, { sourcePageCount: 6, parts: [{ range: '2-4', firstPage: 2, lastPage: 4, pageCount: 3, filename: 'pages-2-4.pdf' }] });
  assert.equal(headings(await pdfPageTexts(out.file!.bytes)), ['Six page 2', 'Six page 3', 'Six page 4']);
  const check = await qpdfCheck(out.file!.bytes);
  assert.ok(check.ok, check.output);
});

test('splits several ranges into a ZIP with one valid PDF per range, in request order', async () => {
  const out = await run(await makePdf(6, { label: 'Zip' }), ['5-', '1', '2-3']);
  assert.is(out.file?.mimeType, 'application/zip');
  assert.is(out.file?.filename, 'split.zip');
  const parts = (out.result as { parts: Array<{ filename: string; pageCount: number }> }).parts;
  assert.equal(parts.map((p) => [p.filename, p.pageCount]), [['pages-5-6.pdf', 2], ['page-1.pdf', 1], ['pages-2-3.pdf', 2]]);
  const entries = await zipEntries(out.file!.bytes);
  assert.equal(entries.map((e) => e.name), ['pages-5-6.pdf', 'page-1.pdf', 'pages-2-3.pdf']);
  const expected = [['Zip page 5', 'Zip page 6'], ['Zip page 1'], ['Zip page 2', 'Zip page 3']];
  for (const [i, entry] of entries.entries()) {
    assert.equal(headings(await pdfPageTexts(entry.bytes)), expected[i], entry.name);
    const check = await qpdfCheck(entry.bytes);
    assert.ok(check.ok, `${entry.name}: ${check.output}`);
  }
});

test('gives a range asked for twice two distinct ZIP entries', async () => {
  const out = await run(await makePdf(3), ['1-2', '1-2', '3']);
  const entries = await zipEntries(out.file!.bytes);
  assert.equal(entries.map((e) => e.name), ['pages-1-2.pdf', 'pages-1-2_2.pdf', 'page-3.pdf']);
  assert.is(await pdfinfoPages(entries[1]!.bytes), 2);
});

test('splits a 40-page PDF into 40 single-page PDFs, each with its own page', async () => {
  const ranges = Array.from({ length: 40 }, (_, i) => String(i + 1));
  const out = await run(await makePdf(40, { label: 'Many' }), ranges);
  const entries = await zipEntries(out.file!.bytes);
  assert.is(entries.length, 40);
  assert.equal(entries[0]!.name, 'page-1.pdf');
  assert.equal(headings(await pdfPageTexts(entries[39]!.bytes)), ['Many page 40']);
  assert.equal(headings(await pdfPageTexts(entries[17]!.bytes)), ['Many page 18']);
});

test('keeps the rotation and fonts a page inherited from its page tree', async () => {
  const out = await run(inheritedAttributesPdf(), ['2-3']);
  assert.equal(await pdfPageRotations(out.file!.bytes), [90, 90]);
  assert.equal(headings(await pdfPageTexts(out.file!.bytes)), ['Inherited page 2', 'Inherited page 3']);
});

test('fails with PAGE_OUT_OF_RANGE naming the spec when the document is shorter than the checked count', async () => {
  const { error } = await rejection(await makePdf(5), ['1-2', '4-9']);
  assert.is(error.code, 'PAGE_OUT_OF_RANGE');
  assert.match(error.message, 'ranges[1]');
  assert.match(error.message, '"4-9"');
  assert.match(error.message, '5 pages');
});

test('fails with PAGE_SPEC_INVALID when a malformed spec reaches the worker', async () => {
  const { error } = await rejection(await makePdf(5), ['3-1']);
  assert.is(error.code, 'PAGE_SPEC_INVALID');
  assert.match(error.message, 'ranges[0]');
});

test.after(async () => {
  await pool.close();
});

test.run();
