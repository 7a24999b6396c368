// Times the office render targets (DOCX, ODT) on the 30-page report in process, through the same worker
// function the plugin pool runs, beside pandoc converting the same report as Markdown; never fails a build.
//
// Adding a target: append it to TARGETS. pandoc writes the same format for the comparison.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { validateDocument } from '../document/validator.js';
import { serializeMarkdown } from '../document/markdown/index.js';
import type { DocumentJson } from '../contracts/document-json.js';
import type { WorkerInput, WorkerOutput } from '../sdk/plugin-api.js';
import { renderDocx } from '../plugins/render-docx/worker.js';
import { renderOdt } from '../plugins/render-odt/worker.js';
import { reportDocument } from '../test/fixtures/documents.js';
import { fmt, percentile, table } from './stats.js';

interface OfficeTarget {
  /** document.type, and pandoc's output format. */
  type: 'docx' | 'odt';
  render: (input: WorkerInput<{ document: Record<string, unknown>; pdfProfile: 'standard'; createdAt: string }>) => Promise<WorkerOutput>;
}

const TARGETS: OfficeTarget[] = [
  { type: 'docx', render: renderDocx },
  { type: 'odt', render: renderOdt },
];

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' }, 'pandoc-runs': { type: 'string', default: '10' }, warmup: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
const PANDOC_RUNS = Number(values['pandoc-runs']);
const WARMUP = Number(values.warmup);
const TARGET_P50_MS = 300;
const IEEE_CSL = '/usr/share/citation-style-language/styles/ieee.csl';

const run = promisify(execFile);

function report(type: OfficeTarget['type'], i: number): DocumentJson {
  const raw = reportDocument() as { document: Record<string, unknown> };
  // A title of its own per render, so nothing can be answered from a cache of the previous one.
  raw.document = { ...raw.document, type, title: `Rendering report #${i}` };
  const v = validateDocument(raw);
  if (!v.valid) throw new Error(`the report fixture is invalid: ${JSON.stringify(v.errors)}`);
  return v.document!;
}

/** Wall time and this thread's CPU time of each render: on a busy machine the CPU time is what the render costs. */
async function timeTarget(t: OfficeTarget): Promise<{ times: number[]; cpu: number[]; kb: number }> {
  const times: number[] = [];
  const cpu: number[] = [];
  let kb = 0;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const document = report(t.type, i) as unknown as Record<string, unknown>;
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    const out = await t.render({ params: { document, pdfProfile: 'standard', createdAt: new Date().toISOString() }, files: [], settings: {} });
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpuStart);
    if (i >= WARMUP) {
      times.push(ms);
      cpu.push((used.user + used.system) / 1000);
    }
    kb = (out.file?.bytes.byteLength ?? 0) / 1024;
  }
  return { times, cpu, kb };
}

/**
 * The report as pandoc Markdown: Quire's Extended Markdown with citations in pandoc's syntax, the CSL items
 * as `references` for --citeproc, and Quire's directives (toc, lists, bibliography) left to pandoc's --toc
 * and citeproc. Charts stay code blocks (pandoc has no charts), so pandoc does less work than Quire.
 */
function pandocMarkdown(doc: DocumentJson): string {
  return serializeMarkdown(doc)
    .replace(/^citations:/m, 'references:')
    .replace(/@\[([^\]]+)\]/g, '[@$1]')
    .replace(/^::(toc|lot|lof|bibliography)\b.*$/gm, '')
    .replace(/^\{align=\w+\}$/gm, '');
}

async function timePandoc(type: OfficeTarget['type']): Promise<number[] | null> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-office-'));
  try {
    const input = path.join(dir, 'report.md');
    await writeFile(input, pandocMarkdown(report(type, 0)));
    const args = [input, '-f', 'markdown', '-t', type, '--citeproc', '--csl', IEEE_CSL, '--toc', '-o', path.join(dir, `report.${type}`)];
    const times: number[] = [];
    for (let i = 0; i < 1 + PANDOC_RUNS; i++) {
      const started = performance.now();
      await run('pandoc', args);
      if (i > 0) times.push(performance.now() - started);
    }
    return times;
  } catch (err) {
    console.log(`pandoc (${type}) could not run: ${(err as Error).message.split('\n')[0]}`);
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const rows: string[][] = [];
for (const t of TARGETS) {
  const quire = await timeTarget(t);
  const pandoc = await timePandoc(t.type);
  const p50 = percentile(quire.times, 50);
  const pandocP50 = pandoc ? percentile(pandoc, 50) : Number.NaN;
  rows.push([`render.${t.type}`, String(RUNS), fmt(p50), fmt(percentile(quire.times, 95)), fmt(percentile(quire.cpu, 50)), fmt(quire.kb, 0), fmt(pandocP50), fmt(pandoc ? percentile(pandoc, 95) : Number.NaN), fmt(p50 / pandocP50, 2), p50 <= TARGET_P50_MS ? 'yes' : 'no']);
}

console.log(`\nOffice targets, 30-page report (test/fixtures/documents.ts reportDocument), in process; ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(2)}\n`);
console.log(table(['target', 'runs', 'p50 ms', 'p95 ms', 'CPU p50 ms', 'KiB', 'pandoc p50 ms', 'pandoc p95 ms', 'Quire/pandoc', `p50 ≤ ${TARGET_P50_MS} ms`], rows));
console.log('\npandoc: same report as Markdown, --citeproc (IEEE), --toc; includes its process start, draws no charts.');
