// Times parseMarkdown on a 1 MB Extended Markdown document and on a typical 5-page one (in process and through POST /render/validate/markdown), beside micromark alone (the floor) and a peer parser; never fails a build.
import { createRequire } from 'node:module';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { parseMarkdown, serializeMarkdown } from '../document/markdown/index.js';
import { markdownTree } from '../document/markdown/tree.js';
import type { DocumentJson } from '../contracts/document-json.js';
import { reportDocument } from '../test/fixtures/documents.js';
import { fmt, percentile, spread, table, type Spread } from './stats.js';
import { JsonClient, startServer } from './render-http.js';

const { values } = parseArgs({
  strict: false,
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    'small-runs': { type: 'string' },
  },
});
const QUICK = values.quick === true;
const RUNS = Number(values.runs ?? (QUICK ? 5 : 15));
const WARMUP = QUICK ? 2 : 4;
const SMALL_RUNS = Number(values['small-runs'] ?? (QUICK ? 50 : 300));
const SMALL_WARMUP = QUICK ? 10 : 30;

const log = (msg: string) => console.log(msg);
const MiB = 1024 * 1024;

type Json = Record<string, unknown>;

/**
 * The report fixture (10 chapters, 40 tables, 10 charts, 100 citations, ~30 pages) as Extended Markdown,
 * its body repeated (anchors renamed so that each copy is valid) under one front matter up to `bytes`.
 */
export function bigMarkdown(bytes = MiB - 1024): string {
  const report = reportDocument() as { sections: Array<{ content: Json[] }> } & Json;
  const md = serializeMarkdown(report as unknown as DocumentJson);
  const end = md.indexOf('\n---\n', 4) + 5;
  const frontMatter = md.slice(0, end);
  const body = md.slice(end);
  let out = frontMatter;
  for (let copy = 0; ; copy++) {
    const next = `\n${body.replace(/\{#ch(\d+)\}/g, `{#ch$1-${copy}}`).replace(/\(#ch(\d+)\)/g, `(#ch$1-${copy})`)}`;
    if (Buffer.byteLength(out + next) > bytes) break;
    out += next;
  }
  return out;
}

/** A typical 5-page document: the report's first two chapters with the citations they use. */
export function fivePageMarkdown(): string {
  const report = reportDocument() as { sections: Array<{ content: Json[] }>; citations: Json[] } & Json;
  const content = report.sections[0]!.content;
  const chapter3 = content.findIndex((e) => e.type === 'h1' && e.id === 'ch2');
  report.sections[0]!.content = [...content.slice(0, chapter3), content[content.length - 1]!];
  const md0 = JSON.stringify(report.sections);
  report.citations = report.citations.filter((c) => md0.includes(`@[${c.id as string}`) || md0.includes(`@[${c.id as string},`));
  return serializeMarkdown(report as unknown as DocumentJson);
}

/** CPU time (ms, this process: the garbage collector's threads included) of the last timeRuns, run by run. */
let lastCpu: number[] = [];

/**
 * Wall-time samples of fn after warm-up runs (CPU time in lastCpu: on a shared machine the steadier
 * figure).
 */
function timeRuns(fn: () => unknown, runs: number, warmup: number): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  lastCpu = [];
  for (let i = 0; i < runs; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
    const used = process.cpuUsage(cpu0);
    lastCpu.push((used.user + used.system) / 1000);
  }
  return times;
}

interface Peer {
  name: string;
  version: string;
  parse: (md: string) => unknown;
}

/** markdown-it or marked, whichever is installed (CommonMark without Quire's extensions; no positions). */
function findPeer(): Peer | null {
  const require = createRequire(import.meta.url);
  for (const name of ['markdown-it', 'marked']) {
    try {
      const mod = require(name);
      const version = (require(`${name}/package.json`) as { version: string }).version;
      if (name === 'markdown-it') {
        const md = new (mod as new () => { parse(src: string, env: object): unknown })();
        return { name, version, parse: (src) => md.parse(src, {}) };
      }
      const marked = mod as { lexer(src: string): unknown };
      return { name, version, parse: (src) => marked.lexer(src) };
    } catch {
      // not installed: try the next one
    }
  }
  return null;
}

interface Figures {
  bytes: number;
  parse: Spread;
  parseCpu: number;
  tree: Spread;
  floor: Spread;
  peer: (Spread & { name: string; version: string }) | null;
  smallBytes: number;
  small: Spread;
  smallCpu: number;
  smallErrors: number;
  /** POST /render/validate/markdown of the 5-page document, one request after another, on a started server. */
  http: Spread | null;
}

/** Wall times of validating `source` over HTTP (the parse runs in the server's Markdown threads), after warm-up requests. */
async function validateOverHttp(source: string, runs: number, warmup: number): Promise<number[]> {
  const server = await startServer();
  const client = new JsonClient(server.baseUrl, 1);
  try {
    const once = async () => {
      const t0 = performance.now();
      const reply = await client.request('POST', '/api/v1/dev/render/validate/markdown', { content: source });
      if (reply.status !== 200 || reply.body.valid !== true) throw new Error(`validation answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
      return performance.now() - t0;
    };
    for (let i = 0; i < warmup; i++) await once();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await once());
    return times;
  } finally {
    client.close();
    await server.stop();
  }
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');

async function main(): Promise<void> {
  log(`Extended Markdown benchmark (${QUICK ? 'quick' : 'full'}); wall time in ms, p50 of ${RUNS} runs after ${WARMUP} warm-up runs (5-page document: ${SMALL_RUNS} after ${SMALL_WARMUP}).`);
  log(`load average at start (1/5/15 min): ${loadAverage()} — anything above 0 is other work competing for the same cores.\n`);
  const big = bigMarkdown();
  const bytes = Buffer.byteLength(big);
  const check = parseMarkdown(big);
  log(`1 MB document: ${fmt(bytes / 1024, 0)} KB, ${big.split('\n').length} lines; parseMarkdown gives ${check.errors.length} errors, ${check.warnings.length} warnings, ${check.document ? check.document.sections.reduce((n, s) => n + s.content.length, 0) : 0} elements`);

  const f: Partial<Figures> = { bytes };
  f.parse = spread(timeRuns(() => parseMarkdown(big), RUNS, WARMUP));
  f.parseCpu = percentile(lastCpu, 50);
  log(`1. parseMarkdown, 1 MB: p50 ${fmt(f.parse.p50)} ms, max ${fmt(f.parse.max)} ms; CPU p50 ${fmt(f.parseCpu)} ms`);
  f.tree = spread(timeRuns(() => markdownTree(big), RUNS, WARMUP));
  log(`2. markdownTree (micromark + all extensions, chunked; part of 1): p50 ${fmt(f.tree.p50)} ms, max ${fmt(f.tree.max)} ms`);
  f.floor = spread(timeRuns(() => fromMarkdown(big), RUNS, WARMUP));
  log(`3. fromMarkdown without extensions (micromark + mdast, the floor): p50 ${fmt(f.floor.p50)} ms, max ${fmt(f.floor.max)} ms`);
  const peer = findPeer();
  if (peer) {
    f.peer = { ...spread(timeRuns(() => peer.parse(big), RUNS, WARMUP)), name: peer.name, version: peer.version };
    log(`4. ${peer.name} ${peer.version} parse (tokens, no tree): p50 ${fmt(f.peer.p50)} ms, max ${fmt(f.peer.max)} ms`);
  } else {
    f.peer = null;
    log('4. peer skipped: neither markdown-it nor marked is installed');
  }

  const small = fivePageMarkdown();
  const smallCheck = parseMarkdown(small);
  f.smallBytes = Buffer.byteLength(small);
  f.smallErrors = smallCheck.errors.length;
  f.small = spread(timeRuns(() => parseMarkdown(small), SMALL_RUNS, SMALL_WARMUP));
  f.smallCpu = percentile(lastCpu, 50);
  log(`5. parseMarkdown (= validation), 5-page document (${fmt(f.smallBytes / 1024)} KB, ${f.smallErrors} errors): p50 ${fmt(f.small.p50, 2)} ms, p90 ${fmt(f.small.p90, 2)}, p99 ${fmt(f.small.p99, 2)}; CPU p50 ${fmt(f.smallCpu, 2)} ms`);

  f.http = spread(await validateOverHttp(small, SMALL_RUNS, SMALL_WARMUP));
  log(`6. POST /render/validate/markdown, the same 5-page document, one request at a time (server on loopback): p50 ${fmt(f.http.p50, 2)} ms, p90 ${fmt(f.http.p90, 2)}, p99 ${fmt(f.http.p99, 2)}`);

  const rows: string[][] = [];
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const p = f.peer;
  rows.push(['1 MB parseMarkdown p50 ms', fmt(f.parse.p50), p ? fmt(p.p50) : 'skipped', '≤ 100', verdict(f.parse.p50 <= 100)]);
  if (p) rows.push(['   ratio Quire / peer (p50)', fmt(f.parse.p50 / p.p50, 1), '1.0', '', '']);
  rows.push(['   1 MB parseMarkdown CPU p50 ms', fmt(f.parseCpu), '', '', '']);
  rows.push(['   of which markdownTree p50 ms', fmt(f.tree.p50), '', '', '']);
  rows.push(['   fromMarkdown floor p50 ms', fmt(f.floor.p50), '', '', '']);
  rows.push(['   ratio parseMarkdown / floor', fmt(f.parse.p50 / f.floor.p50, 2), '', '', '']);
  rows.push(['5-page validate in process p50 ms', fmt(f.small.p50, 2), '', '≤ 20', verdict(f.small.p50 <= 20)]);
  rows.push(['   5-page validate CPU p50 ms', fmt(f.smallCpu, 2), '', '', '']);
  rows.push(['5-page validate over HTTP p50 ms', fmt(f.http.p50, 2), '', '≤ 20', verdict(f.http.p50 <= 20)]);
  log(`\nSummary — ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${QUICK ? 'quick' : 'full'} run, load average now ${loadAverage()}. Peer: ${p ? `${p.name} ${p.version}, CommonMark tokens` : 'skipped'}.`);
  log(table(['measure', 'Quire', 'peer', 'target', 'verdict'], rows));
}

// Run as a script (the corpus functions above may also be imported).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await main();
  } catch (err) {
    // A benchmark reports; it never fails the build.
    console.error(`benchmark could not finish: ${(err as Error).stack ?? err}`);
    process.exitCode = 0;
  }
}
