// Times issue 20's saved documents on a started server: one 100-item bulk render beside 100 single renders of the same saved invoice, and GET/PATCH of a 30-page document's Markdown beside parsing alone; never fails a build.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import yauzl from 'yauzl';
import { serializeMarkdown } from '../document/markdown/index.js';
import { invoiceDocument } from '../test/fixtures/documents.js';
import { thirtyPageDocument } from './thirty-page-document.js';
import { cpuSecondsOf, JsonClient, startServer } from './render-http.js';
import { fmt, percentile, table } from './stats.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', default: 'bulk,markdown' },
    rounds: { type: 'string' },
    items: { type: 'string', default: '100' },
    // Single renders in flight at once, as a client with a connection pool would send them.
    pool: { type: 'string', default: '12' },
    requests: { type: 'string' },
  },
});
const QUICK = values.quick;
const ONLY = new Set(values.only.split(','));
const ROUNDS = Number(values.rounds ?? (QUICK ? 2 : 5));
const ITEMS = Number(values.items);
const POOL = Number(values.pool);
const REQUESTS = Number(values.requests ?? (QUICK ? 15 : 50));
const BULK_POLL_MS = 20;
const API = '/api/v1/dev';

const log = (msg: string) => console.log(msg);
const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');
const median = (xs: number[]) => percentile(xs, 50);
const min = (xs: number[]) => Math.min(...xs);

type Json = Record<string, unknown>;

function expect(status: number, wanted: number, what: string, body: unknown): void {
  if (status !== wanted) throw new Error(`${what} answered ${status}: ${JSON.stringify(body).slice(0, 400)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Bulk against singles

const CUSTOMERS = ['ACME Ltd', 'Globex Corporation', 'Initech', 'Umbrella plc', 'Stark Industries', 'Wayne Enterprises', 'Hooli', 'Vandelay Industries', 'Soylent Ltd', 'Tyrell Corp', 'Cyberdyne Systems'];

/** The render benchmarks' one-page invoice, its total a variable so that each item's total differs. */
function savedInvoice(): Json {
  const invoice = invoiceDocument(1) as { sections: Array<{ content: Json[] }>; variables: Json };
  const totals = invoice.sections[0]!.content[4] as { rows: string[][] };
  totals.rows[2]![1] = '**{{total}}**';
  invoice.variables.total = '3,187.72';
  return invoice;
}

/** Item `i` of round `round`: another invoice number, customer, dates and total (and its own file name in the ZIP). */
function itemVariables(round: number, i: number): Json {
  const n = round * 1000 + i + 1;
  const day = String(1 + (i % 28)).padStart(2, '0');
  return {
    number: `INV-${String(n).padStart(6, '0')}`,
    customer: `${CUSTOMERS[i % CUSTOMERS.length]} (account ${n})`,
    date: `2026-11-${day}`,
    due: `2026-12-${day}`,
    total: (1000 + ((n * 37.31) % 9000)).toFixed(2),
    filename: `invoice-${n}`,
  };
}

/** The entries of a ZIP, read with yauzl (an independent reader): names and whether each is a PDF. */
function zipEntries(bytes: Buffer): Promise<Array<{ name: string; pdf: boolean }>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const entries: Array<{ name: string; pdf: boolean }> = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            entries.push({ name: entry.fileName, pdf: Buffer.concat(chunks).subarray(0, 5).toString('latin1') === '%PDF-' });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

interface BulkTiming {
  ms: number;
  /** POST → COMPLETED seen (the rest is the ZIP download). */
  completedMs: number;
  /** The bulk job's createdAt → completedAt (server clock). */
  serverMs: number;
  polls: number;
  zipKb: number;
}

/** POST /bulk-render, GET it every 20 ms (it has no long-poll) until COMPLETED, then the whole ZIP. */
async function bulkOnce(client: JsonClient, documentId: string, round: number): Promise<BulkTiming> {
  const items = Array.from({ length: ITEMS }, (_, i) => itemVariables(round, i));
  const t0 = performance.now();
  const created = await client.request('POST', `${API}/bulk-render`, { documentId, items });
  expect(created.status, 202, 'POST /bulk-render', created.body);
  const id = String(created.body.bulkJobId);
  let polls = 0;
  let status: Json;
  for (;;) {
    const reply = await client.request('GET', `${API}/bulk-render/${id}`);
    polls++;
    expect(reply.status, 200, 'GET /bulk-render/{id}', reply.body);
    status = reply.body;
    if (status.status === 'COMPLETED') break;
    if (status.status === 'FAILED') throw new Error(`bulk render failed: ${String(status.error)}`);
    await sleep(BULK_POLL_MS);
  }
  const completedMs = performance.now() - t0;
  const zip = await client.bytes('GET', `${API}/bulk-render/${id}/download`);
  const ms = performance.now() - t0;
  expect(zip.status, 200, 'GET /bulk-render/{id}/download', zip.bytes.toString('utf8', 0, 300));
  const entries = await zipEntries(zip.bytes);
  if (entries.length !== ITEMS || !entries.every((e) => e.pdf)) throw new Error(`the ZIP holds ${entries.length} entries, ${entries.filter((e) => e.pdf).length} of them PDFs; ${ITEMS} PDFs expected`);
  return { ms, completedMs, polls, zipKb: zip.bytes.length / 1024, serverMs: Date.parse(String(status.completedAt)) - Date.parse(String(status.createdAt)) };
}

/** The PDF of a render job, waited for with GET ?waitMs= (the server answers when the job ends) and downloaded whole. */
async function renderedPdf(client: JsonClient, jobId: string): Promise<Buffer> {
  for (;;) {
    const reply = await client.request('GET', `${API}/render/${jobId}?waitMs=30000`);
    expect(reply.status, 200, 'GET /render/{jobId}', reply.body);
    if (reply.body.status === 'COMPLETED') break;
    if (reply.body.status === 'FAILED') throw new Error(`render failed: ${String(reply.body.error)}`);
  }
  const pdf = await client.bytes('GET', `${API}/render/${jobId}/download`);
  expect(pdf.status, 200, 'GET /render/{jobId}/download', pdf.bytes.toString('utf8', 0, 300));
  if (pdf.bytes.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error(`render job ${jobId} did not give a PDF`);
  return pdf.bytes;
}

/**
 * The same `ITEMS` renders as single jobs, `POOL` in flight: each POSTed (by id, or inline with the whole config),
 * waited for with GET ?waitMs= and its PDF downloaded; wall time until the last download ended.
 */
async function singlesOnce(client: JsonClient, documentId: string, config: Json, round: number, inline: boolean): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < ITEMS) {
      const i = next++;
      const variables = itemVariables(round, i);
      const created = inline
        ? await client.request('POST', `${API}/render`, { config: { ...config, variables: { ...(config.variables as Json), ...variables } } })
        : await client.request('POST', `${API}/render/document/${documentId}`, { variables });
      expect(created.status, 202, inline ? 'POST /render' : 'POST /render/document/{id}', created.body);
      await renderedPdf(client, String(created.body.jobId));
    }
  };
  await Promise.all(Array.from({ length: POOL }, worker));
  return performance.now() - t0;
}

interface BulkFigures {
  bulk: BulkTiming[];
  byId: number[];
  inline: number[];
  /** CPU ms the server process (all its threads) used during each side's runs. */
  cpu: { bulk: number[]; byId: number[]; inline: number[] };
}

async function bulkAgainstSingles(): Promise<BulkFigures> {
  const server = await startServer();
  const client = new JsonClient(server.baseUrl, POOL + 2);
  try {
    const config = savedInvoice();
    const saved = await client.request('POST', `${API}/documents`, { name: 'Bench invoice', config });
    expect(saved.status, 201, 'POST /documents', saved.body);
    const documentId = String(saved.body.id);
    // Warm-up (not counted): thread pools started, Typst's fonts loaded, the JIT warm on every route used.
    await bulkOnce(client, documentId, 900);
    await singlesOnce(client, documentId, config, 901, false);
    await singlesOnce(client, documentId, config, 902, true);
    const f: BulkFigures = { bulk: [], byId: [], inline: [], cpu: { bulk: [], byId: [], inline: [] } };
    const withCpu = async <T>(cpu: number[], run: () => Promise<T>): Promise<T> => {
      const c0 = cpuSecondsOf(server.pid);
      const out = await run();
      const c1 = cpuSecondsOf(server.pid);
      cpu.push(c0 === null || c1 === null ? Number.NaN : (c1 - c0) * 1000);
      return out;
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating, the order turned each round, so that a slow spell of the shared machine falls on every side.
      const sides: Array<() => Promise<void>> = [
        async () => void f.bulk.push(await withCpu(f.cpu.bulk, () => bulkOnce(client, documentId, 3 * round))),
        async () => void f.byId.push(await withCpu(f.cpu.byId, () => singlesOnce(client, documentId, config, 3 * round + 1, false))),
        async () => void f.inline.push(await withCpu(f.cpu.inline, () => singlesOnce(client, documentId, config, 3 * round + 2, true))),
      ];
      if (round % 2) sides.reverse();
      for (const side of sides) await side();
      const b = f.bulk.at(-1)!;
      log(
        `   round ${round + 1}: bulk ${fmt(b.ms, 0)} ms (COMPLETED seen at ${fmt(b.completedMs, 0)}, server ${b.serverMs} ms, ${b.polls} polls, ZIP ${fmt(b.zipKb, 0)} KB, server CPU ${fmt(f.cpu.bulk.at(-1), 0)} ms); ` +
          `singles by id ${fmt(f.byId.at(-1)!, 0)} ms (CPU ${fmt(f.cpu.byId.at(-1), 0)}); singles inline ${fmt(f.inline.at(-1)!, 0)} ms (CPU ${fmt(f.cpu.inline.at(-1), 0)}); load ${loadAverage()}`,
      );
    }
    return f;
  } finally {
    client.close();
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Markdown of a 30-page document

/** Pages of a PDF by pdfinfo (poppler), an independent reader. */
function pdfPages(bytes: Buffer): number | null {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-bench-docs-'));
  try {
    const file = path.join(dir, 'out.pdf');
    writeFileSync(file, bytes);
    const out = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
    const m = /^Pages:\s+(\d+)/m.exec(out.stdout ?? '');
    return m ? Number(m[1]) : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timedRequest(client: JsonClient, method: 'GET' | 'POST' | 'PATCH', pathname: string, body: unknown, wanted: number): Promise<{ ms: number; body: Json }> {
  const t0 = performance.now();
  const reply = await client.request(method, pathname, body);
  const ms = performance.now() - t0;
  expect(reply.status, wanted, `${method} ${pathname}`, reply.body);
  return { ms, body: reply.body };
}

interface MarkdownFigures {
  bytes: number;
  words: number;
  pages: number | null;
  createMs: number;
  firstRead: number[];
  repeatRead: number[];
  patch: number[];
  /** Validation of a variant none of whose chunks were parsed before. */
  coldValidate: number[];
  validate: number[];
  format: string;
}

async function markdownReadWrite(): Promise<MarkdownFigures> {
  const source = serializeMarkdown(thirtyPageDocument());
  const server = await startServer();
  const client = new JsonClient(server.baseUrl, 2);
  try {
    const t0 = performance.now();
    const created = await client.request('POST', `${API}/documents/markdown`, { name: 'Bench report', content: source });
    const createMs = performance.now() - t0;
    expect(created.status, 201, 'POST /documents/markdown', created.body);
    const id = String(created.body.id);
    // Its length in pages, once: rendered by id and counted by pdfinfo.
    const job = await client.request('POST', `${API}/render/document/${id}`, {});
    expect(job.status, 202, 'POST /render/document/{id}', job.body);
    const pages = pdfPages(await renderedPdf(client, String(job.body.jobId)));

    const read = await timedRequest(client, 'GET', `${API}/documents/${id}/markdown`, undefined, 200);
    const markdown = String(read.body.markdown);
    const f: MarkdownFigures = { bytes: Buffer.byteLength(markdown), words: source.split(/\s+/).length, pages, createMs, firstRead: [], repeatRead: [], patch: [], validate: [], coldValidate: [], format: String(read.body.format) };
    // One round, as an editor saves: the Markdown with one word of one paragraph changed is PATCHed (a new version),
    // the first GET of that version (written and cached then), a repeated GET (from the cache), the same edited
    // Markdown through validation alone, and a variant whose every paragraph is new (no chunk parsed before: the
    // cost of a first parse); 5 rounds of warm-up first.
    for (let i = -5; i < REQUESTS; i++) {
      const edited = markdown.replace(/\bthe\b/, `the${i + 10}`);
      const patch = await timedRequest(client, 'PATCH', `${API}/documents/${id}/markdown`, { markdown: edited }, 200);
      const first = await timedRequest(client, 'GET', `${API}/documents/${id}/markdown`, undefined, 200);
      if (first.body.version !== patch.body.version || first.body.markdown !== edited) throw new Error('GET after PATCH did not give the new version with the same Markdown');
      const repeat = await timedRequest(client, 'GET', `${API}/documents/${id}/markdown`, undefined, 200);
      const validate = await timedRequest(client, 'POST', `${API}/render/validate/markdown`, { content: edited }, 200);
      if (validate.body.valid !== true) throw new Error(`validation: ${JSON.stringify(validate.body).slice(0, 300)}`);
      const cold = await timedRequest(client, 'POST', `${API}/render/validate/markdown`, { content: markdown.replace(/\bthe\b/g, `the${i + 10}`) }, 200);
      if (i < 0) continue;
      f.patch.push(patch.ms);
      f.firstRead.push(first.ms);
      f.repeatRead.push(repeat.ms);
      f.validate.push(validate.ms);
      f.coldValidate.push(cold.ms);
    }
    return f;
  } finally {
    client.close();
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------------

const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

async function main(): Promise<void> {
  log(`Documents and bulk render benchmark (issue 20, ${QUICK ? 'quick' : 'full'}); wall time in ms; client and server share this machine's ${os.cpus().length} cores.`);
  log(`load average at start (1/5/15 min): ${loadAverage()} — anything above 0 is other work competing for the same cores.\n`);
  const tables: string[] = [];
  if (ONLY.has('bulk')) {
    const rows: string[][] = [];
    log(`1. ${ITEMS} invoices: one POST /bulk-render (polled every ${BULK_POLL_MS} ms, ZIP downloaded) against ${ITEMS} single renders ${POOL} in flight (GET ?waitMs=, each PDF downloaded), ${ROUNDS} rounds alternating:`);
    const b = await bulkAgainstSingles();
    const bulkMs = b.bulk.map((t) => t.ms);
    rows.push([`1. ${ITEMS}-item bulk → ZIP downloaded`, fmt(min(bulkMs), 0), fmt(median(bulkMs), 0), '1.00', '≤ 2000', verdict(median(bulkMs) <= 2000)]);
    rows.push(['   of which POST → COMPLETED seen', fmt(min(b.bulk.map((t) => t.completedMs)), 0), fmt(median(b.bulk.map((t) => t.completedMs)), 0), '', '', '']);
    rows.push(['   job createdAt → completedAt (server)', fmt(min(b.bulk.map((t) => t.serverMs)), 0), fmt(median(b.bulk.map((t) => t.serverMs)), 0), '', '', '']);
    rows.push([`   ${ITEMS} × POST /render/document/{id}, ${POOL} in flight, all PDFs downloaded`, fmt(min(b.byId), 0), fmt(median(b.byId), 0), fmt(median(b.byId) / median(bulkMs), 2), '', '']);
    rows.push([`   ${ITEMS} × POST /render (inline config), ${POOL} in flight, all PDFs downloaded`, fmt(min(b.inline), 0), fmt(median(b.inline), 0), fmt(median(b.inline) / median(bulkMs), 2), '', '']);
    rows.push(['server CPU ms: bulk', fmt(min(b.cpu.bulk), 0), fmt(median(b.cpu.bulk), 0), '1.00', '', '']);
    rows.push(['   singles by id', fmt(min(b.cpu.byId), 0), fmt(median(b.cpu.byId), 0), fmt(median(b.cpu.byId) / median(b.cpu.bulk), 2), '', '']);
    rows.push(['   singles inline', fmt(min(b.cpu.inline), 0), fmt(median(b.cpu.inline), 0), fmt(median(b.cpu.inline) / median(b.cpu.bulk), 2), '', '']);
    tables.push(table(['measure', 'min ms', 'median ms', 'median / bulk', 'target', 'verdict'], rows));
  }
  if (ONLY.has('markdown')) {
    log(`2. a 30-page document's Markdown, one request at a time, ${REQUESTS} rounds of PATCH, first GET, repeated GET, validate:`);
    const m = await markdownReadWrite();
    const rows: string[][] = [];
    log(`   the document: ${fmt(m.bytes / 1024)} KB of Markdown, ~${m.words} words, ${m.pages ?? '?'} pages (pdfinfo); GET gives format ${m.format}; POST /documents/markdown took ${fmt(m.createMs, 0)} ms`);
    const line = (what: string, xs: number[], goal: boolean) => rows.push([what, fmt(percentile(xs, 50), 1), fmt(percentile(xs, 95), 1), fmt(percentile(xs, 50) / percentile(m.validate, 50), 2), goal ? '≤ 30' : '', goal ? verdict(percentile(xs, 50) <= 30) : '']);
    line(`2. ${m.pages ?? '?'}-page document (${fmt(m.bytes / 1024, 0)} KB): GET /documents/{id}/markdown, first read of a version`, m.firstRead, true);
    line('   GET /documents/{id}/markdown, repeated (cached)', m.repeatRead, true);
    line('   PATCH /documents/{id}/markdown (one word of one paragraph changed)', m.patch, true);
    line('   POST /render/validate/markdown of the same edit (parse only, the peer)', m.validate, false);
    line('   POST /render/validate/markdown, every paragraph new (a first parse)', m.coldValidate, false);
    tables.push(table(['measure', 'p50 ms', 'p95 ms', 'p50 / validate', 'target', 'verdict'], rows));
  }
  log(`\nSummary — ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${QUICK ? 'quick' : 'full'} run, load average now ${loadAverage()}.`);
  log(tables.join('\n\n'));
}

main().catch((err) => {
  // A benchmark reports; it never fails the build.
  console.error(`benchmark could not finish: ${(err as Error).stack ?? err}`);
  process.exitCode = 0;
});
