// Job lifecycles per second of the embedded store: journal + group commit vs the former whole-file rewrite; never fails a build.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Low } from 'lowdb';
import { DurableJsonFile } from '../kernel/store/durable-json-file.js';
import { LowdbStore } from '../kernel/store/lowdb-store.js';
import { emptyData, type Data } from '../kernel/store/store-state.js';
import type { Store } from '../kernel/store/store.js';
import type { JobRecord, LedgerEntry, Organization } from '../kernel/model.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    retained: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '32' },
    'old-seconds': { type: 'string', default: '15' },
  },
});
const JOBS = Number(values.jobs);
const RETAINED = Number(values.retained);
const CONCURRENCY = Number(values.concurrency);
const OLD_SECONDS = Number(values['old-seconds']);

type Lifecycles = Pick<Store, 'createJob' | 'updateJob' | 'finishJob' | 'close'>;

/** The former LowdbStore's write path: mutate in memory, then rewrite all of quire.json durably (bursts coalesced). */
class WholeFileStore implements Lifecycles {
  #db: Low<Data>;
  constructor(dataDir: string) {
    this.#db = new Low<Data>(new DurableJsonFile<Data>(path.join(dataDir, 'quire.json')), emptyData());
  }
  async init(): Promise<void> {
    await this.#db.read();
  }
  async close(): Promise<void> {
    await this.#db.write();
  }
  async createJob(job: JobRecord): Promise<void> {
    this.#db.data.jobs[job.id] = structuredClone(job);
    await this.#db.write();
  }
  async updateJob(id: string, patch: Partial<JobRecord>): Promise<JobRecord> {
    const job = this.#db.data.jobs[id]!;
    Object.assign(job, structuredClone(patch));
    await this.#db.write();
    return structuredClone(job);
  }
  async finishJob(id: string, patch: Partial<JobRecord>, charge: Omit<LedgerEntry, 'balanceAfter'> | null): Promise<JobRecord> {
    const job = this.#db.data.jobs[id]!;
    Object.assign(job, structuredClone(patch));
    if (charge) {
      const org = this.#db.data.organizations[charge.orgId]!;
      org.balance += charge.amount;
      this.#db.data.ledger.push({ ...charge, balanceAfter: org.balance });
    }
    await this.#db.write();
    return structuredClone(job);
  }
}

/** A render job of realistic size: a short document in its params. */
function newJob(orgId: string, finished: boolean): JobRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(), orgId, pluginId: 'render-pdf', action: 'render.pdf', status: finished ? 'COMPLETED' : 'PENDING',
    params: { document: { title: 'Quarterly report', body: Array.from({ length: 6 }, (_, i) => ({ type: 'text', text: `Paragraph ${i} with {{customer}} and some words to give it weight.` })) }, variables: { customer: 'Acme' } },
    inputFileIds: [], outputFileId: finished ? randomUUID() : null, error: null, errorCode: null, result: finished ? { pages: 2 } : null,
    webhook: null, estimatedCredits: 1, chargedCredits: finished ? 1 : 0, attempts: finished ? 1 : 0, progress: finished ? 100 : 0,
    createdAt: now, startedAt: finished ? now : null, completedAt: finished ? now : null,
  };
}

/** A data dir whose quire.json already holds `RETAINED` finished jobs (the 24 h window) and one organization. */
function seededDir(): { dir: string; orgId: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-bench-store-'));
  const org: Organization = { id: randomUUID(), name: 'Bench', plan: 'Team', balance: 1e9, createdAt: new Date().toISOString() };
  const data = emptyData();
  data.organizations[org.id] = org;
  for (let i = 0; i < RETAINED; i++) {
    const j = newJob(org.id, true);
    data.jobs[j.id] = j;
  }
  writeFileSync(path.join(dir, 'quire.json'), JSON.stringify(data));
  return { dir, orgId: org.id };
}

interface Result {
  lifecycles: number;
  seconds: number;
  latencies: number[];
}

async function run(store: Lifecycles, orgId: string, limit: number, maxSeconds: number): Promise<Result> {
  const latencies: number[] = [];
  const timed = async <T>(p: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const v = await p();
    latencies.push(performance.now() - t);
    return v;
  };
  let started = 0;
  const t0 = performance.now();
  const deadline = t0 + maxSeconds * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (started < limit && performance.now() < deadline) {
      started++;
      const job = newJob(orgId, false);
      await timed(() => store.createJob(job));
      await timed(() => store.updateJob(job.id, { status: 'PROCESSING', startedAt: new Date().toISOString(), attempts: 1, progress: 10 }));
      const now = new Date().toISOString();
      await timed(() => store.finishJob(
        job.id,
        { status: 'COMPLETED', completedAt: now, outputFileId: randomUUID(), result: { pages: 2 }, progress: 100, chargedCredits: 1 },
        { id: randomUUID(), orgId, amount: -1, kind: 'charge', jobId: job.id, action: job.action, note: null, createdAt: now },
      ));
    }
  }));
  return { lifecycles: started, seconds: (performance.now() - t0) / 1000, latencies };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

function row(name: string, r: Result): string[] {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  return [
    name,
    String(r.lifecycles),
    (r.lifecycles / r.seconds).toFixed(0),
    ((r.lifecycles * 3) / r.seconds).toFixed(0),
    quantile(sorted, 0.5).toFixed(1),
    quantile(sorted, 0.99).toFixed(1),
    sorted.at(-1)!.toFixed(1),
  ];
}

const rows: string[][] = [];
{
  const { dir, orgId } = seededDir();
  const store = new LowdbStore(dir);
  await store.init();
  rows.push(row('journal + group commit', await run(store, orgId, JOBS, Infinity)));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
{
  const { dir, orgId } = seededDir();
  const store = new WholeFileStore(dir);
  await store.init();
  rows.push(row(`whole-file rewrite (≤ ${OLD_SECONDS} s)`, await run(store, orgId, JOBS, OLD_SECONDS)));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

const head = ['store', 'lifecycles', 'lifecycles/s', 'mutations/s', 'p50 ms', 'p99 ms', 'max ms'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
process.stdout.write(`${JOBS} job lifecycles (create, PROCESSING, COMPLETED + charge), concurrency ${CONCURRENCY}, ${RETAINED} finished jobs retained, ${os.cpus().length} cores\n\n`);
for (const r of [head, ...rows]) process.stdout.write(r.map((c, i) => (i ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ') + '\n');
