// A throw-away PostgreSQL cluster for tests: initdb in a temp dir, a postmaster on a free loopback port, removed on stop or exit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export interface ThrowawayPostgres {
  /** `postgres://quire@127.0.0.1:<port>/quire`. */
  url: string;
  /** Creates another database in the cluster (isolation between tests) and returns its URL. */
  database(name: string): Promise<string>;
  /** The directory of the cluster's Unix-domain socket: `postgres://quire@/<db>?host=<socketDir>` connects through it. */
  socketDir: string;
  /** Fast shutdown of the server, then its directory is removed. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;

/** initdb and postgres of the newest installed PostgreSQL (Debian puts them under /usr/lib/postgresql/<major>/bin). */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const major of majors) {
    const dir = path.join(root, major, 'bin');
    if (existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'postgres'))) return dir;
  }
  throw new Error(`No PostgreSQL server found under ${root}/<version>/bin (npm run setup installs Debian's postgresql).`);
}

/** initdb refuses to run as root, and so does postgres: as root, both run as the `postgres` OS user. */
function asServerUser(cmd: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** The postmaster's own pid (runuser stands between it and us), from the pid file it writes once started. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

const clusters = new Set<{ dir: string; dataDir: string }>();
let reaperInstalled = false;

/** Immediate shutdown (SIGQUIT) of every cluster still running, and its directory removed; synchronous. */
function reapAll(): void {
  const pids = [...clusters].map((c) => postmasterPid(c.dataDir));
  for (const pid of pids) signal(pid, 'SIGQUIT');
  // A server still writing its last files would leave them behind in a directory removed under it: wait (bounded).
  const until = Date.now() + 3_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some(alive) && Date.now() < until) Atomics.wait(pause, 0, 0, 20);
  for (const c of clusters) rmSync(c.dir, { recursive: true, force: true });
  clusters.clear();
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The reaper: on this process's exit and on a signal, no cluster it started outlives it. */
function track(cluster: { dir: string; dataDir: string }): void {
  clusters.add(cluster);
  if (reaperInstalled) return;
  reaperInstalled = true;
  process.once('exit', reapAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      reapAll();
      // Our listener is gone: the signal's default action ends the process as the signal would have.
      process.kill(process.pid, sig);
    });
  }
}

/** `settings` adds server settings (`name=value`, as `postgres -c` takes them), e.g. a profiling extension for a benchmark. */
export async function startPostgres(settings: string[] = []): Promise<ThrowawayPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'quire-pg-'));
  const dataDir = path.join(dir, 'data');
  const cluster = { dir, dataDir };
  track(cluster);
  if (userInfo().uid === 0) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  const [initCmd, initArgs] = asServerUser(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'quire', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale', 'C.UTF-8']);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8', cwd: dir });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    clusters.delete(cluster);
    throw new Error(`initdb exited ${init.status ?? init.signal}: ${init.error?.message ?? ''}${init.stderr}${init.stdout}`);
  }
  const port = await freePort();
  const [cmd, args] = asServerUser(path.join(bin, 'postgres'), [
    '-D', dataDir, '-p', String(port), '-k', dir,
    '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
    ...settings.flatMap((s) => ['-c', s]),
  ]);
  const proc = spawn(cmd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout!.on('data', (d) => (log += d));
  proc.stderr!.on('data', (d) => (log += d));
  // A cluster does not keep the test process alive: one never stopped is reaped when the process exits.
  proc.unref();
  (proc.stdout as Socket).unref();
  (proc.stderr as Socket).unref();
  const exited = once(proc, 'exit');
  const base = `postgres://quire@127.0.0.1:${port}`;

  const stop = async () => {
    if (!clusters.has(cluster)) return;
    clusters.delete(cluster);
    // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, nothing is waited for. It goes to the postmaster
    // itself (runuser, between us, ends as soon as it is signalled, before the server has finished).
    const pid = postmasterPid(dataDir);
    signal(pid ?? proc.pid, 'SIGINT');
    if (proc.exitCode === null && proc.signalCode === null) {
      const timer = setTimeout(() => signal(postmasterPid(dataDir), 'SIGQUIT'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    for (const until = Date.now() + 10_000; alive(pid) && Date.now() < until; ) await sleep(20);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await waitReady(`${base}/postgres`, proc, () => log);
    await query(`${base}/postgres`, 'CREATE DATABASE quire');
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: `${base}/quire`,
    async database(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`"${name}" is not a plain database name.`);
      await query(`${base}/postgres`, `CREATE DATABASE ${name}`);
      return `${base}/${name}`;
    },
    socketDir: dir,
    stop,
  };
}

function postgresUser(): { uid: number; gid: number } {
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) throw new Error('Running as root, but there is no `postgres` OS user to run PostgreSQL as (npm run setup installs it).');
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/** Connects until one connection succeeds, for at most READY_TIMEOUT_MS; the error carries the server's log. */
async function waitReady(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`PostgreSQL exited (${proc.exitCode ?? proc.signalCode}) before accepting connections. Its log:\n${log()}`);
    }
    try {
      await query(url, 'SELECT 1');
      return;
    } catch (err) {
      last = err;
      await sleep(100);
    }
  }
  throw new Error(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS} ms (last: ${(last as Error)?.message}). Its log:\n${log()}`);
}

async function query(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}
