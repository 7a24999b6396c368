// Times the page-image rasteriser of render-images (pdfjs + @napi-rs/canvas) beside poppler's pdftoppm on the same
// PDF, one page after another on one thread each, at 150 dpi; never fails a build.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { validateDocument } from '../document/validator.js';
import { prepareTypstEnvironment } from '../engines/typst/environment.js';
import { PdfRasteriser, type RasterFormat } from '../engines/pdf/raster/rasterise.js';
import { drawerThread, renderPagesShared } from '../engines/pdf/raster/two-threads.js';
import type { RenderParams } from '../plugins/render-pdf/contract.js';
import { reportDocument } from '../test/fixtures/documents.js';
import { fmt, table } from './stats.js';

const exec = promisify(execFile);
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, dpi: { type: 'string', default: '150' } } });
const RUNS = Number(values.runs);
const DPI = Number(values.dpi);

interface Run {
  ms: number;
  cpuMs: number;
  bytes: number;
}

/**
 * All pages with Quire's rasteriser, the document opened once. As a job does (renderPagesShared: from 4 pages,
 * every other page drawn on a second thread, each page encoded while the next is drawn), with `oneThread` on
 * the job's thread alone (renderPages), or with `phases`, one page fully after another on one thread so each
 * phase's CPU time can be told apart.
 */
async function quire(pdf: Uint8Array, format: RasterFormat, how: { oneThread?: boolean; phases?: { drawMs: number; encodeMs: number } } = {}): Promise<Run> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  // pdfjs may take the buffer over: each run gets its own copies (a memcpy of < 1 MB, inside the timing).
  const copy = new Uint8Array(pdf);
  const raster = await PdfRasteriser.open(new Uint8Array(pdf));
  const pages = Array.from({ length: raster.pageCount }, (_, i) => i + 1);
  let bytes = 0;
  if (how.phases) for (const page of pages) bytes += (await raster.render(page, DPI, format, how.phases)).byteLength;
  else if (how.oneThread) for (const image of await raster.renderPages(pages, DPI, format)) bytes += image.byteLength;
  else {
    const { width, height } = await raster.pixelSize(1, DPI);
    for (const image of await renderPagesShared(raster, copy, pages, DPI, format, width * height)) bytes += image.byteLength;
  }
  await raster.close();
  // The process's CPU time includes the second drawing thread's.
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, bytes };
}

/**
 * All pages with `pdftoppm -r <dpi> -png|-jpeg` (JPEG at quality 90, as Quire) into an empty folder. Its CPU time
 * comes from bash's `times` (user and system time of the shell's children).
 */
async function poppler(file: string, format: RasterFormat, dir: string): Promise<Run> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const args = ['-r', String(DPI), format === 'png' ? '-png' : '-jpeg', ...(format === 'jpeg' ? ['-jpegopt', 'quality=90'] : []), file, path.join(dir, 'p')];
  const started = performance.now();
  const { stdout } = await exec('bash', ['-c', 'pdftoppm "$@" && times', 'pdftoppm', ...args]);
  const ms = performance.now() - started;
  // `times` prints the shell's user/system time, then its children's: "0m1.234s 0m0.056s".
  const children = stdout.trim().split('\n').at(-1)!.split(/\s+/).map((t) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    return m ? (Number(m[1]) * 60 + Number(m[2])) * 1000 : Number.NaN;
  });
  let bytes = 0;
  for (const name of await readdir(dir)) bytes += (await stat(path.join(dir, name))).size;
  return { ms, cpuMs: children[0]! + children[1]!, bytes };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  prepareTypstEnvironment();
  // Imported after fontconfig is pointed at the bundled fonts: the compiler reads it when it starts.
  const { compileDocument } = await import('../engines/typst/compile.js');
  const document = validateDocument(reportDocument()).document! as unknown as RenderParams['document'];
  const { pdf } = compileDocument({ params: { document, pdfProfile: 'standard', createdAt: new Date().toISOString() }, files: [], settings: {} });
  const work = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-images-'));
  const file = path.join(work, 'report.pdf');
  await writeFile(file, pdf);
  const { stderr: version } = await exec('pdftoppm', ['-v']);
  const raster = await PdfRasteriser.open(new Uint8Array(pdf));
  const pages = raster.pageCount;
  const size = await raster.pixelSize(1, DPI);
  await raster.close();
  console.log(`# Page images: the ${pages}-page report (${Math.round(pdf.byteLength / 1024)} KB PDF) at ${DPI} dpi (${size.width} × ${size.height} px a page)`);
  console.log(`Quire: pdfjs-dist + @napi-rs/canvas, as a job runs: every other page drawn on a second thread, each page encoded (libuv thread) while the next is drawn; also on the job's thread alone. Peer: ${version.split('\n')[0]!.trim()} (poppler, one thread). Median of ${RUNS} runs after one warm-up, runs interleaved.\n`);
  drawerThread(); // started as a job's thread starts it, at warm-up

  const rows: string[][] = [];
  const phaseRows: string[][] = [];
  try {
    for (const format of ['png', 'jpeg'] as const) {
      await quire(pdf, format);
      await poppler(file, format, path.join(work, 'out'));
      await quire(pdf, format, { oneThread: true });
      const ours: Run[] = [];
      const single: Run[] = [];
      const theirs: Run[] = [];
      for (let i = 0; i < RUNS; i++) {
        ours.push(await quire(pdf, format));
        theirs.push(await poppler(file, format, path.join(work, 'out')));
        single.push(await quire(pdf, format, { oneThread: true }));
      }
      const perPage = (runs: Run[], key: 'ms' | 'cpuMs') => median(runs.map((r) => r[key])) / pages;
      const [q, qc, p, pc, s1] = [perPage(ours, 'ms'), perPage(ours, 'cpuMs'), perPage(theirs, 'ms'), perPage(theirs, 'cpuMs'), perPage(single, 'ms')];
      rows.push([format, fmt(q), fmt(s1), fmt(p), `${fmt(q / p, 2)}×`, `${fmt(s1 / p, 2)}×`, fmt(qc), fmt(pc), `${fmt(qc / pc, 2)}×`, fmt(ours[0]!.bytes / pages / 1024, 0), fmt(theirs[0]!.bytes / pages / 1024, 0)]);
      const phases = { drawMs: 0, encodeMs: 0 };
      const sequential = await quire(pdf, format, { phases });
      phaseRows.push([format, fmt(sequential.ms / pages), fmt(phases.drawMs / pages), fmt(phases.encodeMs / pages)]);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  console.log(table(['format', 'Quire wall ms/page', 'one thread', 'pdftoppm wall', 'ratio', 'one thread', 'Quire CPU ms/page', 'pdftoppm CPU', 'ratio', 'Quire KB/page', 'pdftoppm KB/page'], rows));
  console.log('\nWithout the overlap (each page drawn, then encoded), and where Quire\'s CPU time goes, ms/page (approximate:');
  console.log('getrusage counts in ticks, and skia may finish drawing inside the encode call); one run:\n');
  console.log(table(['format', 'wall, no overlap', 'CPU: pdfjs parse + draw', 'CPU: canvas encode'], phaseRows));
  console.log(`\nTarget: Quire (as a job runs) within 2× of pdftoppm. On a busy machine (load ${os.loadavg()[0]!.toFixed(1)} now, ${os.cpus().length} cores) wall times include waiting for a core; CPU times do not.`);
}

await main();
