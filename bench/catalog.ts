// Times every catalog template (catalog/templates) from Extended Markdown to PDF in process — parseMarkdown, the preset merged and checked, render.pdf on its pool — beside the same Markdown through markdown-it and Chromium; never fails a build, but stops loudly on an empty PDF.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { parseMarkdown } from '../document/markdown/index.js';
import { catalogTemplates, type CatalogTemplate } from '../services/template-catalog.js';
import { checkDocumentConfig } from '../services/document-check.js';
import { PluginPool } from '../kernel/plugin-pool.js';
import type { Store } from '../kernel/store/store.js';
import type { DocumentJson } from '../contracts/document-json.js';
import { printA4, withChromiumPage, CHROMIUM } from './render-chromium.js';
import { fmt, percentile, table } from './stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    // Slugs to time (comma-separated); all by default.
    only: { type: 'string' },
    // How many templates (the first in the catalog's order) also go through the Chromium peer; 0 skips it.
    peer: { type: 'string', default: '12' },
  },
});
const RUNS = Number(values.runs);
const WARMUP = Number(values.warmup);
const GOAL_MS = 50;
const exec = promisify(execFile);
const log = (msg: string) => console.log(msg);
const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');

/**
 * The catalog's presets are all built in (`system:…`), which checkDocumentConfig resolves without a store;
 * one that reached for it would be a workspace preset this bench cannot have, so it says so.
 */
const noStore = new Proxy({} as Store, {
  get: (_, key) => {
    throw new Error(`the catalog bench has no store (asked for ${String(key)}): a catalog template names a workspace style preset`);
  },
});

interface Row {
  slug: string;
  pages: number;
  kb: number;
  parse: number[];
  check: number[];
  render: number[];
  total: number[];
  /** CPU time of the whole process (this thread and the render thread) over parse + check + render: steadier than wall time on a shared machine. */
  cpu: number[];
  peer?: { times: number[]; pages: number };
}

/** The page count pdfinfo (poppler, an independent reader) finds in `bytes`; throws when it finds none. */
async function pdfPages(bytes: Uint8Array, dir: string, name: string): Promise<number> {
  const file = path.join(dir, `${name}.pdf`);
  await writeFile(file, bytes);
  const { stdout } = await exec('pdfinfo', [file]);
  const pages = Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1] ?? 0);
  if (!(pages > 0)) throw new Error(`${name}: pdfinfo finds no pages in the ${bytes.byteLength}-byte PDF:\n${stdout}`);
  return pages;
}

/** Parse, preset and check, render: each timed, one run after another on one thread; a new title each run so no cache answers. */
async function timeTemplate(pool: PluginPool, t: CatalogTemplate, dir: string): Promise<Row> {
  const row: Row = { slug: t.slug, pages: 0, kb: 0, parse: [], check: [], render: [], total: [], cpu: [] };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const parsed = parseMarkdown(t.markdown);
    const t1 = performance.now();
    if (!parsed.document) throw new Error(`${t.slug} does not parse`);
    const config = parsed.document as DocumentJson & { document: { title?: string } };
    config.document.title = `${config.document.title ?? t.name} · run ${i}`;
    const { document } = await checkDocumentConfig(noStore, '', config as unknown as Record<string, unknown>, t.stylePresetId ?? undefined, false);
    const t2 = performance.now();
    const out = await pool.run('renderPdf', { params: { document, pdfProfile: 'standard', createdAt: new Date().toISOString() }, files: [], settings: {} });
    const t3 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    if (!out.file) throw new Error(`${t.slug}: render ${i} gave no file`);
    if (i === 0) {
      row.pages = await pdfPages(out.file.bytes, dir, t.slug);
      row.kb = out.file.bytes.byteLength / 1024;
    }
    if (i < WARMUP) continue;
    row.parse.push(t1 - t0);
    row.check.push(t2 - t1);
    row.render.push(t3 - t2);
    row.total.push(t3 - t0);
    row.cpu.push((cpu.user + cpu.system) / 1000);
  }
  return row;
}

/** A plain stand-in for the template in HTML (the peer's input): front matter dropped, its scalar variables filled in, the body through markdown-it (Quire's extensions stay as text). */
function templateHtml(t: CatalogTemplate, md: { render(src: string): string }, run: number): string {
  const vars = (t.config as unknown as { variables?: Record<string, unknown> }).variables ?? {};
  const body = t.markdown.replace(/^---\n[\s\S]*?\n---\n/, '').replace(/\{\{\s*([\w.]+)\s*\}\}/g, (m, name: string) => (typeof vars[name] === 'string' ? (vars[name] as string) : m));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${t.name}</title><style>
body { font-family: 'Noto Sans', 'DejaVu Sans', sans-serif; font-size: 10.5pt; color: #000; }
table { border-collapse: collapse; width: 100%; margin: 8pt 0; }
th, td { padding: 3pt 5pt; border-bottom: 0.5pt solid #999; text-align: left; }
</style></head><body data-run="${run}">
${md.render(body)}
</body></html>`;
}

async function chromiumTemplates(rows: Row[], templates: CatalogTemplate[], dir: string): Promise<string | null> {
  const require = createRequire(import.meta.url);
  const MarkdownIt = require('markdown-it') as new (opts: object) => { render(src: string): string };
  const md = new MarkdownIt({ html: false });
  return withChromiumPage(async (page, version) => {
    for (const t of templates) {
      const times: number[] = [];
      let pages = 0;
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const started = performance.now();
        // markdown-it's parse and render are part of the peer's time, as parseMarkdown is part of Quire's;
        // the run number in the page keeps each one distinct.
        const pdf = await printA4(page, templateHtml(t, md, i));
        if (i === 0) pages = await pdfPages(pdf, dir, `${t.slug}-chromium`);
        if (i >= WARMUP) times.push(performance.now() - started);
      }
      rows.find((r) => r.slug === t.slug)!.peer = { times, pages };
    }
    return version;
  });
}

async function main(): Promise<void> {
  const only = values.only ? new Set(values.only.split(',')) : null;
  const templates = catalogTemplates().filter((t) => !only || only.has(t.slug));
  log(`Template catalog: ${templates.length} templates, each ${WARMUP} warm-up + ${RUNS} timed runs one at a time; render.pdf on its own pool with one thread.`);
  log(`${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.versions.node}; load average at start (1/5/15 min): ${loadAverage()}\n`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-catalog-'));
  // The manifest sets FONTCONFIG_FILE for the render threads; it loads before the pool starts them.
  const { default: plugin } = await import('../plugins/render-pdf/manifest.js');
  const pool = PluginPool.forPlugin(plugin, { ...plugin.manifest.pool, maxThreads: 1 });
  const rows: Row[] = [];
  try {
    // One pass over the whole catalog first, so the template timed first does not pay alone for the JIT's
    // warm-up of the parser and the validator (its parse p50 was 2–5× the others' without it).
    for (const t of templates) await pool.run('renderPdf', { params: { document: (await checkDocumentConfig(noStore, '', parseMarkdown(t.markdown).document as unknown as Record<string, unknown>, t.stylePresetId ?? undefined, false)).document, pdfProfile: 'standard', createdAt: new Date().toISOString() }, files: [], settings: {} });
    for (const t of templates) {
      const row = await timeTemplate(pool, t, dir);
      rows.push(row);
      log(`${t.slug}: total p50 ${fmt(percentile(row.total, 50))} ms (parse ${fmt(percentile(row.parse, 50), 2)}, preset + check ${fmt(percentile(row.check, 50), 2)}, render ${fmt(percentile(row.render, 50))}), ${row.pages} page(s), ${fmt(row.kb)} KB`);
    }
  } finally {
    await pool.close();
  }
  const peerCount = Math.min(Number(values.peer), templates.length);
  let version: string | null = null;
  if (peerCount > 0) {
    try {
      version = await chromiumTemplates(rows, templates.slice(0, peerCount), dir);
      if (version === null) log(`Chromium peer skipped: ${CHROMIUM} is not installed.`);
    } catch (err) {
      log(`Chromium peer failed to run, skipped: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  await rm(dir, { recursive: true, force: true });
  const p = (xs: number[], q: number, d = 1) => fmt(percentile(xs, q), d);
  const body = rows.map((r) => [
    r.slug,
    String(r.pages),
    p(r.parse, 50, 2),
    p(r.check, 50, 2),
    p(r.render, 50),
    p(r.render, 95),
    p(r.total, 50),
    p(r.total, 95),
    p(r.cpu, 50),
    percentile(r.total, 50) <= GOAL_MS ? 'PASS' : 'MISS',
    r.peer ? `${p(r.peer.times, 50)} / ${p(r.peer.times, 95)} (${r.peer.pages} p.)` : 'skipped',
  ]);
  log(`\nSummary — ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load average now ${loadAverage()}. Goal: parse + render p50 ≤ ${GOAL_MS} ms per template (issue 21). Chromium: ${version ?? 'skipped'}, markdown-it → setContent + pdf on one open page.`);
  log(table(['template', 'pages', 'parse p50', 'preset+check p50', 'render p50', 'render p95', 'total p50', 'total p95', 'CPU p50', '≤ 50 ms', 'Chromium p50 / p95'], body));
  const missed = rows.filter((r) => percentile(r.total, 50) > GOAL_MS).map((r) => r.slug);
  log(missed.length ? `Missed the goal: ${missed.join(', ')}` : `All ${rows.length} templates within ${GOAL_MS} ms p50.`);
}

main().catch((err) => {
  // A benchmark reports; an empty or unreadable PDF is the one thing it stops on, with a failing exit code.
  console.error(`catalog benchmark failed: ${(err as Error).stack ?? err}`);
  process.exitCode = 1;
});
