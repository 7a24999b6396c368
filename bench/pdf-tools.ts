// Times Quire's pdf.watermark, pdf.metadata and pdf.unlock on a 200-page PDF (through the kernel's run API) beside qpdf doing the same work; never fails a build.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { WorkerFile, WorkerOutput } from '../sdk/plugin-api.js';
import { PluginPool } from '../kernel/plugin-pool.js';
import metadataPlugin from '../plugins/pdf-metadata/manifest.js';
import unlockPlugin from '../plugins/pdf-unlock/manifest.js';
import watermarkPlugin from '../plugins/pdf-watermark/manifest.js';
import { encryptedPdf, makePdf } from '../test/fixtures/pdfs.js';
import { fmt, percentile, table } from './stats.js';

const exec = promisify(execFile);
const RUNS = 9;
const WARMUP = 3;
const PAGES = 200;
/** The defaults of pdf.watermark's contract, which the kernel fills in before a worker runs. */
const WATERMARK_DEFAULTS = { layer: 'over', position: 'center', rotation: 0, opacity: 0.5, fontSize: 48, color: '#808080', margin: 36, tileGap: 72 };
/** Text that is not Windows-1252, so it is drawn in an embedded subset of Noto Sans instead of Helvetica. */
const UNICODE_TEXT = 'ΕΜΠΙΣΤΕΥΤΙΚΟ – Конфиденциально';

interface Row {
  operation: string;
  peer: string;
  quireMs: number;
  qpdfMs: number | null;
  quireKb: number | null;
  qpdfKb: number | null;
}

/** Runs `fn` WARMUP times (JIT, pool threads), then RUNS times; the median wall time and the last result. */
async function timeIt<T>(fn: () => Promise<T>): Promise<{ ms: number; last: T }> {
  let last = await fn();
  for (let i = 1; i < WARMUP; i++) last = await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    last = await fn();
    times.push(performance.now() - started);
  }
  return { ms: percentile(times, 50), last };
}

/** The pool moves input buffers into the worker, so each run hands over a fresh copy (inside the timing, as an upload's bytes would be). */
function input(field: string, bytes: Uint8Array): WorkerFile {
  return { field, fileId: randomUUID(), filename: `${field}.pdf`, mimeType: 'application/pdf', bytes: new Uint8Array(bytes) };
}

async function qpdfAvailable(): Promise<boolean> {
  try {
    await exec('qpdf', ['--version']);
    return true;
  } catch {
    return false;
  }
}

async function kb(file: string): Promise<number> {
  return (await stat(file)).size / 1024;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-tools-'));
  const watermark = PluginPool.forPlugin(watermarkPlugin);
  const metadata = PluginPool.forPlugin(metadataPlugin);
  const unlock = PluginPool.forPlugin(unlockPlugin);
  const hasQpdf = await qpdfAvailable();
  try {
    const source = await makePdf(PAGES, { label: 'Bench' });
    const sourceFile = path.join(dir, 'source.pdf');
    await writeFile(sourceFile, source);
    // qpdf's watermark is a one-page PDF laid over (or under) every page; Quire makes that page itself,
    // so both stamp the same text object.
    const stampOut = await watermark.run('watermark', {
      params: { ...WATERMARK_DEFAULTS, fileId: 'stamp', text: 'CONFIDENTIAL', rotation: 45 },
      files: [input('fileId', await makePdf(1, { label: 'Stamp' }))],
      settings: {},
    });
    const stampFile = path.join(dir, 'stamp.pdf');
    await writeFile(stampFile, await blankWithStamp(stampOut));
    const unicodeStampOut = await watermark.run('watermark', {
      params: { ...WATERMARK_DEFAULTS, fileId: 'stamp', text: UNICODE_TEXT, rotation: 45, fontSize: 24 },
      files: [input('fileId', await makePdf(1, { label: 'Stamp' }))],
      settings: {},
    });
    const unicodeStampFile = path.join(dir, 'stamp-unicode.pdf');
    await writeFile(unicodeStampFile, await blankWithStamp(unicodeStampOut));
    const locked = await encryptedPdf({ password: 'bench', source });
    const lockedFile = path.join(dir, 'locked.pdf');
    await writeFile(lockedFile, locked);

    const ops: Array<{ operation: string; peer: string; quire: () => Promise<WorkerOutput>; qpdf: ((out: string) => Promise<unknown>) | null }> = [
      {
        operation: 'watermark text over every page',
        peer: 'qpdf --overlay stamp.pdf --repeat=1',
        quire: () => watermark.run('watermark', { params: { ...WATERMARK_DEFAULTS, fileId: 'x', text: 'CONFIDENTIAL', rotation: 45 }, files: [input('fileId', source)], settings: {} }),
        qpdf: (out) => exec('qpdf', [sourceFile, '--overlay', stampFile, '--repeat=1', '--', out]),
      },
      {
        operation: 'watermark Greek + Cyrillic text (Noto Sans subset) over every page',
        peer: 'qpdf --overlay stamp-unicode.pdf --repeat=1',
        quire: () =>
          watermark.run('watermark', { params: { ...WATERMARK_DEFAULTS, fileId: 'x', text: UNICODE_TEXT, rotation: 45, fontSize: 24 }, files: [input('fileId', source)], settings: {} }),
        qpdf: (out) => exec('qpdf', [sourceFile, '--overlay', unicodeStampFile, '--repeat=1', '--', out]),
      },
      {
        operation: 'watermark text under pages 1-100',
        peer: 'qpdf --underlay stamp.pdf --to=1-100 --repeat=1',
        quire: () =>
          watermark.run('watermark', { params: { ...WATERMARK_DEFAULTS, fileId: 'x', text: 'CONFIDENTIAL', rotation: 45, layer: 'under', pages: ['1-100'] }, files: [input('fileId', source)], settings: {} }),
        qpdf: (out) => exec('qpdf', [sourceFile, '--underlay', stampFile, '--to=1-100', '--repeat=1', '--', out]),
      },
      {
        operation: 'watermark tiled, every page',
        peer: '(no qpdf equivalent)',
        quire: () => watermark.run('watermark', { params: { ...WATERMARK_DEFAULTS, fileId: 'x', text: 'DRAFT', rotation: 30, fontSize: 24, position: 'tile' }, files: [input('fileId', source)], settings: {} }),
        qpdf: null,
      },
      {
        operation: 'metadata (read everything)',
        peer: 'qpdf --json=2 (all keys)',
        quire: () => metadata.run('metadata', { params: { fileId: 'x' }, files: [input('fileId', source)], settings: {} }),
        qpdf: (out) => exec('qpdf', ['--json=2', sourceFile, out], { maxBuffer: 256 << 20 }),
      },
      {
        operation: 'metadata (read everything)',
        peer: 'qpdf --json=2 pages, acroform, encrypt keys',
        quire: () => metadata.run('metadata', { params: { fileId: 'x' }, files: [input('fileId', source)], settings: {} }),
        qpdf: (out) => exec('qpdf', ['--json=2', '--json-key=pages', '--json-key=acroform', '--json-key=encrypt', sourceFile, out]),
      },
      {
        operation: 'metadata set title and author',
        peer: 'qpdf rewrite, no change (a floor)',
        quire: () => metadata.run('metadata', { params: { fileId: 'x', set: { title: 'Benchmark', author: 'Quire' } }, files: [input('fileId', source)], settings: {} }),
        qpdf: (out) => exec('qpdf', [sourceFile, out]),
      },
      {
        operation: 'unlock AES-256',
        peer: 'qpdf --decrypt (one call)',
        quire: () => unlock.run('unlock', { params: { fileId: 'x', password: 'bench' }, files: [input('fileId', locked)], settings: {} }),
        qpdf: (out) => exec('qpdf', ['--password=bench', '--decrypt', lockedFile, out]),
      },
    ];

    const rows: Row[] = [];
    for (const [i, op] of ops.entries()) {
      const quire = await timeIt(op.quire);
      let qpdfMs: number | null = null;
      let qpdfKb: number | null = null;
      if (hasQpdf && op.qpdf) {
        const out = path.join(dir, `qpdf-${i}.out`);
        qpdfMs = (await timeIt(() => op.qpdf!(out))).ms;
        qpdfKb = await kb(out);
      }
      const file = quire.last.file;
      rows.push({ operation: op.operation, peer: op.peer, quireMs: quire.ms, qpdfMs, quireKb: file ? file.bytes.length / 1024 : null, qpdfKb });
    }
    console.log(`pdf.watermark / pdf.metadata / pdf.unlock on a ${PAGES}-page PDF (${(source.length / 1024).toFixed(0)} KB) vs qpdf ${hasQpdf ? '' : '(not installed) '}— median of ${RUNS} runs after ${WARMUP} warm-up runs, wall time.`);
    console.log('Quire runs in its worker pool (thread hand-off included); qpdf runs as a child process (spawn included). qpdf/Quire > 1 means Quire is faster.');
    console.log('qpdf --json writes its JSON to a file here; Quire\'s metadata result is a JSON object. Output sizes are of the PDFs (or JSON) written.\n');
    console.log(
      table(
        ['operation', 'qpdf peer', 'Quire ms', 'qpdf ms', 'qpdf/Quire', 'Quire out KB', 'qpdf out KB'],
        rows.map((r) => [r.operation, r.peer, fmt(r.quireMs), fmt(r.qpdfMs), r.qpdfMs === null ? 'n/a' : fmt(r.qpdfMs / r.quireMs, 2), fmt(r.quireKb, 0), fmt(r.qpdfKb, 0)]),
        2,
      ),
    );
  } finally {
    await Promise.all([watermark.close(), metadata.close(), unlock.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The stamp page for qpdf: Quire's watermarked one-page output, whose page content is then emptied
 * except for the watermark (qpdf lays whole pages over each other, so the stamp must be only the mark).
 */
async function blankWithStamp(out: WorkerOutput): Promise<Uint8Array> {
  const { PDFDocument, PDFArray, PDFName } = await import('pdf-lib');
  const doc = await PDFDocument.load(out.file!.bytes);
  const page = doc.getPage(0).node;
  const contents = doc.context.lookup(page.get(PDFName.of('Contents')));
  if (contents instanceof PDFArray) page.set(PDFName.of('Contents'), contents.get(contents.size() - 1)); // the watermark stream comes last
  return doc.save();
}

main().catch((err) => {
  // A benchmark reports; it never fails the build.
  console.error(`benchmark could not finish: ${(err as Error).stack ?? err}`);
  process.exitCode = 0;
});
