// The HTTP side of the render benchmark: a real server on loopback, a keep-alive client, one render's latency, a load loop.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { nodeWithAllocator } from '../kernel/allocator.js';

const MAIN = fileURLToPath(new URL('../server/main.js', import.meta.url));
const API_KEY = 'ak_BenchOwnerKey0123456789abcdefghijklmnopqrstuvwxyzAB';
const RENDER_PATH = '/api/v1/dev/render';

export interface BenchServer {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * `node dist/server/main.js`, started as npm start starts it, on a free loopback port with its own data dir, no rate
 * limit and credits enough for any run; `extraEnv` adds settings (QUIRE_DATABASE_URL for a node on PostgreSQL).
 */
export async function startServer(extraEnv: NodeJS.ProcessEnv = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-bench-render-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    HOST: '127.0.0.1',
    QUIRE_DATA_DIR: dataDir,
    QUIRE_BOOTSTRAP_API_KEY: API_KEY,
    QUIRE_BOOTSTRAP_CREDITS: '1000000000',
    QUIRE_RATE_LIMIT_PER_MINUTE: '0',
    // The default level: a job logs two lines, as in production (the start line is needed too).
    QUIRE_LOG_LEVEL: 'info',
    // An operator's settings file (pool sizes, recycling) when the caller names one.
    ...(process.env.QUIRE_CONFIG ? { QUIRE_CONFIG: process.env.QUIRE_CONFIG } : {}),
    // jemalloc (the default) or system: started as npm start starts it, through scripts/with-allocator.sh.
    ...(process.env.QUIRE_ALLOCATOR ? { QUIRE_ALLOCATOR: process.env.QUIRE_ALLOCATOR } : {}),
    // The thread budget's memory figure (docs/setup.md) when the caller sets one.
    ...(process.env.QUIRE_MEMORY_BUDGET_MB ? { QUIRE_MEMORY_BUDGET_MB: process.env.QUIRE_MEMORY_BUDGET_MB } : {}),
    ...extraEnv,
  };
  const [cmd, args] = nodeWithAllocator([...(process.env.QUIRE_BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), MAIN]);
  const proc: ChildProcess = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let head = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 90 s:\n${head}`)), 90_000);
    const onData = (chunk: Buffer) => {
      // Only the start-up lines are kept; the job log afterwards is read and dropped, like a log shipper would.
      if (head.length < 64_000) head += chunk;
      const m = /"port":(\d+)[^\n]*Quire listening/.exec(head);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${head}`));
    });
  });
  const exited = once(proc, 'exit');
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: proc.pid!,
    async stop() {
      if (proc.exitCode === null && !proc.signalCode) {
        proc.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** utime + stime of a process and all its threads, in seconds (Linux /proc; null elsewhere). */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ, 100 on Linux)
  } catch {
    return null;
  }
}

export interface JsonReply {
  status: number;
  body: Record<string, unknown>;
}

/** Keep-alive JSON over node:http (lighter than fetch, so the client takes less of the two cores from the server). */
export class JsonClient {
  readonly #agent: http.Agent;
  readonly #host: string;
  readonly #port: number;

  constructor(baseUrl: string, sockets: number) {
    const url = new URL(baseUrl);
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  async request(method: 'GET' | 'POST' | 'PATCH', pathname: string, body?: unknown): Promise<JsonReply> {
    const reply = await this.bytes(method, pathname, body);
    const text = reply.bytes.toString('utf8');
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = { raw: text.slice(0, 200) };
    }
    return { status: reply.status, body: parsed };
  }

  /** The whole answer as bytes (a download read to its end). */
  bytes(method: 'GET' | 'POST' | 'PATCH', pathname: string, body?: unknown): Promise<{ status: number; bytes: Buffer }> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.#host,
          port: this.#port,
          method,
          path: pathname,
          agent: this.#agent,
          headers: { 'X-API-Key': API_KEY, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

export interface RenderTiming {
  ok: boolean;
  ms: number;
  /** GET requests until the job was finished. */
  polls: number;
  /** Creation alone: POST sent → 202 read. */
  createMs: number;
  /** The job's own createdAt → completedAt (server clock, ms resolution): the part polling does not add. */
  serverMs?: number;
  error?: string;
}

/**
 * POST /render, then GET the job at once and every `pollMs` until COMPLETED or FAILED; wall time of the whole.
 * `pollMs` 0 waits instead of polling: each GET carries `?waitMs=30000` and answers when the job finishes.
 */
export async function renderOverHttp(client: JsonClient, config: unknown, pollMs: number): Promise<RenderTiming> {
  const started = performance.now();
  const created = await client.request('POST', RENDER_PATH, { config });
  const createMs = performance.now() - started;
  if (created.status !== 202) return { ok: false, ms: createMs, polls: 0, createMs, error: `POST ${created.status} ${String(created.body.code ?? created.body.raw ?? '')}` };
  const jobId = String(created.body.jobId);
  for (let polls = 1; ; polls++) {
    const reply = await client.request('GET', `${RENDER_PATH}/${jobId}${pollMs === 0 ? '?waitMs=30000' : ''}`);
    const ms = performance.now() - started;
    if (reply.status !== 200) return { ok: false, ms, polls, createMs, error: `GET ${reply.status}` };
    if (reply.body.status === 'COMPLETED') return { ok: true, ms, polls, createMs, serverMs: Date.parse(String(reply.body.completedAt)) - Date.parse(String(reply.body.createdAt)) };
    if (reply.body.status === 'FAILED') return { ok: false, ms, polls, createMs, error: `FAILED ${String(reply.body.errorCode)}: ${String(reply.body.error)}` };
    if (pollMs) await sleep(pollMs);
  }
}

export interface LoadResult {
  seconds: number;
  /** CPU seconds the server process (all its threads) and this client used inside the window. */
  serverCpuS: number | null;
  clientCpuS: number;
  completed: number;
  rendersPerSecond: number;
  latencies: number[];
  /** When each counted render finished (ms from the window's start), in the order of `latencies`. */
  endedAt: number[];
  createMs: number[];
  polls: number;
  errors: number;
  firstErrors: string[];
}

/**
 * `clients` loops of create + poll for `warmupS` (not counted), then `seconds` measured: renders that
 * finished inside the window, their latencies, and every error (status other than 202/200, FAILED, socket).
 */
export async function loadLoop(baseUrl: string, docFor: (i: number) => unknown, opts: { clients: number; seconds: number; warmupS: number; pollMs: number; serverPid: number }): Promise<LoadResult> {
  const client = new JsonClient(baseUrl, opts.clients);
  const t0 = performance.now();
  const windowStart = t0 + opts.warmupS * 1000;
  const windowEnd = windowStart + opts.seconds * 1000;
  const result: LoadResult = { seconds: opts.seconds, serverCpuS: null, clientCpuS: 0, completed: 0, rendersPerSecond: 0, latencies: [], endedAt: [], createMs: [], polls: 0, errors: 0, firstErrors: [] };
  let server0: number | null = null;
  let client0 = process.cpuUsage();
  const atStart = setTimeout(() => {
    server0 = cpuSecondsOf(opts.serverPid);
    client0 = process.cpuUsage();
  }, opts.warmupS * 1000);
  const atEnd = setTimeout(() => {
    const server1 = cpuSecondsOf(opts.serverPid);
    result.serverCpuS = server0 === null || server1 === null ? null : server1 - server0;
    const used = process.cpuUsage(client0);
    result.clientCpuS = (used.user + used.system) / 1e6;
  }, (opts.warmupS + opts.seconds) * 1000);
  let next = 0;
  const loop = async () => {
    while (performance.now() < windowEnd) {
      const startedAt = performance.now();
      let timing: RenderTiming;
      try {
        timing = await renderOverHttp(client, docFor(next++), opts.pollMs);
      } catch (err) {
        timing = { ok: false, ms: performance.now() - startedAt, polls: 0, createMs: 0, error: (err as Error).message };
      }
      const endedAt = startedAt + timing.ms;
      // Counted by when a render finished: the rate of completions inside the window.
      if (endedAt < windowStart || endedAt > windowEnd) continue;
      if (timing.ok) {
        result.completed++;
        result.latencies.push(timing.ms);
        result.endedAt.push(endedAt - windowStart);
        result.createMs.push(timing.createMs);
        result.polls += timing.polls;
      } else {
        result.errors++;
        if (result.firstErrors.length < 5) result.firstErrors.push(timing.error ?? 'unknown');
      }
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, loop));
  clearTimeout(atStart);
  clearTimeout(atEnd);
  client.close();
  result.rendersPerSecond = result.completed / opts.seconds;
  return result;
}
