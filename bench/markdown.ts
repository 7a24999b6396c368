// Times parseMarkdown on a 1 MB Extended Markdown document and on a typical 5-page one (in process and through POST /render/validate/markdown), beside the bare mdast-util-from-markdown + micromark parse of the same bytes (the floor), its memory, and a peer parser; never fails a build.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { directiveFromMarkdown } from 'mdast-util-directive';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { mathFromMarkdown } from 'mdast-util-math';
import { directive } from 'micromark-extension-directive';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { math } from 'micromark-extension-math';
import { parseMarkdown, serializeMarkdown } from '../document/markdown/index.js';
import { markdownTree } from '../document/markdown/tree.js';
import type { DocumentJson } from '../contracts/document-json.js';
import { reportDocument } from '../test/fixtures/documents.js';
import { fmt, percentile, spread, table, type Spread } from './stats.js';
import { JsonClient, startServer } from './render-http.js';
import { threadMemory, type ThreadMemory } from './markdown-thread-memory.js';

const { values } = parseArgs({
  strict: false,
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    'small-runs': { type: 'string' },
    // Internal: measure one parse's memory in a fresh process (see memoryOf).
    'memory-child': { type: 'string' },
    parser: { type: 'string' },
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
 * Each copy's paragraphs, table rows, chart captions and reading lists are numbered with the copy, so no
 * two chunks of the source are the same text: a real document has no repeats for the parser's chunk
 * cache to find, and the floor gets none either.
 */
export function bigMarkdown(bytes = MiB - 1024): string {
  const report = reportDocument() as { sections: Array<{ content: Json[] }> } & Json;
  const md = serializeMarkdown(report as unknown as DocumentJson);
  const end = md.indexOf('\n---\n', 4) + 5;
  const frontMatter = md.slice(0, end);
  const body = md.slice(end);
  let out = frontMatter;
  for (let copy = 0; ; copy++) {
    const next = `\n${body
      .replace(/\{#ch(\d+)\}/g, `{#ch$1-${copy}}`)
      .replace(/\(#ch(\d+)\)/g, `(#ch$1-${copy})`)
      .replace(/\b(Paragraph|Case|Trend|Further reading|Item|Step) /g, `$1 ${copy}.`)}`;
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
  floorExtensions: Spread;
  floorGfm: Spread;
  ratioGfm: number;
  /** p50 over rounds of parseMarkdown's CPU time / the floor's in the same round. */
  ratio: number;
  ratioExtensions: number;
  memory: Memory;
  memoryFloor: Memory;
  /** One parse in the service's parser thread (its resource limits, its task function). */
  thread: ThreadMemory;
  /** The same with the tree built whole (chunkedAbove: Infinity), as before large sources were converted chunk by chunk. */
  threadWhole: ThreadMemory;
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

/**
 * The bare parse with the micromark and mdast extensions Quire's tokenizer uses (document/markdown/tree.ts:
 * GFM without single-tilde strikethrough, YAML front matter, math, the block forms of directives), through
 * the package's own fromMarkdown, in one piece: what Quire's parse would be with nothing of its own.
 */
const BARE_OPTIONS = {
  extensions: [frontmatter(['yaml']), gfm({ singleTilde: false }), math(), { flow: directive().flow }],
  mdastExtensions: [frontmatterFromMarkdown(['yaml']), gfmFromMarkdown(), mathFromMarkdown(), directiveFromMarkdown()],
};
const BARE_WITH_EXTENSIONS = (text: string) => fromMarkdown(text, BARE_OPTIONS);
/** The bare parse with GFM only (CommonMark + GFM). */
const GFM_OPTIONS = { extensions: [gfm({ singleTilde: false })], mdastExtensions: [gfmFromMarkdown()] };
const BARE_GFM = (text: string) => fromMarkdown(text, GFM_OPTIONS);

/** Wall and CPU times (ms) of each parser, the parsers run one after another in every round. */
function interleaved<K extends string>(parsers: Record<K, () => unknown>, runs: number, warmup: number): Record<K, { wall: number[]; cpu: number[] }> {
  const out = Object.fromEntries(Object.keys(parsers).map((k) => [k, { wall: [] as number[], cpu: [] as number[] }])) as Record<K, { wall: number[]; cpu: number[] }>;
  for (let round = 0; round < warmup + runs; round++) {
    for (const [name, fn] of Object.entries(parsers) as Array<[K, () => unknown]>) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      fn();
      const wall = performance.now() - t0;
      const used = process.cpuUsage(cpu0);
      if (round < warmup) continue;
      out[name].wall.push(wall);
      out[name].cpu.push((used.user + used.system) / 1000);
    }
  }
  return out;
}

interface Memory {
  /** Most heap in use while the parse ran, garbage not yet collected included (bytes above the heap before it). */
  peak: number;
  /** Growth of the process's peak RSS during the parse (bytes): the peak heap plus V8's spare room for it. */
  rss: number;
  /** Heap still in use after a full collection, the result held (bytes): the result and any cache the parse filled. */
  kept: number;
}

const fmtMemory = (m: Memory, bytes: number) =>
  `heap peak ${fmt(m.peak / MiB)} MB (${fmt(m.peak / bytes)}× the input), kept ${fmt(m.kept / MiB)} MB (${fmt(m.kept / bytes)}×), RSS peak growth ${fmt(m.rss / MiB)} MB (${fmt(m.rss / bytes)}×)`;

const GC_LINE = /: (?:Scavenge|Mark-Compact|Minor Mark-Compact|Mark-sweep)[^\d]*(\d+(?:\.\d+)?) \((\d+(?:\.\d+)?)\) -> (\d+(?:\.\d+)?)/;

/**
 * One parse of `source` in a fresh Node process (this file with --memory-child), after a warm-up parse of
 * a small document loaded the code. The peak heap is the largest "heap used before" of the collections V8
 * reports (--trace-gc) during the parse, or the heap in use at its end when that is larger. A fresh
 * process, because this one's heap and peak RSS are set by the runs before.
 */
function memoryOf(source: string, parser: 'quire' | 'bare'): Memory {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-md-bench-'));
  try {
    const file = path.join(dir, 'source.md');
    writeFileSync(file, source);
    const child = spawnSync(process.execPath, ['--expose-gc', '--trace-gc', fileURLToPath(import.meta.url), '--memory-child', file, '--parser', parser], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (child.status !== 0) throw new Error(`memory child failed: ${child.stderr}`);
    const lines = child.stdout.split('\n');
    const during = lines.slice(lines.indexOf('PARSE START') + 1, lines.indexOf('PARSE END'));
    const result = JSON.parse(lines.find((l) => l.startsWith('{'))!) as { heap0: number; heapEnd: number; rss: number; kept: number };
    const gcPeak = Math.max(0, ...during.map((l) => GC_LINE.exec(l)).filter((m) => m !== null).map((m) => Number(m[1]) * MiB));
    return { peak: Math.max(gcPeak, result.heapEnd) - result.heap0, rss: result.rss, kept: result.kept };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One parse of `source` in the Markdown parser's thread, as the service runs it (bench/markdown-thread-memory.ts),
 * in a fresh process: the thread is new, warmed up by a 5-page parse.
 */
function threadMemoryOf(source: string, whole = false): ThreadMemory {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-md-bench-'));
  try {
    const file = path.join(dir, 'source.md');
    writeFileSync(file, source);
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--memory-child', file, '--parser', whole ? 'thread-whole' : 'thread'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (child.status !== 0) throw new Error(`memory child failed: ${child.stderr}`);
    return JSON.parse(child.stdout.split('\n').find((l) => l.startsWith('{'))!) as ThreadMemory;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function memoryChild(file: string, parser: string): Promise<void> {
  if (parser === 'thread' || parser === 'thread-whole') {
    console.log(JSON.stringify(await threadMemory(file, fivePageMarkdown(), undefined, parser === 'thread' ? {} : { chunkedAbove: Infinity })));
    return;
  }
  const source = readFileSync(file, 'utf8');
  const gc = (globalThis as { gc?: () => void }).gc!;
  const parse = parser === 'bare' ? (text: string) => fromMarkdown(text) : (text: string) => parseMarkdown(text);
  parse(fivePageMarkdown());
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.resourceUsage().maxRSS;
  console.log('PARSE START');
  const result = parse(source);
  const heapEnd = process.memoryUsage().heapUsed;
  console.log('PARSE END');
  const rss = (process.resourceUsage().maxRSS - rss0) * 1024;
  gc();
  const kept = process.memoryUsage().heapUsed - heap0;
  if (!result) throw new Error('no result');
  console.log(JSON.stringify({ heap0, heapEnd, rss, kept }));
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
  // The three parses take turns, round by round: on a shared machine a burst of other work then slows
  // all three alike, and the ratio of each round is steadier than a ratio of separate medians.
  const parsers = { quire: () => parseMarkdown(big), bare: () => fromMarkdown(big), bareGfm: () => BARE_GFM(big), bareExtensions: () => BARE_WITH_EXTENSIONS(big) };
  const rounds = interleaved(parsers, RUNS, WARMUP);
  f.parse = spread(rounds.quire.wall);
  f.parseCpu = percentile(rounds.quire.cpu, 50);
  f.floor = spread(rounds.bare.wall);
  f.floorExtensions = spread(rounds.bareExtensions.wall);
  f.floorGfm = spread(rounds.bareGfm.wall);
  f.ratioGfm = percentile(rounds.quire.cpu.map((c, i) => c / rounds.bareGfm.cpu[i]!), 50);
  f.ratio = percentile(rounds.quire.cpu.map((c, i) => c / rounds.bare.cpu[i]!), 50);
  f.ratioExtensions = percentile(rounds.quire.cpu.map((c, i) => c / rounds.bareExtensions.cpu[i]!), 50);
  log(`1. parseMarkdown, 1 MB: p50 ${fmt(f.parse.p50)} ms, max ${fmt(f.parse.max)} ms; CPU p50 ${fmt(f.parseCpu)} ms`);
  log(`2. floor: fromMarkdown (micromark + mdast, CommonMark only), the same bytes: p50 ${fmt(f.floor.p50)} ms; CPU p50 ${fmt(percentile(rounds.bare.cpu, 50))} ms`);
  log(`2b. floor: fromMarkdown + GFM (CommonMark + GFM), the same bytes: p50 ${fmt(f.floorGfm.p50)} ms; CPU p50 ${fmt(percentile(rounds.bareGfm.cpu, 50))} ms`);
  log(`3. floor: fromMarkdown with the extensions Quire uses (GFM, YAML front matter, math, block directives; not Quire's own reference syntax), the same bytes in one piece: p50 ${fmt(f.floorExtensions.p50)} ms; CPU p50 ${fmt(percentile(rounds.bareExtensions.cpu, 50))} ms`);
  log(`   ratio parseMarkdown / floor, p50 of the rounds' CPU-time ratios: ${fmt(f.ratio, 2)} (CommonMark), ${fmt(f.ratioGfm, 2)} (CommonMark + GFM), ${fmt(f.ratioExtensions, 2)} (with Quire's extensions)`);
  f.tree = spread(timeRuns(() => markdownTree(big), RUNS, WARMUP));
  log(`4. markdownTree (micromark + all extensions, chunked; part of 1): p50 ${fmt(f.tree.p50)} ms, max ${fmt(f.tree.max)} ms`);
  f.memory = memoryOf(big, 'quire');
  f.memoryFloor = memoryOf(big, 'bare');
  log(`5. memory of one parse in a fresh process: parseMarkdown ${fmtMemory(f.memory, bytes)}; bare fromMarkdown ${fmtMemory(f.memoryFloor, bytes)}`);
  f.thread = threadMemoryOf(big);
  f.threadWhole = threadMemoryOf(big, true);
  const threadLine = (t: ThreadMemory) =>
    `heap peak ${fmt(t.peak / MiB)} MB (${fmt(t.peak / bytes)}× the input) above the thread's ${fmt(t.before / MiB)} MB before it; live (in use right after a full collection) at most ${fmt(t.live / MiB)} MB (${fmt(t.live / bytes)}×; after any collection ${fmt(t.liveBound / bytes)}×), kept ${fmt(t.kept / bytes)}×; ${t.scavenges} scavenges, ${t.markCompacts} full collections, CPU ${fmt(t.cpuMs, 0)} ms`;
  log(`5b. memory of one parse in the Markdown parser's thread (young generation ${f.thread.limits.maxYoungGenerationSizeMb} MB, old ${f.thread.limits.maxOldGenerationSizeMb} MB; from V8's collection callbacks), converted chunk by chunk: ${threadLine(f.thread)}`);
  log(`5c. the same with the tree built whole (as before large sources were converted chunk by chunk): ${threadLine(f.threadWhole)}`);
  const peer = findPeer();
  if (peer) {
    f.peer = { ...spread(timeRuns(() => peer.parse(big), RUNS, WARMUP)), name: peer.name, version: peer.version };
    log(`6. ${peer.name} ${peer.version} parse (tokens, no tree): p50 ${fmt(f.peer.p50)} ms, max ${fmt(f.peer.max)} ms`);
  } else {
    f.peer = null;
    log('6. peer skipped: neither markdown-it nor marked is installed');
  }

  const small = fivePageMarkdown();
  const smallCheck = parseMarkdown(small);
  f.smallBytes = Buffer.byteLength(small);
  f.smallErrors = smallCheck.errors.length;
  f.small = spread(timeRuns(() => parseMarkdown(small), SMALL_RUNS, SMALL_WARMUP));
  f.smallCpu = percentile(lastCpu, 50);
  log(`7. parseMarkdown (= validation), 5-page document (${fmt(f.smallBytes / 1024)} KB, ${f.smallErrors} errors): p50 ${fmt(f.small.p50, 2)} ms, p90 ${fmt(f.small.p90, 2)}, p99 ${fmt(f.small.p99, 2)}; CPU p50 ${fmt(f.smallCpu, 2)} ms`);

  f.http = spread(await validateOverHttp(small, SMALL_RUNS, SMALL_WARMUP));
  log(`8. POST /render/validate/markdown, the same 5-page document, one request at a time (server on loopback): p50 ${fmt(f.http.p50, 2)} ms, p90 ${fmt(f.http.p90, 2)}, p99 ${fmt(f.http.p99, 2)}`);

  const rows: string[][] = [];
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const p = f.peer;
  rows.push(['1 MB: parseMarkdown / bare fromMarkdown (CommonMark), CPU', fmt(f.ratio, 2), '', '≤ 1.3', verdict(f.ratio <= 1.3)]);
  rows.push(['1 MB: parseMarkdown / bare fromMarkdown + GFM, CPU', fmt(f.ratioGfm, 2), '', '≤ 1.3', verdict(f.ratioGfm <= 1.3)]);
  rows.push(['1 MB: parseMarkdown / bare fromMarkdown + GFM, front matter, math, directives', fmt(f.ratioExtensions, 2), '', '≤ 1.3', verdict(f.ratioExtensions <= 1.3)]);
  rows.push(['   parseMarkdown p50 ms', fmt(f.parse.p50), p ? fmt(p.p50) : 'skipped', '', '']);
  rows.push(['   bare fromMarkdown p50 ms (CommonMark / + GFM / + all)', `${fmt(f.floor.p50)} / ${fmt(f.floorGfm.p50)} / ${fmt(f.floorExtensions.p50)}`, '', '', '']);
  rows.push(['   of which markdownTree p50 ms', fmt(f.tree.p50), '', '', '']);
  rows.push(['1 MB: peak heap of one parse / input size', fmt(f.memory.peak / bytes, 1), '', '≤ 20', verdict(f.memory.peak / bytes <= 20)]);
  rows.push(['   the same for bare fromMarkdown (CommonMark)', fmt(f.memoryFloor.peak / bytes, 1), '', '', '']);
  rows.push(['   heap kept (result and chunk cache) / input size', fmt(f.memory.kept / bytes, 1), '', '', '']);
  rows.push(['   peak RSS growth / input size', fmt(f.memory.rss / bytes, 1), '', '', '']);
  rows.push(['1 MB: peak heap of one parse in the parser thread / input size', fmt(f.thread.peak / bytes, 1), '', '≤ 20', verdict(f.thread.peak / bytes <= 20)]);
  rows.push(['1 MB: live heap of one parse in the parser thread (after a full collection) / input', fmt(f.thread.live / bytes, 1), '', '≤ 20', f.thread.markCompacts ? verdict(f.thread.live / bytes <= 20) : 'no full collection']);
  rows.push(['   the same, the tree built whole: peak / live', `${fmt(f.threadWhole.peak / bytes, 1)} / ${fmt(f.threadWhole.live / bytes, 1)}`, '', '', '']);
  rows.push(['5-page validate in process p50 ms', fmt(f.small.p50, 2), '', '≤ 20', verdict(f.small.p50 <= 20)]);
  rows.push(['   5-page validate CPU p50 ms', fmt(f.smallCpu, 2), '', '', '']);
  rows.push(['5-page validate over HTTP p50 ms', fmt(f.http.p50, 2), '', '≤ 20', verdict(f.http.p50 <= 20)]);
  log(`\nSummary — ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${QUICK ? 'quick' : 'full'} run, load average now ${loadAverage()}. Peer: ${p ? `${p.name} ${p.version}, CommonMark tokens` : 'skipped'}.`);
  log(table(['measure', 'Quire', 'peer', 'target', 'verdict'], rows));
}

// Run as a script (the corpus functions above may also be imported).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && typeof values['memory-child'] === 'string') {
  await memoryChild(values['memory-child'], String(values.parser ?? 'quire'));
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await main();
  } catch (err) {
    // A benchmark reports; it never fails the build.
    console.error(`benchmark could not finish: ${(err as Error).stack ?? err}`);
    process.exitCode = 0;
  }
}
