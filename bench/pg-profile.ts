// Where PostgreSQL's time goes under the render load: the statements one node sends per render, with their calls and
// time (pg_stat_statements). Run: npm run build && node dist/bench/pg-profile.js [--clients 32] [--seconds 10]
import { parseArgs } from 'node:util';
import pg from 'pg';
import { invoiceDocument } from '../test/fixtures/documents.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { readdirSync, readFileSync } from 'node:fs';
import { cpuSecondsOf, loadLoop, startServer } from './render-http.js';

/** CPU seconds of every process whose command is `postgres` (the server and its backends). */
function postgresCpu(): number {
  let sum = 0;
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') sum += cpuSecondsOf(Number(pid)) ?? 0;
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

/** Idle and total jiffies of the whole machine. */
function machineTimes(): { idle: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: f[3]! + f[4]!, total: f.reduce((a, b) => a + b, 0) };
}

const { values } = parseArgs({ options: { clients: { type: 'string', default: '32' }, seconds: { type: 'string', default: '10' }, socket: { type: 'boolean', default: false } } });
const cluster = await startPostgres(['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all']);
try {
  const url = await cluster.database('profile');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('CREATE EXTENSION pg_stat_statements');
  // --socket: the node reaches PostgreSQL through its Unix-domain socket instead of TCP on loopback.
  const server = await startServer({ QUIRE_DATABASE_URL: values.socket ? `postgres://quire@/profile?host=${encodeURIComponent(cluster.socketDir)}&port=${new URL(url).port}` : url });
  try {
    await loadLoop(server.baseUrl, (i) => invoiceDocument(i), { clients: 4, seconds: 2, warmupS: 0, pollMs: 0, serverPid: server.pid });
    await admin.query('SELECT pg_stat_statements_reset()');
    const pgBefore = postgresCpu();
    const m0 = machineTimes();
    const load = await loadLoop(server.baseUrl, (i) => invoiceDocument(1000 + i), { clients: Number(values.clients), seconds: Number(values.seconds), warmupS: 0, pollMs: 0, serverPid: server.pid });
    const pgCpu = postgresCpu() - pgBefore;
    const m1 = machineTimes();
    const renders = load.completed;
    const per = (s: number) => `${((s * 1000) / renders).toFixed(2)} ms/render`;
    console.log(`${renders} renders, ${load.rendersPerSecond.toFixed(1)}/s; CPU: server ${per(load.serverCpuS ?? 0)}, PostgreSQL ${per(pgCpu)}, client ${per(load.clientCpuS)}; machine idle ${((100 * (m1.idle - m0.idle)) / (m1.total - m0.total)).toFixed(0)} %`);
    const { rows } = await admin.query<{ query: string; calls: string; total: number; mean: number; rows: string }>(
      `SELECT query, calls, total_exec_time AS total, mean_exec_time AS mean, rows FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 40`,
    );
    let sum = 0;
    for (const r of rows) sum += r.total;
    console.log(`sum of exec time ${sum.toFixed(0)} ms (${(sum / renders).toFixed(2)} ms/render)`);
    for (const r of rows) {
      console.log(`${(Number(r.calls) / renders).toFixed(2).padStart(6)}/render ${r.total.toFixed(0).padStart(6)} ms ${r.mean.toFixed(3).padStart(7)} ms  ${r.query.replace(/\s+/g, ' ').slice(0, 150)}`);
    }
  } finally {
    await server.stop();
    await admin.end();
  }
} finally {
  await cluster.stop();
}
