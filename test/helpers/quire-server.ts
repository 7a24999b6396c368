// Starts the real server as `npm start` does (`node dist/server/main.js` through scripts/with-allocator.sh) as a
// child process on a free loopback port, with its own data dir.
//
// A server outlives nothing that started it. It stays in the test file's process group (not detached), so the
// runner's kill of that group reaches it even when the test file itself was SIGKILLed; it inherits the run's
// QUIRE_TEST_RUN mark, and so do the Chromium and LibreOffice it starts in groups of their own, so the runner finds
// those too (scripts/run-tests.mjs). Within the test file, a server is stopped by the suite's `after`, and servers
// still running when the file ends (a thrown error, a failed assertion before the stop, a signal) are killed with
// everything they started by a reaper on exit and on SIGINT/SIGTERM/SIGHUP — which also covers a file run by hand.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import type { Test } from 'uvu';
import { ApiClient } from './api-client.js';
import { nodeWithAllocator } from '../../kernel/allocator.js';
import { listeningPort, START_TIMEOUT_MS } from '../../sdk/testing.js';
import { startPostgres, type ThrowawayPostgres } from './postgres.js';
import pg from 'pg';
import { processTree } from '../../engines/process/tree.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const MAIN = path.join(ROOT, 'dist/server/main.js');
export const ADMIN = path.join(ROOT, 'dist/scripts/admin.js');
export const OWNER_KEY = 'ak_TestOwnerKey0123456789abcdefghijklmnopqrstuvwxyzAB';

export interface ServerOptions {
  env?: Record<string, string>;
  /** Written to a temp file and passed as QUIRE_CONFIG. */
  config?: Record<string, unknown>;
  dataDir?: string;
  /** The server leads a process group of its own (as under a process manager), so that a test can signal the group. */
  detached?: boolean;
  /** The compiled server to run (a copy of dist/ elsewhere); default dist/server/main.js of this checkout. */
  main?: string;
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  dataDir: string;
  proc: ChildProcess;
  logs: () => string;
  /** Graceful: SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** kill -9 of the server and of what it started (Chromium, LibreOffice), as a supervisor ends a crashed service. */
  kill(): Promise<void>;
}

export function tempDir(prefix = 'quire-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Removes a data dir, and the settings file startServer wrote beside it (`config`). */
export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}-config.json`, { force: true });
}

function baseEnv(dataDir: string, extra: Record<string, string>, configPath?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    HOST: '127.0.0.1',
    QUIRE_DATA_DIR: dataDir,
    QUIRE_BOOTSTRAP_API_KEY: OWNER_KEY,
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_RATE_LIMIT_PER_MINUTE: '0',
    ...runMark(),
    ...extra,
  };
  if (configPath) env.QUIRE_CONFIG = configPath;
  return env;
}

/** The test runner's mark (scripts/run-tests.mjs), passed on so that whatever a server starts can be found. */
function runMark(): Record<string, string> {
  return process.env.QUIRE_TEST_RUN ? { QUIRE_TEST_RUN: process.env.QUIRE_TEST_RUN } : {};
}

/** kill -9 of a server and everything it started: collected first, so that none is orphaned before it is found. */
function killTree(proc: ChildProcess): void {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  for (const pid of processTree(proc.pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

const running = new Set<ChildProcess>();
let reaperInstalled = false;

/** The reaper: on this process's exit (synchronous, so SIGKILL) and on a signal, no started server survives it. */
function track(proc: ChildProcess): void {
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  if (reaperInstalled) return;
  reaperInstalled = true;
  process.once('exit', () => running.forEach(killTree));
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      process.stderr.write(`\n${sig}: killing the ${running.size} Quire server(s) this test started\n`);
      running.forEach(killTree);
      // Our listener is gone: the signal's default action ends the process as the signal would have.
      process.kill(process.pid, sig);
    });
  }
}

/**
 * QUIRE_TEST_STORE=postgres runs the e2e suite against PostgreSQL (scripts/run-tests.mjs does, after the whole suite):
 * every data dir whose test does not name a database of its own gets a fresh database of one throw-away cluster per
 * test file, and its servers and admin commands use it (QUIRE_DATABASE_URL). The data dir still holds scratch files.
 */
export const ON_POSTGRES = process.env.QUIRE_TEST_STORE === 'postgres';
let cluster: Promise<ThrowawayPostgres> | undefined;
const databases = new Map<string, Promise<string>>();

async function storeEnv(dataDir: string, env: Record<string, string>): Promise<Record<string, string>> {
  if (!ON_POSTGRES || env.QUIRE_DATABASE_URL) return env;
  const key = path.resolve(dataDir);
  let url = databases.get(key);
  if (!url) {
    cluster ??= startPostgres();
    const name = `e2e_${databases.size + 1}`;
    url = cluster.then((c) => c.database(name));
    databases.set(key, url);
  }
  return { ...env, QUIRE_DATABASE_URL: await url };
}

/**
 * The ids of the file blobs a data dir's server stores: its `blobs` folder, or under QUIRE_TEST_STORE=postgres the
 * blob rows of its database.
 */
export async function storedBlobs(dataDir: string): Promise<string[]> {
  const url = ON_POSTGRES ? databases.get(path.resolve(dataDir)) : undefined;
  if (!url) return readdirSync(path.join(dataDir, 'blobs'));
  const client = new pg.Client({ connectionString: await url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('SELECT DISTINCT id FROM blob_chunks');
    return rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}

async function spawnServer(opts: ServerOptions): Promise<{ proc: ChildProcess; dataDir: string; output: () => string }> {
  const dataDir = opts.dataDir ?? tempDir();
  const env = await storeEnv(dataDir, opts.env ?? {});
  let configPath: string | undefined;
  if (opts.config) {
    configPath = path.join(dataDir, '..', `${path.basename(dataDir)}-config.json`);
    writeFileSync(configPath, JSON.stringify(opts.config));
  }
  // As npm start runs it: the script preloads jemalloc when installed, then execs node (same pid).
  const [cmd, args] = nodeWithAllocator([opts.main ?? MAIN]);
  const proc = spawn(cmd, args, { env: baseEnv(dataDir, env, configPath), stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false });
  track(proc);
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  return { proc, dataDir, output: () => out };
}

export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const { proc, dataDir, output } = await spawnServer(opts);
  const port = await listeningPort(proc, output, () => killTree(proc));
  const exited = once(proc, 'exit');
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    proc,
    logs: output,
    async stop() {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
    async kill() {
      if (proc.exitCode !== null || proc.signalCode) return;
      killTree(proc);
      await exited;
    },
  };
}

/** Runs the server expecting it to refuse to start; resolves with its exit code and output. */
export async function startExpectingFailure(opts: ServerOptions): Promise<{ code: number | null; output: string }> {
  const { proc, output } = await spawnServer(opts);
  // A setting a plugin reads is checked when that plugin loads, as late as a normal start.
  const timer = setTimeout(() => killTree(proc), START_TIMEOUT_MS);
  const [code] = (await once(proc, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output: output() };
}

/** Runs the admin CLI against a data dir (and `env`, e.g. QUIRE_DATABASE_URL); returns parsed JSON output. */
export async function admin(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; json: any; stderr: string }> {
  const proc = spawn(process.execPath, [ADMIN, ...args], { env: { PATH: process.env.PATH, QUIRE_DATA_DIR: dataDir, ...runMark(), ...(await storeEnv(dataDir, env)) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d) => (stdout += d));
  proc.stderr!.on('data', (d) => (stderr += d));
  const [code] = (await once(proc, 'exit')) as [number | null];
  let json: unknown = null;
  try {
    json = JSON.parse(stdout);
  } catch {
    /* not JSON (usage text) */
  }
  return { code, json, stderr };
}

/**
 * Two organizations in a data dir not yet started: "Main" (the oldest, so the bootstrap key joins it on the first
 * start) and "Other" with an owner key; for tests of what one organization cannot see of the other's.
 */
export async function mainAndOtherOrg(dataDir: string, credits = { main: 100, other: 10 }): Promise<{ mainOrgId: string; otherOrgId: string; otherKey: string }> {
  const run = async (args: string[]) => {
    const r = await admin(dataDir, args);
    if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.json;
  };
  const main = await run(['org', 'create', '--name', 'Main', '--credits', String(credits.main)]);
  const other = await run(['org', 'create', '--name', 'Other', '--credits', String(credits.other)]);
  const key = await run(['key', 'create', '--org', other.id, '--role', 'owner']);
  return { mainOrgId: main.id, otherOrgId: other.id, otherKey: key.key };
}

/**
 * The usual suite set-up: a server started before the suite's tests (with `opts`) and an owner-key client for
 * it, handed to `ready`; after the tests the server is stopped and its data dir removed.
 */
export function useServer(suite: Test, ready: (started: { server: RunningServer; api: ApiClient }) => void, opts: ServerOptions = {}): void {
  let server: RunningServer | undefined;
  suite.before(async () => {
    server = await startServer(opts);
    ready({ server, api: new ApiClient(server.baseUrl, OWNER_KEY) });
  });
  suite.after(async () => {
    if (!server) return;
    await server.stop();
    cleanup(server.dataDir);
  });
}
