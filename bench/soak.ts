// The soak benchmark (`npm run bench:soak`): clients cycle through a mix of operations against one server as npm start
// runs it — PDF, DOCX and PNG renders, Markdown renders, PDF split and watermark, Lens OCR of a scanned page — for a
// few minutes (`--minutes=4`, `--minutes=60` for the long run). Every 10 s the RSS of the server and of its child
// processes (LibreOffice, Chromium) is sampled; throughput and errors are counted per kind; after the load the server
// idles (`--idle-seconds=120`) and is sampled on. `--svg=<file>` draws the RSS curve. The targets of issue 28: at most
// 0.8 GB with 8 clients, the last quarter of the load at most 1.1× the second, back to 0.3 GB within 2 minutes idle.
// `--breakdown=20` runs each kind alone for 20 s in turn instead of the mix: the memory each kind's pools add.
import { readFileSync, writeFileSync } from 'node:fs';
import { processTree } from '../engines/process/tree.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { JsonClient, startServer, type BenchServer } from './render-http.js';
import { invoiceDocument } from '../test/fixtures/documents.js';
import { fmt, table } from './stats.js';

const API = '/api/v1/dev';
const API_KEY = 'ak_BenchOwnerKey0123456789abcdefghijklmnopqrstuvwxyzAB';

function arg(name: string, fallback: number): number;
function arg(name: string, fallback: string | undefined): string | undefined;
function arg(name: string, fallback: number | string | undefined): number | string | undefined {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  if (given === undefined) return fallback;
  return typeof fallback === 'number' ? Number(given) : given;
}

const minutes = arg('minutes', 4);
const clients = arg('clients', 8);
const idleSeconds = arg('idle-seconds', 120);
const svgFile = arg('svg', undefined);
/** Seconds per operation for the breakdown (`--breakdown=20`): each kind alone, in turn, instead of the mix. */
const breakdown = arg('breakdown', 0);
const SAMPLE_MS = 10_000;
/** How often the server's RSS is read for the peak. */
const PEAK_MS = 200;
/** The server's metrics token: each sample also reads the threads of every pool from GET /metrics. */
const METRICS_TOKEN = 'soak-metrics-token-0123456789abcdefghijklmnopqrstuvwxyz';

/** Live threads of each plugin's pool (busy + idle), the thread limit and the tasks waiting for a slot, from /metrics. */
async function poolThreads(server: BenchServer): Promise<{ byPlugin: Map<string, number>; limit: number; waiting: number }> {
  const byPlugin = new Map<string, number>();
  let limit = NaN;
  let waiting = NaN;
  try {
    const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    for (const line of text.split('\n')) {
      const pool = /^quire_pool_threads\{plugin="([^"]+)",state="\w+"\} (\S+)$/.exec(line);
      if (pool) byPlugin.set(pool[1]!, (byPlugin.get(pool[1]!) ?? 0) + Number(pool[2]));
      const l = /^quire_worker_thread_limit (\S+)$/.exec(line);
      if (l) limit = Number(l[1]);
      const w = /^quire_worker_thread_waiting (\S+)$/.exec(line);
      if (w) waiting = Number(w[1]);
    }
  } catch {
    // A sample without threads (the server is busy stopping): the RSS still counts.
  }
  return { byPlugin, limit, waiting };
}

/** RSS in MB of a process (VmRSS), 0 when it is gone. */
function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

interface Sample {
  seconds: number;
  phase: 'load' | 'idle';
  serverMb: number;
  childrenMb: number;
  operations: number;
  /** Live plugin threads, all pools. */
  threads: number;
}

interface Kind {
  name: string;
  run(client: JsonClient, n: number): Promise<void>;
  done: number;
  errors: number;
  firstError?: string;
}

async function upload(server: BenchServer, bytes: Buffer, name: string, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${server.baseUrl}${API}/tools/files/upload`, { method: 'POST', headers: { 'X-API-Key': API_KEY }, body: form });
  const body = (await res.json()) as { id?: string };
  if (!body.id) throw new Error(`upload of ${name}: ${JSON.stringify(body)}`);
  return body.id;
}

/** Creates a job, waits for its end through the long poll, and downloads its output (if it has one); throws unless it completed. */
async function job(client: JsonClient, create: string, body: unknown, status: (id: string) => string): Promise<Buffer> {
  const created = await client.request('POST', create, body);
  const id = (created.body.jobId ?? created.body.id) as string | undefined;
  if (created.status !== 202 || !id) throw new Error(`${create}: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
  for (;;) {
    const s = await client.request('GET', `${status(id)}?waitMs=20000`);
    if (s.body.status === 'FAILED') throw new Error(`${create}: ${String(s.body.error)}`);
    if (s.body.status === 'COMPLETED') {
      // Lens answers in the job's result, without a file.
      if (!s.body.downloadUrl) return Buffer.from(JSON.stringify(s.body.result ?? {}));
      const url = new URL(String(s.body.downloadUrl));
      const dl = await client.bytes('GET', url.pathname + url.search);
      if (dl.status !== 200) throw new Error(`${create}: download ${dl.status}`);
      return dl.bytes;
    }
  }
}

const renderStatus = (id: string) => `${API}/render/${id}`;
const toolsStatus = (id: string) => `${API}/tools/jobs/${id}`;

function withType(n: number, type: 'pdf' | 'docx'): Record<string, unknown> {
  const doc = invoiceDocument(n) as { document: Record<string, unknown> };
  doc.document.type = type;
  return doc;
}

const MARKDOWN = (n: number) => `# Report ${n}\n\nA paragraph with **bold**, *italic* and \`code\`.\n\n| a | b |\n|---|---|\n| ${n} | ${n * 2} |\n\n- one\n- two\n`;

/** The operations of the mix, with their inputs made on `server` first. */
async function mixOf(server: BenchServer, client: JsonClient): Promise<Kind[]> {
  // Inputs of the tools: a rendered invoice (PDF) and a scan of it (a page image Lens must OCR).
  const invoicePdf = await job(client, `${API}/render`, { config: withType(1, 'pdf') }, renderStatus);
  const scan = await job(client, `${API}/render/images`, { config: withType(2, 'pdf'), image: { format: 'png', dpi: 150, pages: ['1'] } }, renderStatus);
  const pdfId = await upload(server, invoicePdf, 'invoice.pdf', 'application/pdf');
  // A scanned page: the page image in a PDF of its own (no text layer), which Lens reads with OCR.
  const scanPdf = await job(client, `${API}/tools/convert/image-to-pdf`, { fileIds: [await upload(server, scan, 'scan.png', 'image/png')] }, toolsStatus);
  const scanId = await upload(server, scanPdf, 'scan.pdf', 'application/pdf');
  return [
    { name: 'render PDF', run: (c, n) => job(c, `${API}/render`, { config: withType(n, 'pdf') }, renderStatus).then(() => undefined), done: 0, errors: 0 },
    { name: 'render DOCX', run: (c, n) => job(c, `${API}/render`, { config: withType(n, 'docx') }, renderStatus).then(() => undefined), done: 0, errors: 0 },
    { name: 'render PNG', run: (c, n) => job(c, `${API}/render/images`, { config: withType(n, 'pdf'), image: { format: 'png', dpi: 96, pages: ['1'] } }, renderStatus).then(() => undefined), done: 0, errors: 0 },
    { name: 'render Markdown', run: (c, n) => job(c, `${API}/render/markdown`, { content: MARKDOWN(n) }, renderStatus).then(() => undefined), done: 0, errors: 0 },
    { name: 'PDF split', run: (c) => job(c, `${API}/tools/pdf/split`, { fileId: pdfId, ranges: ['1'] }, toolsStatus).then(() => undefined), done: 0, errors: 0 },
    { name: 'PDF watermark', run: (c, n) => job(c, `${API}/tools/pdf/watermark`, { fileId: pdfId, text: `SOAK ${n}` }, toolsStatus).then(() => undefined), done: 0, errors: 0 },
    { name: 'Lens OCR (scan)', run: (c) => job(c, `${API}/tools/lens/ocr`, { fileId: scanId, outputFormat: 'md' }, toolsStatus).then(() => undefined), done: 0, errors: 0 },
  ];
}

async function main(): Promise<void> {
  const server = await startServer({ QUIRE_METRICS_TOKEN: METRICS_TOKEN });
  const client = new JsonClient(server.baseUrl, clients * 2);
  const atRest = await poolThreads(server);
  console.log(`after boot: ${fmt(rssOf(server).serverMb, 0)} MB, threads ${[...atRest.byPlugin].filter(([, n]) => n).map(([p, n]) => `${p} ${n}`).join(', ') || 'none'} (limit ${atRest.limit})`);
  const kinds = await mixOf(server, client);
  if (breakdown > 0) return perKind(server, client, kinds);

  const samples: Sample[] = [];
  /** Per pool under load: the most threads seen at a sample, and their sum over the samples (for the mean). */
  const pools = new Map<string, { most: number; sum: number }>();
  let loadSamples = 0;
  let mostWaiting = 0;
  const t0 = Date.now();
  let operations = 0;
  const sample = async (phase: Sample['phase']) => {
    const seconds = Math.round((Date.now() - t0) / 1000);
    const { serverMb, childrenMb } = rssOf(server);
    const threads = await poolThreads(server);
    if (phase === 'load') {
      loadSamples++;
      mostWaiting = Math.max(mostWaiting, threads.waiting || 0);
      for (const [plugin, n] of threads.byPlugin) {
        const p = pools.get(plugin) ?? { most: 0, sum: 0 };
        p.most = Math.max(p.most, n);
        p.sum += n;
        pools.set(plugin, p);
      }
    }
    const live = [...threads.byPlugin.values()].reduce((a, b) => a + b, 0);
    const s: Sample = { seconds, phase, serverMb, childrenMb, operations, threads: live };
    samples.push(s);
    process.stdout.write(`${String(s.seconds).padStart(5)} s  ${phase.padEnd(4)}  server ${fmt(s.serverMb, 0).padStart(5)} MB  children ${fmt(s.childrenMb, 0).padStart(5)} MB  threads ${String(live).padStart(2)}  operations ${s.operations}\n`);
  };
  await sample('load');
  const sampler = setInterval(() => void sample('load'), SAMPLE_MS);
  // The 10 s samples miss most peaks (a scan's detection lasts a fraction of a second): the server's RSS is also read
  // every PEAK_MS (one /proc read), with the children's from the last sample, and the highest is reported apart.
  let finePeak = { mb: 0, seconds: 0 };
  const peakWatch = setInterval(() => {
    const mb = rssMb(server.pid) + (samples[samples.length - 1]?.childrenMb ?? 0);
    if (mb > finePeak.mb) finePeak = { mb, seconds: Math.round((Date.now() - t0) / 1000) };
  }, PEAK_MS);
  const end = t0 + minutes * 60_000;
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, lane) => {
      // Each client walks the kinds in its own order, so that every kind runs beside every other.
      for (let i = lane; Date.now() < end; i++) {
        const kind = kinds[i % kinds.length]!;
        try {
          await kind.run(client, 10_000 + next++);
          kind.done++;
        } catch (err) {
          kind.errors++;
          kind.firstError ??= (err as Error).message.slice(0, 160);
        }
        operations++;
      }
    }),
  );
  clearInterval(sampler);
  clearInterval(peakWatch);
  await sample('load');
  const loadEnd = Date.now();
  while (Date.now() - loadEnd < idleSeconds * 1000) {
    await sleep(SAMPLE_MS);
    await sample('idle');
  }
  await server.stop();

  const seconds = (loadEnd - t0) / 1000;
  console.log(`\n${clients} clients, ${fmt(seconds / 60, 1)} min of load, ${operations} operations (${fmt(operations / seconds, 1)}/s)\n`);
  console.log(table(['operation', 'done', 'per s', 'errors', 'first error'], kinds.map((k) => [k.name, String(k.done), fmt(k.done / seconds, 2), String(k.errors), k.firstError ?? ''])));
  const load = samples.filter((s) => s.phase === 'load');
  const total = (s: Sample) => s.serverMb + s.childrenMb;
  const quarter = (q: number) => {
    const part = load.filter((s) => s.seconds >= (q * seconds) / 4 && s.seconds <= ((q + 1) * seconds) / 4);
    return part.length ? part.reduce((sum, s) => sum + total(s), 0) / part.length : NaN;
  };
  const idle = samples.filter((s) => s.phase === 'idle');
  const firstLow = idle.find((s) => total(s) <= 300);
  console.log(
    `\nRSS, server + children: peak ${fmt(Math.max(...load.map(total)), 0)} MB at the ${SAMPLE_MS / 1000} s samples, ` +
      `${fmt(Math.max(finePeak.mb, ...load.map(total)), 0)} MB read every ${PEAK_MS} ms (at ${finePeak.seconds} s) under load (target ≤ 800); mean of the second quarter ${fmt(quarter(1), 0)} MB, ` +
      `of the last ${fmt(quarter(3), 0)} MB (ratio ${fmt(quarter(3) / quarter(1), 2)}, target ≤ 1.10); ` +
      `idle: ${idle.length ? `${fmt(total(idle[idle.length - 1]!), 0)} MB after ${idle[idle.length - 1]!.seconds - Math.round((loadEnd - t0) / 1000)} s` : 'not measured'}` +
      `${firstLow ? `, ≤ 300 MB ${firstLow.seconds - Math.round((loadEnd - t0) / 1000)} s after the load` : ', never ≤ 300 MB (target: within 120 s)'}.`,
  );
  console.log(`\nThreads per pool under load (GET /metrics every ${SAMPLE_MS / 1000} s; limit ${atRest.limit}, at most ${mostWaiting} tasks waiting for a slot at a sample):\n`);
  console.log(table(['pool', 'most', 'mean'], [...pools].filter(([, p]) => p.most > 0).map(([plugin, p]) => [plugin, String(p.most), fmt(p.sum / Math.max(1, loadSamples), 1)])));
  console.log(`most live threads at a sample: ${Math.max(...load.map((s) => s.threads))}`);
  if (svgFile) writeFileSync(svgFile, plot(samples, seconds));
}

/** RSS of the server and of its children, in MB. */
function rssOf(server: BenchServer): { serverMb: number; childrenMb: number } {
  return { serverMb: rssMb(server.pid), childrenMb: processTree(server.pid).slice(1).reduce((sum, p) => sum + rssMb(p), 0) };
}

/**
 * Where the memory goes: each kind alone with `clients` clients for `breakdown` seconds, in turn, the RSS sampled every
 * second; a kind's pools stay up while the next runs (idle threads exit after 30 s), so the rise a kind adds over the
 * plateau before it is what its threads and engines take; then the idle phase shows what comes back.
 */
async function perKind(server: BenchServer, client: JsonClient, kinds: Kind[]): Promise<void> {
  const total = () => {
    const r = rssOf(server);
    return r.serverMb + r.childrenMb;
  };
  const rows: string[][] = [];
  let before = total();
  console.log(`start: ${fmt(before, 0)} MB`);
  for (const kind of kinds) {
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, total())), 1000);
    const end = Date.now() + breakdown * 1000;
    let n = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (Date.now() < end) {
          try {
            await kind.run(client, 20_000 + n++);
            kind.done++;
          } catch (err) {
            kind.errors++;
            kind.firstError ??= (err as Error).message.slice(0, 160);
          }
        }
      }),
    );
    clearInterval(sampler);
    const after = total();
    peak = Math.max(peak, after);
    rows.push([kind.name, String(kind.done), fmt(before, 0), fmt(peak, 0), fmt(after, 0), fmt(after - before, 0)]);
    console.log(`${kind.name}: ${kind.done} done, ${kind.errors} errors, ${fmt(before, 0)} → peak ${fmt(peak, 0)} → ${fmt(after, 0)} MB`);
    before = after;
  }
  const idle: string[] = [];
  for (let s = 10; s <= idleSeconds; s += 10) {
    await sleep(10_000);
    if (s % 30 === 0 || s === idleSeconds) idle.push(`${s} s: ${fmt(total(), 0)} MB`);
  }
  await server.stop();
  console.log(`\n${clients} clients per kind, ${breakdown} s each (server + children RSS, MB)\n`);
  console.log(table(['operation', 'done', 'before', 'peak', 'after', 'added'], rows));
  console.log(`\nidle: ${idle.join(', ')}`);
}

/** The RSS curve as an SVG line chart: server, and server + children, over time; the load's end marked. */
function plot(samples: Sample[], loadSeconds: number): string {
  const W = 720;
  const H = 300;
  const pad = 48;
  const maxT = Math.max(...samples.map((s) => s.seconds), 1);
  const maxMb = Math.max(1000, ...samples.map((s) => s.serverMb + s.childrenMb));
  const x = (t: number) => pad + ((W - 2 * pad) * t) / maxT;
  const y = (mb: number) => H - pad - ((H - 2 * pad) * mb) / maxMb;
  const line = (f: (s: Sample) => number) => samples.map((s) => `${x(s.seconds).toFixed(1)},${y(f(s)).toFixed(1)}`).join(' ');
  const ticks = [0, 250, 500, 750, 1000].filter((v) => v <= maxMb);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="white"/>
${ticks.map((v) => `<line x1="${pad}" x2="${W - pad}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${pad - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`).join('\n')}
<line x1="${x(loadSeconds)}" x2="${x(loadSeconds)}" y1="${pad}" y2="${H - pad}" stroke="#999" stroke-dasharray="4 3"/><text x="${x(loadSeconds) + 4}" y="${pad + 10}">load ends</text>
<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="${line((s) => s.serverMb + s.childrenMb)}"/>
<polyline fill="none" stroke="#ff7f0e" stroke-width="2" points="${line((s) => s.serverMb)}"/>
<text x="${pad}" y="${pad - 20}">RSS (MB) — blue: server + LibreOffice + Chromium; orange: server alone</text>
<text x="${W / 2}" y="${H - 12}" text-anchor="middle">seconds</text>
</svg>
`;
}

await main();
