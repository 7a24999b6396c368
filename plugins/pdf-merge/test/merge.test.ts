// pdf.merge through the kernel's run API; outputs checked with pdfjs, pdfinfo and qpdf.
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WorkerFile, WorkerOutput } from '../../../sdk/index.js';
import { PluginPool } from '../../../kernel/plugin-pool.js';
import { pdfinfoPages, pdfPageRotations, pdfPageTexts, qpdfCheck } from '../../../test/fixtures/pdf-readers.js';
import { assemblePdf, decompressionBombPdf, deepReferenceChainPdf, inheritedAttributesPdf, makePdf } from '../../../test/fixtures/pdfs.js';
import plugin from '../manifest.js';

const action = plugin.manifest.actions[0]!;
const pool = PluginPool.forPlugin(plugin);

function run(inputs: Uint8Array[]): Promise<WorkerOutput> {
  const files: WorkerFile[] = inputs.map((bytes, i) => ({ field: 'fileIds', fileId: randomUUID(), filename: `input-${i}.pdf`, mimeType: 'application/pdf', bytes: new Uint8Array(bytes) }));
  return pool.run(action.export, { params: { fileIds: files.map((f) => f.fileId) }, files, settings: {} });
}

/** A 2-page PDF whose first page has a link to its second page. */
function linkedPdf(): Uint8Array {
  const text = (t: string) => {
    const data = Buffer.from(`BT /F1 24 Tf 50 700 Td (${t}) Tj ET\n`, 'latin1');
    return Buffer.concat([Buffer.from(`<< /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
  };
  return assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> >>',
    '<< /Type /Page /Parent 2 0 R /Contents 6 0 R /Annots [8 0 R] >>',
    '<< /Type /Page /Parent 2 0 R /Contents 7 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    text('Linked page 1'),
    text('Linked page 2'),
    '<< /Type /Annot /Subtype /Link /Rect [50 650 300 750] /Border [0 0 0] /Dest [4 0 R /Fit] /P 3 0 R >>',
  ]);
}

/** For each page, the 0-based page index each of its link annotations jumps to, read by pdfjs. */
async function linkTargets(bytes: Uint8Array): Promise<number[][]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, verbosity: 0 }).promise;
  try {
    const targets: number[][] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const links = (await (await doc.getPage(n)).getAnnotations()).filter((a) => a.subtype === 'Link');
      targets.push(await Promise.all(links.map((a) => doc.getPageIndex((a.dest as [{ num: number; gen: number }])[0]))));
    }
    return targets;
  } finally {
    await doc.destroy();
  }
}

/** "A page 2" from "A page 2 Generated fixture A, page 2 of 3." */
function headings(texts: string[]): string[] {
  return texts.map((t) => /^\S+ page \d+/.exec(t)?.[0] ?? t);
}

test('the manifest declares pdf.merge on POST /tools/pdf/merge with every code its worker throws', async () => {
  assert.is(plugin.manifest.id, 'pdf-merge');
  assert.is(action.name, 'pdf.merge');
  assert.equal(action.route, { method: 'POST', path: '/tools/pdf/merge' });
  assert.equal(Object.keys(plugin.manifest.errors).sort(), ['PDF_DECOMPRESSION_BOMB', 'PDF_ENCRYPTED', 'PDF_NO_PAGES', 'PDF_TOO_COMPLEX', 'PDF_UNREADABLE']);
  assert.equal(await pool.describe(), [action.export]);
});

test('merges three PDFs into one whose pages appear in request order', async () => {
  const out = await run([await makePdf(2, { label: 'Alpha' }), await makePdf(3, { label: 'Beta' }), await makePdf(1, { label: 'Gamma' })]);
  assert.is(out.file?.mimeType, 'application/pdf');
  assert.is(out.file?.filename, 'merged.pdf');
  assert.equal(out.result, { pageCount: 6, sourcePageCounts: [2, 3, 1] });
  const bytes = out.file!.bytes;
  assert.equal(headings(await pdfPageTexts(bytes)), ['Alpha page 1', 'Alpha page 2', 'Beta page 1', 'Beta page 2', 'Beta page 3', 'Gamma page 1']);
  assert.is(await pdfinfoPages(bytes), 6);
  const check = await qpdfCheck(bytes);
  assert.ok(check.ok, check.output);
});

test('merges the same file given twice into a document that holds both copies', async () => {
  const same = await makePdf(2, { label: 'Twice' });
  const out = await run([same, same]);
  assert.equal(headings(await pdfPageTexts(out.file!.bytes)), ['Twice page 1', 'Twice page 2', 'Twice page 1', 'Twice page 2']);
});

test('points a link to another page of the same input at that page\'s copy, in each copy of the input', async () => {
  const out = await run([linkedPdf(), linkedPdf()]);
  const bytes = out.file!.bytes;
  assert.equal(headings(await pdfPageTexts(bytes)), ['Linked page 1', 'Linked page 2', 'Linked page 1', 'Linked page 2']);
  assert.equal(await linkTargets(bytes), [[1], [], [3], []]);
  const check = await qpdfCheck(bytes);
  assert.ok(check.ok, check.output);
});

test('keeps the rotation, size and fonts a page inherits from its page tree', async () => {
  const out = await run([await makePdf(1, { label: 'Plain', size: 'A4' }), inheritedAttributesPdf()]);
  const bytes = out.file!.bytes;
  assert.equal(out.result, { pageCount: 4, sourcePageCounts: [1, 3] });
  assert.equal(await pdfPageRotations(bytes), [0, 90, 90, 90]);
  assert.equal(headings(await pdfPageTexts(bytes)), ['Plain page 1', 'Inherited page 1', 'Inherited page 2', 'Inherited page 3']);
  const check = await qpdfCheck(bytes);
  assert.ok(check.ok, check.output);
});

test('writes object streams only when an input had them and the merged PDF is big enough to gain from them', async () => {
  const hasObjectStreams = (out: WorkerOutput) => Buffer.from(out.file!.bytes).includes('/ObjStm');
  const plain = await run([await makePdf(20, { objectStreams: false }), await makePdf(20, { objectStreams: false })]);
  assert.not.ok(hasObjectStreams(plain));
  const packed = await run([await makePdf(20, { objectStreams: false }), await makePdf(20)]);
  assert.ok(hasObjectStreams(packed));
  assert.is(await pdfinfoPages(packed.file!.bytes), 40);
  assert.ok(packed.file!.bytes.length < plain.file!.bytes.length * 0.8, `${packed.file!.bytes.length} vs ${plain.file!.bytes.length} bytes`);
  const small = await run([await makePdf(1), await makePdf(1)]);
  assert.not.ok(hasObjectStreams(small));
  const check = await qpdfCheck(packed.file!.bytes);
  assert.ok(check.ok, check.output);
});

test('merges a PDF whose page resources chain 8,000 objects deep, the deepest accepted', async () => {
  const out = await run([await makePdf(1), deepReferenceChainPdf(8_000)]);
  assert.equal(out.result, { pageCount: 2, sourcePageCounts: [1, 1] });
  const check = await qpdfCheck(out.file!.bytes);
  assert.ok(check.ok, check.output);
});

/** Bytes the fixture's content stream inflates to, counted while streaming (layers as declared). */
async function inflatedSize(pdf: Uint8Array): Promise<number> {
  const buf = Buffer.from(pdf);
  let data: Buffer = buf.subarray(buf.indexOf('stream\n') + 7, buf.lastIndexOf('\nendstream'));
  if (buf.includes('[/FlateDecode /FlateDecode]')) data = zlib.inflateSync(data);
  let inflated = 0;
  await new Promise<void>((resolve, reject) => {
    const inflate = zlib.createInflate();
    inflate.on('data', (chunk: Buffer) => (inflated += chunk.length));
    inflate.on('end', resolve);
    inflate.on('error', reject);
    inflate.end(data);
  });
  return inflated;
}

test('the bomb fixtures really inflate to at least 1 GB from a small file', async () => {
  for (const bomb of [decompressionBombPdf(), decompressionBombPdf({ layers: 2 })]) {
    const inflated = await inflatedSize(bomb);
    assert.ok(inflated >= 1_000_000_000, `inflates to ${inflated} bytes`);
    assert.ok(bomb.length < 2_000_000, `fixture is ${bomb.length} bytes`);
  }
});

test('merges a PDF whose stream inflates 50-fold to 50 MB, below the bomb limits', async () => {
  const big = decompressionBombPdf({ inflatedMiB: 50 });
  const out = await run([await makePdf(1), big]);
  assert.equal(out.result, { pageCount: 2, sourcePageCounts: [1, 1] });
  assert.is(await pdfinfoPages(out.file!.bytes), 2);
});

test.after(async () => {
  await pool.close();
});

test.run();
