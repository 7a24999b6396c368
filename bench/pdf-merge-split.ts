// Times Quire's pdf.merge and pdf.split (through the kernel's run API) side by side with qpdf; never fails a build.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { PluginDefinition, WorkerFile, WorkerOutput } from '../sdk/plugin-api.js';
import { PluginPool } from '../kernel/plugin-pool.js';
import mergePlugin from '../plugins/pdf-merge/manifest.js';
import splitPlugin from '../plugins/pdf-split/manifest.js';
import { makePdf } from '../test/fixtures/pdfs.js';

const exec = promisify(execFile);
const RUNS = 7;
const WARMUP = 5;

interface Row {
  input: string;
  operation: string;
  quireMs: number;
  quireKb: number;
  qpdfMs: number | null;
  qpdfKb: number | null;
}

function poolFor(plugin: PluginDefinition): PluginPool {
  return PluginPool.forPlugin(plugin);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `fn` WARMUP times (JIT and pool threads), then RUNS times; the median wall time and the last result. */
async function timeIt<T>(fn: () => Promise<T>): Promise<{ ms: number; last: T }> {
  let last = await fn();
  for (let i = 1; i < WARMUP; i++) last = await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    last = await fn();
    times.push(performance.now() - started);
  }
  return { ms: median(times), last };
}

function files(field: string, inputs: Uint8Array[]): WorkerFile[] {
  // The pool moves input buffers to the worker, so every run hands over fresh copies (a memcpy of ~100 KB, inside the timing).
  return inputs.map((bytes, i) => ({ field, fileId: randomUUID(), filename: `in-${i}.pdf`, mimeType: 'application/pdf', bytes: new Uint8Array(bytes) }));
}

async function qpdfAvailable(): Promise<boolean> {
  try {
    await exec('qpdf', ['--version']);
    return true;
  } catch {
    return false;
  }
}

async function dirKb(dir: string, prefix: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.startsWith(prefix)) total += (await stat(path.join(dir, name))).size;
  return total / 1024;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-'));
  const merge = poolFor(mergePlugin);
  const split = poolFor(splitPlugin);
  const hasQpdf = await qpdfAvailable();
  try {
    // Each input has a twin of the same make and size, so merges of two different files are timed too
    // (given the same file twice, Quire and qpdf both read it once).
    const [generated, generatedTwin] = await Promise.all([makePdf(200, { label: 'Bench' }), makePdf(200, { label: 'Twin' })]);
    const quarters = await Promise.all(['North', 'East', 'South', 'West'].map((label) => makePdf(50, { label })));
    const quarterFiles = await Promise.all(quarters.map(async (bytes, i) => {
      const file = path.join(dir, `quarter-${i}.pdf`);
      await writeFile(file, bytes);
      return file;
    }));
    const mergeQuarters = async (order: number[], name: string): Promise<Uint8Array> => {
      if (!hasQpdf) {
        const out = await merge.run('merge', { params: {}, files: files('fileIds', order.map((i) => quarters[i]!)), settings: {} });
        return out.file!.bytes;
      }
      await exec('qpdf', ['--empty', '--pages', ...order.map((i) => quarterFiles[i]!), '--', path.join(dir, name)]);
      return new Uint8Array(await readFile(path.join(dir, name)));
    };
    const mergedByQpdf = await mergeQuarters([0, 1, 2, 3], 'four-quarters.pdf');
    const mergedByQpdfTwin = await mergeQuarters([3, 2, 1, 0], 'four-quarters-reversed.pdf');
    const inputs: Array<[string, Uint8Array, Uint8Array]> = [
      ['200 pages (pdf-lib)', generated, generatedTwin],
      ['4×50 merged (qpdf)', mergedByQpdf, mergedByQpdfTwin],
    ];

    const rows: Row[] = [];
    for (const [name, bytes, twin] of inputs) {
      const inFile = path.join(dir, `in-${rows.length}.pdf`);
      const twinFile = path.join(dir, `twin-${rows.length}.pdf`);
      await writeFile(inFile, bytes);
      await writeFile(twinFile, twin);
      const ops: Array<{ operation: string; quire: () => Promise<WorkerOutput>; qpdf: (out: string) => Promise<unknown>; outPrefix: string }> = [
        {
          operation: 'merge 2× → 400 pages',
          quire: () => merge.run('merge', { params: {}, files: files('fileIds', [bytes, bytes]), settings: {} }),
          qpdf: (out) => exec('qpdf', ['--empty', '--pages', inFile, inFile, '--', `${out}.pdf`]),
          outPrefix: 'merge',
        },
        {
          operation: 'merge it + twin → 400 pages',
          quire: () => merge.run('merge', { params: {}, files: files('fileIds', [bytes, twin]), settings: {} }),
          qpdf: (out) => exec('qpdf', ['--empty', '--pages', inFile, twinFile, '--', `${out}.pdf`]),
          outPrefix: 'twins',
        },
        {
          operation: 'split 1-100, 101-200',
          quire: () => split.run('split', { params: { ranges: ['1-100', '101-200'] }, files: files('fileId', [bytes]), settings: {} }),
          // qpdf makes one file per command; Quire makes both parts and zips them in one job.
          qpdf: async (out) => {
            await exec('qpdf', [inFile, '--pages', '.', '1-100', '--', `${out}-a.pdf`]);
            await exec('qpdf', [inFile, '--pages', '.', '101-200', '--', `${out}-b.pdf`]);
          },
          outPrefix: 'halves',
        },
        {
          operation: 'split 200 × 1 page',
          quire: () => split.run('split', { params: { ranges: Array.from({ length: 200 }, (_, i) => String(i + 1)) }, files: files('fileId', [bytes]), settings: {} }),
          qpdf: (out) => exec('qpdf', ['--split-pages', inFile, `${out}-%d.pdf`]),
          outPrefix: 'single',
        },
      ];
      for (const op of ops) {
        const quire = await timeIt(op.quire);
        let qpdfMs: number | null = null;
        let qpdfKb: number | null = null;
        if (hasQpdf) {
          const prefix = `${op.outPrefix}-${rows.length}`;
          qpdfMs = (await timeIt(() => op.qpdf(path.join(dir, prefix)))).ms;
          qpdfKb = await dirKb(dir, prefix);
        }
        rows.push({ input: name, operation: op.operation, quireMs: quire.ms, quireKb: quire.last.file!.bytes.length / 1024, qpdfMs, qpdfKb });
      }
    }
    print(rows);
  } finally {
    await Promise.all([merge.close(), split.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

function print(rows: Row[]): void {
  const header = ['input', 'operation', 'Quire ms', 'qpdf ms', 'qpdf/Quire', 'Quire out KB', 'qpdf out KB'];
  const body = rows.map((r) => [
    r.input,
    r.operation,
    r.quireMs.toFixed(1),
    r.qpdfMs === null ? 'n/a' : r.qpdfMs.toFixed(1),
    r.qpdfMs === null ? 'n/a' : (r.qpdfMs / r.quireMs).toFixed(2),
    r.quireKb.toFixed(0),
    r.qpdfKb === null ? 'n/a' : r.qpdfKb.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(`pdf.merge / pdf.split vs qpdf — median of ${RUNS} runs after ${WARMUP} warm-up runs, wall time; qpdf runs as a child process (spawn included).`);
  console.log('qpdf/Quire > 1 means Quire is faster. Quire split outputs for several ranges are a ZIP.');
  console.log('"merge 2×" gives the same file twice; "it + twin" a different file of the same make and size.\n');
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of body) console.log(line(row));
}

main().catch((err) => {
  // A benchmark reports; it never fails the build.
  console.error(`benchmark could not finish: ${(err as Error).stack ?? err}`);
  process.exitCode = 0;
});
