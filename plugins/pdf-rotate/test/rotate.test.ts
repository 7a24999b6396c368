// pdf.rotate through the kernel's run API; rotations read back with pdfjs, validity with qpdf.
import { randomUUID } from 'node:crypto';
import { PDFDocument, degrees } from 'pdf-lib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JobError } from '../../../contracts/errors.js';
import type { WorkerOutput } from '../../../sdk/index.js';
import { PluginPool } from '../../../kernel/plugin-pool.js';
import { pdfPageRotations, pdfPageTexts, qpdfCheck } from '../../../test/fixtures/pdf-readers.js';
import { inheritedAttributesPdf, makePdf } from '../../../test/fixtures/pdfs.js';
import plugin from '../manifest.js';

const action = plugin.manifest.actions[0]!;
const pool = PluginPool.forPlugin(plugin);
/** Refusals run with this deadline; each must come well before it. (Hostile PDFs: test/hostile-pdf/.) */
const REFUSAL_DEADLINE_MS = 20_000;

function run(bytes: Uint8Array, angle: number, pages?: string[], timeoutMs?: number): Promise<WorkerOutput> {
  const fileId = randomUUID();
  const files = [{ field: 'fileId', fileId, filename: 'input.pdf', mimeType: 'application/pdf', bytes: new Uint8Array(bytes) }];
  const params = pages ? { fileId, angle, pages } : { fileId, angle };
  return pool.run(action.export, { params, files, settings: {} }, timeoutMs);
}

async function rejection(bytes: Uint8Array, pages?: string[]): Promise<{ error: JobError; ms: number }> {
  const started = Date.now();
  try {
    await run(bytes, 90, pages, REFUSAL_DEADLINE_MS);
  } catch (err) {
    assert.instance(err, JobError);
    return { error: err as JobError, ms: Date.now() - started };
  }
  assert.unreachable('the rotation should have failed');
  throw new Error('unreachable');
}

function headings(texts: string[]): string[] {
  return texts.map((t) => /^\S+ page \d+/.exec(t)?.[0] ?? t);
}

/** A PDF whose pages already carry the given /Rotate values. */
async function prerotatedPdf(rotations: number[]): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await makePdf(rotations.length, { label: 'Turned' }));
  doc.getPages().forEach((page, i) => page.setRotation(degrees(rotations[i]!)));
  return doc.save();
}

test('the manifest declares pdf.rotate on POST /tools/pdf/rotate with optional page specs', async () => {
  assert.is(plugin.manifest.id, 'pdf-rotate');
  assert.equal(action.route, { method: 'POST', path: '/tools/pdf/rotate' });
  assert.equal(action.pageSpecs, [{ field: 'pages', file: 'fileId' }]);
  assert.equal(Object.keys(plugin.manifest.errors).sort(), ['PAGE_OUT_OF_RANGE', 'PAGE_SPEC_INVALID', 'PDF_DECOMPRESSION_BOMB', 'PDF_ENCRYPTED', 'PDF_NO_PAGES', 'PDF_TOO_COMPLEX', 'PDF_UNREADABLE']);
  assert.equal(await pool.describe(), [action.export]);
});

test('rotates every page by 90 degrees when pages is omitted, keeping content and order', async () => {
  const out = await run(await makePdf(4, { label: 'All' }), 90);
  assert.is(out.file?.mimeType, 'application/pdf');
  assert.is(out.file?.filename, 'rotated.pdf');
  assert.equal(out.result, { rotatedPages: 4, pageCount: 4 });
  assert.equal(await pdfPageRotations(out.file!.bytes), [90, 90, 90, 90]);
  assert.equal(headings(await pdfPageTexts(out.file!.bytes)), ['All page 1', 'All page 2', 'All page 3', 'All page 4']);
  const check = await qpdfCheck(out.file!.bytes);
  assert.ok(check.ok, check.output);
});

test('adds the angle to each page\'s existing rotation and normalises the sum to 0-270', async () => {
  const source = await prerotatedPdf([0, 90, 180, 270]);
  assert.equal(await pdfPageRotations((await run(source, 180)).file!.bytes), [180, 270, 0, 90]);
  assert.equal(await pdfPageRotations((await run(source, -90)).file!.bytes), [270, 0, 90, 180]);
  assert.equal(await pdfPageRotations((await run(source, -270)).file!.bytes), [90, 180, 270, 0]);
});

test('rotates only the selected pages, and a page named by overlapping specs only once', async () => {
  const out = await run(await makePdf(6), 270, ['1-2', '2', '5-']);
  assert.equal(out.result, { rotatedPages: 4, pageCount: 6 });
  assert.equal(await pdfPageRotations(out.file!.bytes), [270, 270, 0, 0, 270, 270]);
});

test('adds to a rotation the pages inherit from their page tree', async () => {
  const out = await run(inheritedAttributesPdf(), 90, ['2']);
  assert.equal(await pdfPageRotations(out.file!.bytes), [90, 180, 90]);
  const check = await qpdfCheck(out.file!.bytes);
  assert.ok(check.ok, check.output);
});

test('fails with PAGE_OUT_OF_RANGE naming the spec when the document is shorter than the checked count', async () => {
  const { error } = await rejection(await makePdf(3), ['1', '3-4']);
  assert.is(error.code, 'PAGE_OUT_OF_RANGE');
  assert.match(error.message, 'pages[1]');
  assert.match(error.message, '"3-4"');
});

test.after(async () => {
  await pool.close();
});

test.run();
