// The SDK's `testing` export: run a plugin's actions in a real worker thread through the kernel's pool, and start a real Quire server with the plugin loaded.
//
// Design: the SDK links no kernel code (the layer rule: sdk/ imports contracts only). Tests need the kernel, so this
// module drives a Quire installation found at run time, as a command-line tool would: the server is its
// `dist/server/main.js` in a child process, and the run API is its `dist/kernel/plugin-pool.js`, imported by
// path. The installation is `QUIRE_HOME` when set, else the Quire checkout this module sits in (the package is built
// into `<quire>/dist/sdk-package/`, and `npm install <quire>/dist/sdk-package` links to it).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PluginDefinition, WorkerInput, WorkerOutput } from './plugin-api.js';

/** The Quire installation whose server and kernel the tests use: its root holds `dist/server/main.js`. */
export function quireHome(): string {
  const fromEnv = process.env.QUIRE_HOME;
  if (fromEnv) {
    if (!existsSync(path.join(fromEnv, 'dist/server/main.js'))) throw new Error(`QUIRE_HOME=${fromEnv} has no dist/server/main.js; build Quire there (npm run build).`);
    return fromEnv;
  }
  for (let dir = path.dirname(realpathSync(fileURLToPath(import.meta.url))); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'dist/server/main.js'))) return dir;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error('No Quire installation found above @quire/plugin-sdk; set QUIRE_HOME to the folder of a built Quire checkout.');
}

/** What an HTTP call answered: JSON bodies parsed, others as bytes. */
export interface QuireResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  bytes: Buffer;
}

/** A small client of Quire's REST API, as a plugin's tests need it: JSON calls, uploads, job polling. */
export class QuireClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string | null,
  ) {}

  withKey(apiKey: string | null): QuireClient {
    return new QuireClient(this.baseUrl, apiKey);
  }

  async request<T = any>(method: string, urlPath: string, body?: unknown): Promise<QuireResponse<T>> {
    const headers: Record<string, string> = this.apiKey ? { 'X-API-Key': this.apiKey } : {};
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(this.baseUrl + urlPath, { method, headers, body: payload });
    const bytes = Buffer.from(await res.arrayBuffer());
    const json = (res.headers.get('content-type') ?? '').includes('json') && bytes.length > 0;
    return { status: res.status, headers: res.headers, body: (json ? JSON.parse(bytes.toString('utf8')) : bytes) as T, bytes };
  }

  get<T = any>(urlPath: string): Promise<QuireResponse<T>> {
    return this.request<T>('GET', urlPath);
  }

  post<T = any>(urlPath: string, body: unknown): Promise<QuireResponse<T>> {
    return this.request<T>('POST', urlPath, body);
  }

  /** POST /tools/files/upload of one file (multipart, field `file`). */
  upload(bytes: Uint8Array, filename: string): Promise<QuireResponse> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), filename);
    return this.request('POST', '/api/v1/dev/tools/files/upload', form);
  }

  /** Uploads and returns the file id; throws with the answer when the upload is refused. */
  uploadId(bytes: Uint8Array, filename: string): Promise<string> {
    return uploadFileId(this, bytes, filename);
  }

  /** Polls a tools job until it is COMPLETED or FAILED, and returns it. */
  waitForJob(jobId: string, timeoutMs = 60_000): Promise<any> {
    return pollToolsJob(this, jobId, timeoutMs);
  }
}

/** What the two helpers below need of an HTTP client (QuireClient here, and Quire's own test client). */
export interface ToolsClient {
  get(urlPath: string): Promise<QuireResponse>;
  upload(bytes: Uint8Array, filename: string): Promise<QuireResponse>;
}

/** Uploads a file and returns its id; throws with the answer when the upload is refused. */
export async function uploadFileId(client: ToolsClient, bytes: Uint8Array, filename: string): Promise<string> {
  const r = await client.upload(bytes, filename);
  if (r.status !== 201) throw new Error(`upload of ${filename} answered ${r.status}: ${r.bytes.toString()}`);
  return r.body.id as string;
}

/** Polls a tools job until it is COMPLETED or FAILED (bounded), and returns it. */
export async function pollToolsJob(client: ToolsClient, jobId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await client.get(`/api/v1/dev/tools/jobs/${jobId}`);
    if (r.status !== 200) throw new Error(`job ${jobId} answered ${r.status}: ${r.bytes.toString()}`);
    if (r.body.status === 'COMPLETED' || r.body.status === 'FAILED') return r.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${r.body.status} after ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

export interface StartQuireOptions {
  /** Paths of compiled plugin entry modules (`manifest.js`), as in the config's `externalPlugins`. */
  externalPlugins?: string[];
  /** More of the config file (QUIRE_CONFIG), e.g. `plugins: { '<id>': { settings: {…} } }`. */
  config?: Record<string, unknown>;
  /** More environment variables for the server. */
  env?: Record<string, string>;
}

export interface QuireTestServer {
  baseUrl: string;
  /** An owner key of the server's organization. */
  apiKey: string;
  /** A client with the owner key. */
  client: QuireClient;
  /** What the server wrote to stdout and stderr so far. */
  logs(): string;
  /** Stops the server (SIGTERM), waits for its exit and removes its data folder; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** How long a server may take to listen: about 7 s on a quiet machine, several times that on a busy shared one. */
export const START_TIMEOUT_MS = 60_000;

/**
 * The port a starting Quire process says it listens on (its `Quire listening` log line). When the process
 * exits first, or does not listen within `timeoutMs`, `kill` is called (so a failed start leaves nothing behind)
 * and the promise rejects with the process's output.
 */
export function listeningPort(proc: ChildProcess, output: () => string, kill: () => void, timeoutMs = START_TIMEOUT_MS): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      proc.stdout!.off('data', onData);
      proc.off('exit', onExit);
    };
    const fail = (why: string) => {
      done();
      kill();
      reject(new Error(`${why}:\n${output()}`));
    };
    const onData = () => {
      const m = /"port":(\d+)[^\n]*Quire listening/.exec(output());
      if (!m) return;
      done();
      resolve(Number(m[1]));
    };
    const onExit = (code: number | null) => fail(`Quire exited with ${code} before listening`);
    const timer = setTimeout(() => fail(`Quire did not start in ${timeoutMs / 1000} s`), timeoutMs);
    proc.stdout!.on('data', onData);
    proc.on('exit', onExit);
  });
}

/** Starts a Quire server on a free loopback port with a fresh data folder, an owner key, and the given plugins. */
export async function startQuire(opts: StartQuireOptions = {}): Promise<QuireTestServer> {
  const main = path.join(quireHome(), 'dist/server/main.js');
  const folder = mkdtempSync(path.join(tmpdir(), 'quire-plugin-test-'));
  const configPath = path.join(folder, 'quire.config.json');
  writeFileSync(configPath, JSON.stringify({ ...opts.config, externalPlugins: opts.externalPlugins ?? [] }));
  const apiKey = `ak_${randomBytes(24).toString('hex')}`;
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    HOST: '127.0.0.1',
    QUIRE_CONFIG: configPath,
    QUIRE_DATA_DIR: path.join(folder, 'data'),
    QUIRE_BOOTSTRAP_API_KEY: apiKey,
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_RATE_LIMIT_PER_MINUTE: '0',
    ...opts.env,
  };
  const proc = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  const exited = once(proc, 'exit');
  const port = await listeningPort(proc, () => output, () => {
    proc.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    apiKey,
    client: new QuireClient(baseUrl, apiKey),
    logs: () => output,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      rmSync(folder, { recursive: true, force: true });
      return code;
    },
  };
}

/**
 * One plugin's worker threads, as the kernel runs them. A failed action rejects with an Error whose `code` is
 * the code the job would fail with (a declared `PluginError` code, or the kernel's own such as `UNEXPECTED`).
 */
export interface PluginRunner {
  run(exportName: string, input: WorkerInput): Promise<WorkerOutput>;
  /** The names of the functions the worker module exports. */
  exports(): Promise<string[]>;
  close(): Promise<void>;
}

/** The kernel's run API for one plugin: its worker in real worker threads, with the manifest's pool limits. */
export async function pluginRunner(definition: PluginDefinition): Promise<PluginRunner> {
  const url = pathToFileURL(path.join(quireHome(), 'dist/kernel/plugin-pool.js')).href;
  const { PluginPool } = (await import(url)) as {
    PluginPool: { forPlugin(def: PluginDefinition): { run(e: string, i: WorkerInput): Promise<WorkerOutput>; describe(): Promise<string[]>; close(): Promise<void> } };
  };
  const pool = PluginPool.forPlugin(definition);
  return { run: (exportName, input) => pool.run(exportName, input), exports: () => pool.describe(), close: () => pool.close() };
}
