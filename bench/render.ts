// Times render.pdf (in process, over HTTP, under load, on a 30-page report, memory over many renders) beside headless Chromium; never fails a build.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { validateDocument } from '../document/validator.js';
import type { DocumentJson } from '../contracts/document-json.js';
import type { WorkerInput, WorkerOutput } from '../sdk/plugin-api.js';
import type { RenderParams } from '../plugins/render-pdf/contract.js';
import { invoiceDocument, reportDocument } from '../test/fixtures/documents.js';
import { chromiumPeer, CHROMIUM, type PeerResult } from './render-chromium.js';
import { JsonClient, loadLoop, renderOverHttp, startServer, type LoadResult } from './render-http.js';
import { memoryCurve, memoryCurveInChild, type MemoryCurve, type MemorySample } from './render-memory.js';
import { fmt, percentile, spread, table, type Spread } from './stats.js';
import { rerunWithAllocator } from './allocator.js';
import { allocatorInUse } from '../kernel/allocator.js';
import { fileURLToPath } from 'node:url';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', default: 'inprocess,report,chromium,http,load,memory' },
    clients: { type: 'string', default: '32' },
    seconds: { type: 'string' },
    // 0: one GET with ?waitMs= instead of polling (the server answers when the job finishes).
    'poll-ms': { type: 'string', default: '0' },
    'load-poll-ms': { type: 'string', default: '0' },
    // Prints the load test as a timeline: completions and worst latency per 200 ms (shows stalls, e.g. a recycle).
    timeline: { type: 'boolean', default: false },
    'memory-renders': { type: 'string' },
    'no-recycle-renders': { type: 'string' },
    // Used by the memory child process (render-memory.ts).
    'memory-child': { type: 'boolean', default: false },
    renders: { type: 'string' },
    'recycle-after': { type: 'string' },
    every: { type: 'string' },
    'ceiling-mb': { type: 'string', default: '8000' },
  },
});

const QUICK = values.quick;
const ONLY = new Set(values.only.split(','));
const N = {
  invoices: QUICK ? 100 : 500,
  invoiceWarmup: QUICK ? 10 : 30,
  reports: QUICK ? 3 : 10,
  chromium: QUICK ? 50 : 200,
  http: QUICK ? 100 : 300,
  httpReports: QUICK ? 1 : 3,
  loadSeconds: Number(values.seconds ?? (QUICK ? 5 : 20)),
  loadWarmupS: QUICK ? 1 : 3,
  clients: Number(values.clients),
  memory: Number(values['memory-renders'] ?? (QUICK ? 2_000 : 20_000)),
  noRecycle: Number(values['no-recycle-renders'] ?? (QUICK ? 2_000 : 10_000)),
  every: QUICK ? 250 : 1000,
};
const POLL_MS = Number(values['poll-ms']);
const LOAD_POLL_MS = Number(values['load-poll-ms']);

interface Figures {
  invoice?: Spread & { validateP50: number; cpuMs: number; kb: number; pages: number };
  report?: Spread & { pages: number; kb: number };
  chromium?: (Spread & { version: string; kb: number }) | null;
  http?: Spread & { createP50: number; serverP50: number; pollsPerRender: number };
  httpReport?: number[];
  load?: LoadResult & { p50: number; p99: number };
  recycled?: MemoryCurve;
  notRecycled?: MemoryCurve;
}

const log = (msg: string) => console.log(msg);
const newestInvoice = (n: number) => validateDocument(invoiceDocument(n)).document!;

/** The issue's 30-page report (10 paragraphs a chapter), with its own title so Typst cannot answer from its cache of the previous render. */
function distinctReport(i: number): Record<string, unknown> {
  const doc = reportDocument({ paragraphs: 10 }) as { document: Record<string, unknown> };
  doc.document.title = `Rendering report #${i}`;
  return doc;
}

function renderInput(document: DocumentJson): WorkerInput<RenderParams> {
  return { params: { document: document as unknown as RenderParams['document'], pdfProfile: 'standard', createdAt: new Date().toISOString() }, files: [], settings: {} };
}

async function timed(fn: () => Promise<WorkerOutput>): Promise<{ ms: number; out: WorkerOutput }> {
  const started = performance.now();
  const out = await fn();
  return { ms: performance.now() - started, out };
}

async function inProcess(f: Figures): Promise<void> {
  // The manifest sets FONTCONFIG_FILE; it must load before the worker module (and the Typst addon).
  await import('../plugins/render-pdf/manifest.js');
  const { renderPdf } = await import('../plugins/render-pdf/worker.js');
  await new Promise((r) => setImmediate(r)); // the worker's own warm-up compile
  if (ONLY.has('inprocess')) {
    const docs = Array.from({ length: N.invoiceWarmup + N.invoices }, (_, i) => i + 1);
    const validateMs: number[] = [];
    const times: number[] = [];
    const cpu: number[] = [];
    let last: WorkerOutput = {};
    for (const n of docs) {
      const v0 = performance.now();
      const doc = newestInvoice(n);
      validateMs.push(performance.now() - v0);
      // CPU time as well as wall time: on a shared machine it is the steadier figure.
      const cpu0 = process.cpuUsage();
      const { ms, out } = await timed(() => renderPdf(renderInput(doc)));
      const used = process.cpuUsage(cpu0);
      if (n > N.invoiceWarmup) {
        times.push(ms);
        cpu.push((used.user + used.system) / 1000);
      }
      last = out;
    }
    f.invoice = { ...spread(times), validateP50: percentile(validateMs, 50), cpuMs: percentile(cpu, 50), kb: last.file!.bytes.byteLength / 1024, pages: Number(last.result?.pageCount) };
    log(`1. in-process invoice: p50 ${fmt(f.invoice.p50, 2)} ms, p90 ${fmt(f.invoice.p90, 2)}, p99 ${fmt(f.invoice.p99, 2)} over ${times.length} distinct invoices (${f.invoice.pages} page, ${fmt(f.invoice.kb)} KB); CPU p50 ${fmt(f.invoice.cpuMs, 2)} ms; validateDocument p50 ${fmt(f.invoice.validateP50, 2)} ms (not included)`);
  }
  if (ONLY.has('report')) {
    const times: number[] = [];
    let last: WorkerOutput = {};
    for (let i = 0; i < N.reports + 2; i++) {
      const doc = validateDocument(distinctReport(i)).document!;
      const { ms, out } = await timed(() => renderPdf(renderInput(doc)));
      if (i >= 2) times.push(ms);
      last = out;
    }
    f.report = { ...spread(times), pages: Number(last.result?.pageCount), kb: last.file!.bytes.byteLength / 1024 };
    log(`4. in-process report: p50 ${fmt(f.report.p50)} ms, p99 ${fmt(f.report.p99)} over ${times.length} renders (${f.report.pages} pages, ${fmt(f.report.kb)} KB)`);
  }
}

async function chromium(f: Figures): Promise<void> {
  let peer: PeerResult | null = null;
  try {
    peer = await chromiumPeer(N.chromium, 10);
  } catch (err) {
    log(`5. Chromium peer failed to run, skipped: ${(err as Error).message.split('\n')[0]}`);
    f.chromium = null;
    return;
  }
  if (!peer) {
    log(`5. Chromium peer skipped: ${CHROMIUM} is not installed (apt-get install -y chromium, or npm run setup as root).`);
    f.chromium = null;
    return;
  }
  f.chromium = { ...spread(peer.times), version: peer.version, kb: peer.bytes / 1024 };
  log(`5. Chromium (${peer.version}) setContent + pdf: p50 ${fmt(f.chromium.p50, 2)} ms, p99 ${fmt(f.chromium.p99, 2)} over ${peer.times.length} (${fmt(f.chromium.kb)} KB)`);
}

async function overHttp(f: Figures): Promise<void> {
  const server = await startServer();
  try {
    if (ONLY.has('http')) {
      const client = new JsonClient(server.baseUrl, 1);
      const times: number[] = [];
      const creates: number[] = [];
      const serverSide: number[] = [];
      let polls = 0;
      for (let i = 0; i < 20 + N.http; i++) {
        const t = await renderOverHttp(client, invoiceDocument(3_000_000 + i), POLL_MS);
        if (!t.ok) throw new Error(`render over HTTP failed: ${t.error}`);
        if (i < 20) continue;
        times.push(t.ms);
        creates.push(t.createMs);
        serverSide.push(t.serverMs ?? Number.NaN);
        polls += t.polls;
      }
      client.close();
      f.http = { ...spread(times), createP50: percentile(creates, 50), serverP50: percentile(serverSide, 50), pollsPerRender: polls / times.length };
      log(`2. HTTP POST /render → COMPLETED, one client, ${POLL_MS ? `poll every ${POLL_MS} ms` : 'GET ?waitMs='}: p50 ${fmt(f.http.p50, 2)} ms, p90 ${fmt(f.http.p90, 2)}, p99 ${fmt(f.http.p99, 2)}; POST alone p50 ${fmt(f.http.createP50, 2)} ms; job createdAt → completedAt p50 ${fmt(f.http.serverP50, 0)} ms; ${fmt(f.http.pollsPerRender)} GETs a render`);
    }
    if (ONLY.has('load')) {
      const load = await loadLoop(server.baseUrl, (i) => invoiceDocument(4_000_000 + i), { clients: N.clients, seconds: N.loadSeconds, warmupS: N.loadWarmupS, pollMs: LOAD_POLL_MS, serverPid: server.pid });
      f.load = { ...load, p50: percentile(load.latencies, 50), p99: percentile(load.latencies, 99) };
      if (values.timeline) log(timeline(load.endedAt, load.latencies, 200));
      const perRender = (cpuS: number | null) => (cpuS === null || !load.completed ? null : (cpuS * 1000) / load.completed);
      log(`3. load, ${N.clients} clients × ${N.loadSeconds} s, ${LOAD_POLL_MS ? `poll every ${LOAD_POLL_MS} ms` : 'GET ?waitMs='}: ${fmt(f.load.rendersPerSecond)} renders/s, p50 ${fmt(f.load.p50)} ms, p99 ${fmt(f.load.p99)} ms, ${load.errors} errors${load.firstErrors.length ? ` (${load.firstErrors.join('; ')})` : ''}; ${fmt(load.polls / Math.max(1, load.completed))} GETs a render`);
      log(`   CPU in the window: server ${fmt(load.serverCpuS === null ? null : load.serverCpuS / N.loadSeconds, 2)} cores (${fmt(perRender(load.serverCpuS))} ms a render), bench client ${fmt(load.clientCpuS / N.loadSeconds, 2)} cores (${fmt(perRender(load.clientCpuS))} ms a render); load average ${loadAverage()}`);
    }
    if (ONLY.has('report')) {
      const client = new JsonClient(server.baseUrl, 1);
      f.httpReport = [];
      for (let i = 0; i < N.httpReports; i++) {
        const t = await renderOverHttp(client, distinctReport(100 + i), POLL_MS);
        if (!t.ok) throw new Error(`report over HTTP failed: ${t.error}`);
        f.httpReport.push(t.ms);
      }
      client.close();
      log(`4. report over HTTP: ${f.httpReport.map((ms) => fmt(ms)).join(', ')} ms`);
    }
  } finally {
    await server.stop();
  }
}

function printCurve(label: string): (s: MemorySample) => void {
  return (s) => log(`   ${label} ${String(s.renders).padStart(6)} renders  RSS ${fmt(s.rssMb, 0).padStart(5)} MB  (peak ${fmt(s.peakMb, 0).padStart(5)} MB)  ${fmt(s.seconds, 0).padStart(4)} s  recycled ${s.recycled}×`);
}

/**
 * RSS range once the warm-up is behind: by default the first 10 % of the renders (at least one sample
 * step), in which thread starts and the first recycles grow the allocator's arenas to their working size.
 */
function rssSpread(curve: MemoryCurve, warmup = Math.max(N.every, Math.round(curve.planned / 10))): { min: number; max: number; range: number; peak: number; warmup: number } {
  const after = curve.samples.filter((s) => s.renders >= warmup);
  const rss = after.map((s) => s.rssMb);
  const min = Math.min(...rss);
  const max = Math.max(...rss);
  return { min, max, range: max - min, peak: Math.max(...after.map((s) => s.peakMb)), warmup };
}

async function memory(f: Figures, recycleAfter: number): Promise<void> {
  log(`6. memory: ${N.memory} invoices through one pool, recycleAfter ${recycleAfter} (manifest), RSS of a process holding only the pool:`);
  f.recycled = await memoryCurveInChild(N.memory, recycleAfter, N.every, Number(values['ceiling-mb']), printCurve('recycle   '));
  log(`   the same without recycling (recycleAfter 0), ${N.noRecycle} invoices:`);
  f.notRecycled = await memoryCurveInChild(N.noRecycle, 0, N.every, Number(values['ceiling-mb']), printCurve('no recycle'));
}

/** `<second>: <completions>/<worst ms>` per bucket of `bucketMs`, a `!` where the worst passed the p99 target. */
function timeline(endedAt: number[], latencies: number[], bucketMs: number): string {
  const buckets: Array<{ n: number; worst: number }> = [];
  endedAt.forEach((t, i) => {
    const b = (buckets[Math.floor(t / bucketMs)] ??= { n: 0, worst: 0 });
    b.n++;
    b.worst = Math.max(b.worst, latencies[i]!);
  });
  const cells = [...buckets.entries()].map(([i, b]) => `${((i * bucketMs) / 1000).toFixed(1)}:${b?.n ?? 0}/${Math.round(b?.worst ?? 0)}${(b?.worst ?? 0) > 250 ? '!' : ''}`);
  return `   timeline (s:completions/worst ms per ${bucketMs} ms): ${cells.join(' ')}`;
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');

const verdict = (ok: boolean | null) => (ok === null ? '' : ok ? 'PASS' : 'MISS');

function summary(f: Figures): void {
  const c = f.chromium ?? null;
  const rows: string[][] = [];
  const row = (what: string, quire: string, peer: string, target: string, ok: boolean | null) => rows.push([what, quire, peer, target, verdict(ok)]);
  if (f.invoice) {
    row('1. invoice in-process p50 ms', fmt(f.invoice.p50, 2), c ? fmt(c.p50, 2) : 'skipped', '≤ 5', f.invoice.p50 <= 5);
    row('   invoice in-process CPU p50 ms', fmt(f.invoice.cpuMs, 2), '', '', null);
    row('   invoice in-process p90 / p99 ms', `${fmt(f.invoice.p90, 2)} / ${fmt(f.invoice.p99, 2)}`, c ? `${fmt(c.p90, 2)} / ${fmt(c.p99, 2)}` : 'skipped', '', null);
    if (c) row('   ratio Quire / Chromium (p50)', fmt(f.invoice.p50 / c.p50, 2), '1.00', '< 1 is faster', null);
  }
  if (f.http) row('2. HTTP render → COMPLETED p50 ms', fmt(f.http.p50, 2), '', '≤ 20', f.http.p50 <= 20);
  if (f.http) row('   HTTP p99 ms', fmt(f.http.p99, 2), '', '', null);
  if (f.http) row('   HTTP job createdAt → completedAt p50 ms', fmt(f.http.serverP50, 0), '', '', null);
  if (f.load) {
    row(`3. ${N.clients} clients: renders/s`, fmt(f.load.rendersPerSecond), '', '≥ 200', f.load.rendersPerSecond >= 200);
    row(`   ${N.clients} clients: p99 ms`, fmt(f.load.p99), '', '≤ 250', f.load.p99 <= 250);
    row(`   ${N.clients} clients: errors`, String(f.load.errors), '', '0', f.load.errors === 0);
    if (f.load.serverCpuS !== null && f.load.completed) {
      const cpuMs = (f.load.serverCpuS * 1000) / f.load.completed;
      row(`   server CPU a render ms (→ renders/s if it had all ${os.cpus().length} cores)`, `${fmt(cpuMs)} (→ ${fmt((os.cpus().length * 1000) / cpuMs, 0)})`, '', '', null);
    }
  }
  if (f.report) row(`4. report (${f.report.pages} pages) in-process p50 ms`, fmt(f.report.p50), '', '≤ 250', f.report.p50 <= 250);
  if (f.httpReport) row('   report over HTTP ms (median)', fmt(percentile(f.httpReport, 50)), '', '', null);
  if (f.recycled) {
    const s = rssSpread(f.recycled);
    const early = rssSpread(f.recycled, N.every);
    row(`6. RSS range from render ${s.warmup} to ${f.recycled.samples.at(-1)!.renders}, recycling (MB)`, `${fmt(s.range, 0)} (${fmt(s.min, 0)}–${fmt(s.max, 0)})`, '', '< 100', s.range < 100 && f.recycled.errors === 0);
    row(`   same from render ${early.warmup} (MB)`, `${fmt(early.range, 0)} (${fmt(early.min, 0)}–${fmt(early.max, 0)})`, '', '', null);
  }
  if (f.notRecycled) {
    const s = rssSpread(f.notRecycled);
    row(`   without recycling, from render ${s.warmup} to ${f.notRecycled.samples.at(-1)!.renders} (MB)`, `${fmt(s.range, 0)} (${fmt(s.min, 0)}–${fmt(s.max, 0)})${f.notRecycled.stopped ? `, stopped: ${f.notRecycled.stopped}` : ''}`, '', '', null);
  }
  log(`\nSummary — ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${QUICK ? 'quick' : 'full'} run, load average now ${loadAverage()}. Chromium column: ${c ? `${c.version}, one page kept open, setContent + pdf` : 'peer skipped'}.`);
  log(table(['measure', 'Quire', 'Chromium', 'target', 'verdict'], rows));
}

async function main(): Promise<void> {
  if (values['memory-child']) {
    const curve = await memoryCurve(Number(values.renders), Number(values['recycle-after']), Number(values.every), Number(values['ceiling-mb']), (sample) => process.stdout.write(`${JSON.stringify({ sample })}\n`));
    process.stdout.write(`${JSON.stringify({ curve })}\n`);
    return;
  }
  if (await rerunWithAllocator(fileURLToPath(import.meta.url))) return;
  log(`render.pdf benchmark (${QUICK ? 'quick' : 'full'}); figures are wall time in ms unless marked CPU; client, server and peer share this machine's ${os.cpus().length} cores.`);
  log(`allocator: ${allocatorInUse()} (the server's and this process's, as npm start gives it; QUIRE_ALLOCATOR=system for glibc's malloc)`);
  log(`load average at start (1/5/15 min): ${loadAverage()} — anything above 0 is other work competing for the same cores.\n`);
  const f: Figures = {};
  if (ONLY.has('inprocess') || ONLY.has('report')) await inProcess(f);
  if (ONLY.has('chromium')) await chromium(f);
  if (ONLY.has('http') || ONLY.has('load') || ONLY.has('report')) await overHttp(f);
  if (ONLY.has('memory')) {
    const { default: def } = (await import('../plugins/render-pdf/manifest.js')) as { default: { manifest: { pool: { recycleAfter?: number } } } };
    await memory(f, def.manifest.pool.recycleAfter ?? 0);
  }
  summary(f);
}

main().catch((err) => {
  // A benchmark reports; it never fails the build.
  console.error(`benchmark could not finish: ${(err as Error).stack ?? err}`);
  process.exitCode = 0;
});
