// A warm LibreOffice: one soffice kept running, driven over UNO by a small Python bridge; converts DOCX ⇄ ODT → PDF.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { FORMAT_INFO, type OfficeFormat } from './formats.js';
import { writeProfile } from './profile.js';
import { linkBundledFonts } from './fonts.js';
import { reapGroup, reapPath } from '../process/reaper.js';
import { LIBREOFFICE_ROOT_PREFIX, sweepStaleRoots } from './stale.js';

/** The bridge is plain Python read from the source tree (like render-pdf's Typst library). */
const BRIDGE = fileURLToPath(new URL('../../../engines/libreoffice/bridge.py', import.meta.url));

export interface LibreOfficeOptions {
  /** The soffice program (default `soffice` on PATH). */
  sofficePath?: string;
  /** A Python 3 with the `uno` module (Debian's python3-uno: `/usr/bin/python3`). */
  pythonPath?: string;
  /** Replace the running soffice after this many conversions (its memory grows); 0 = never. */
  restartAfter?: number;
  /** Deadline of one conversion; past it soffice is killed and restarted, and the conversion fails. */
  timeoutMs?: number;
  /** Deadline for soffice to start and accept the bridge. */
  startTimeoutMs?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
}

export type ConversionErrorCode = 'OFFICE_CONVERSION_FAILED' | 'OFFICE_CONVERSION_TIMEOUT' | 'OFFICE_UNAVAILABLE';

/** A conversion that did not produce a file; `code` says whether LibreOffice refused it, hung or could not start. */
export class OfficeConversionError extends Error {
  override name = 'OfficeConversionError';
  constructor(
    readonly code: ConversionErrorCode,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** One soffice and the bridge connected to it. */
interface Instance {
  soffice: ChildProcess;
  bridge: ChildProcess;
  workDir: string;
  conversions: number;
  pending: Map<number, Pending>;
  dead: boolean;
  /** It died by itself (not stopped by this service). */
  crashed: boolean;
  /** Why it died, for the conversions that were waiting on it. */
  deathReason: string;
  /** Takes soffice's process group off the reaper's list (engines/process/reaper.ts) once it is dead. */
  unreap: () => void;
}

export interface ConvertOptions {
  /** Deadline of this conversion (default: the converter's `timeoutMs`). */
  timeoutMs?: number;
}

export interface ConverterStats {
  conversions: number;
  starts: number;
  restarts: number;
  timeouts: number;
  crashes: number;
}

/** One sweep of stale temp folders per process, at the first start of soffice. */
let sweptStale = false;

const DEFAULTS = { sofficePath: 'soffice', pythonPath: '/usr/bin/python3', restartAfter: 200, timeoutMs: 60_000, startTimeoutMs: 60_000 };

export class LibreOfficeConverter {
  readonly #opts: Required<Omit<LibreOfficeOptions, 'log'>>;
  readonly #log: NonNullable<LibreOfficeOptions['log']>;
  #root: string | null = null;
  #unreapRoot: () => void = () => undefined;
  #current: Instance | null = null;
  #starting: Promise<Instance> | null = null;
  /** Conversions run one at a time: soffice does one document at a time anyway. */
  #chain: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #closed = false;
  #stats: ConverterStats = { conversions: 0, starts: 0, restarts: 0, timeouts: 0, crashes: 0 };

  constructor(options: LibreOfficeOptions = {}) {
    this.#opts = {
      sofficePath: options.sofficePath ?? DEFAULTS.sofficePath,
      pythonPath: options.pythonPath ?? DEFAULTS.pythonPath,
      restartAfter: options.restartAfter ?? DEFAULTS.restartAfter,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      startTimeoutMs: options.startTimeoutMs ?? DEFAULTS.startTimeoutMs,
    };
    this.#log = options.log ?? (() => undefined);
  }

  /** Counters since construction: conversions done, soffice starts, planned restarts, deadlines hit, crashes. */
  get stats(): Readonly<ConverterStats> {
    return { ...this.#stats };
  }

  /** The soffice process id while one runs (for operators and tests). */
  get pid(): number | null {
    return this.#current?.soffice.pid ?? null;
  }

  /** Starts soffice now instead of on the first conversion. */
  async warmUp(): Promise<void> {
    await this.#instance();
  }

  /** Converts a document held in memory; `timeoutMs` overrides the converter's deadline for this conversion. */
  async convert(bytes: Uint8Array, from: OfficeFormat, to: OfficeFormat, options: ConvertOptions = {}): Promise<Uint8Array> {
    return this.#serial(async () => {
      const work = await this.#workDir();
      const id = this.#nextId++;
      const input = path.join(work, `${id}-in.${from}`);
      const output = path.join(work, `${id}-out.${to}`);
      try {
        await writeFile(input, bytes);
        await this.#convertOnce(input, output, from, to, options);
        return new Uint8Array(await readFile(output));
      } finally {
        await Promise.all([rm(input, { force: true }), rm(output, { force: true })]);
      }
    });
  }

  /** Converts a file on disk into `output` (absolute paths). */
  async convertFile(input: string, output: string, from: OfficeFormat, to: OfficeFormat, options: ConvertOptions = {}): Promise<void> {
    await this.#serial(() => this.#convertOnce(path.resolve(input), path.resolve(output), from, to, options));
  }

  /** One conversion; when soffice crashed under it (not a deadline), it is tried once more on a fresh soffice. */
  async #convertOnce(input: string, output: string, from: OfficeFormat, to: OfficeFormat, options: ConvertOptions): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // Taken right before the request is sent: no exit event can slip in between, so a dead soffice is never used.
      const inst = await this.#instance();
      try {
        await this.#run(inst, this.#nextId++, input, output, from, to, options.timeoutMs ?? this.#opts.timeoutMs);
        return;
      } catch (err) {
        const crashed = err instanceof OfficeConversionError && err.code === 'OFFICE_CONVERSION_FAILED' && inst.dead && inst.crashed;
        if (!crashed || attempt >= 2) throw err;
        this.#log('warn', 'LibreOffice crashed during a conversion; trying it once more', {});
      } finally {
        await this.#retireIfSpent(inst);
      }
    }
  }

  async #workDir(): Promise<string> {
    const work = path.join(await this.#rootDir(), 'work');
    await mkdir(work, { recursive: true });
    return work;
  }

  /** Stops soffice and the bridge and removes the profile; later conversions fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const starting = this.#starting;
    if (starting) await starting.catch(() => undefined);
    if (this.#current) await this.#stop(this.#current, 'the converter was closed');
    this.#current = null;
    if (this.#root) await rm(this.#root, { recursive: true, force: true });
    this.#unreapRoot();
    this.#root = null;
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(fn, fn);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #run(inst: Instance, id: number, input: string, output: string, from: OfficeFormat, to: OfficeFormat, timeoutMs: number): Promise<void> {
    const importFilter = FORMAT_INFO[from].importFilter;
    if (!importFilter) throw new OfficeConversionError('OFFICE_CONVERSION_FAILED', `LibreOffice cannot open ${from.toUpperCase()} as a text document.`);
    const request = { id, op: 'convert', input, output, inputFilter: importFilter, outputFilter: FORMAT_INFO[to].exportFilter };
    const done = new Promise<void>((resolve, reject) => inst.pending.set(id, { resolve, reject }));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#stats.timeouts++;
        // The caller hears of it once the hung soffice is gone; the next conversion starts a fresh one.
        const error = new OfficeConversionError('OFFICE_CONVERSION_TIMEOUT', `LibreOffice did not finish converting ${from.toUpperCase()} to ${to.toUpperCase()} within ${timeoutMs} ms; it was restarted.`);
        inst.pending.delete(id);
        void this.#stop(inst, `a conversion exceeded its ${timeoutMs} ms deadline`).finally(() => reject(error));
      }, timeoutMs);
    });
    try {
      inst.bridge.stdin!.write(`${JSON.stringify(request)}\n`);
      await Promise.race([done, deadline]);
      this.#stats.conversions++;
    } finally {
      clearTimeout(timer);
      inst.pending.delete(id);
      inst.conversions++;
    }
  }

  /** Past its budget an instance is replaced, and the next one started at once so that no job waits for it. */
  async #retireIfSpent(inst: Instance): Promise<void> {
    if (inst.dead || this.#opts.restartAfter <= 0 || inst.conversions < this.#opts.restartAfter) return;
    this.#stats.restarts++;
    this.#log('info', 'restarting LibreOffice after its conversion budget', { conversions: inst.conversions });
    await this.#stop(inst, 'it reached its restartAfter budget');
    if (!this.#closed) void this.#instance().catch(() => undefined);
  }

  /** The running instance, starting one (once, however many callers wait) when there is none. */
  #instance(): Promise<Instance> {
    if (this.#closed) return Promise.reject(new OfficeConversionError('OFFICE_UNAVAILABLE', 'The LibreOffice converter is closed.'));
    if (this.#current?.dead) this.#current = null;
    if (this.#current && !this.#current.dead) return Promise.resolve(this.#current);
    this.#starting ??= this.#start().finally(() => (this.#starting = null));
    return this.#starting;
  }

  /**
   * The converter's temp folder (profiles, pipes' names, files in conversion), named after this process so that a
   * later start can tell it is stale; registered with the reaper so that it goes even if the server is killed.
   */
  async #rootDir(): Promise<string> {
    if (this.#root) return this.#root;
    if (!sweptStale) {
      sweptStale = true;
      await sweepStaleRoots((msg, fields) => this.#log('warn', msg, fields));
    }
    this.#root = await mkdtemp(path.join(os.tmpdir(), `${LIBREOFFICE_ROOT_PREFIX}${process.pid}-`));
    this.#unreapRoot = reapPath(this.#root);
    return this.#root;
  }

  async #start(): Promise<Instance> {
    const dir = await mkdtemp(path.join(await this.#rootDir(), 'instance-'));
    const profileUrl = await writeProfile(path.join(dir, 'profile'));
    await linkBundledFonts(dir);
    const workDir = dir;
    const pipeName = `quire-lo-${process.pid}-${randomUUID().slice(0, 8)}`;
    // Render-pdf points FONTCONFIG_FILE at an empty config for Typst; LibreOffice needs the system fonts.
    const { FONTCONFIG_FILE: _fontconfig, ...env } = process.env;
    // XDG_DATA_HOME: fontconfig reads $XDG_DATA_HOME/fonts, where the bundled fonts are linked (./fonts.ts).
    const childEnv = { ...env, HOME: dir, XDG_DATA_HOME: dir, SAL_USE_VCLPLUGIN: 'svp' };
    this.#stats.starts++;
    const started = Date.now();
    // Its own process group, so that killing it takes oosplash and soffice.bin along.
    // A named pipe, not a TCP port: no other machine, and no port race, can reach the UNO endpoint.
    const soffice = spawn(
      this.#opts.sofficePath,
      [`-env:UserInstallation=${profileUrl}`, '--headless', '--invisible', '--nologo', '--norestore', '--nodefault', '--nolockcheck', '--nofirststartwizard', `--accept=pipe,name=${pipeName};urp;`],
      { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: childEnv },
    );
    // Registered with the reaper before anything else can fail or take time: were the server killed now, it goes.
    const unreap = reapGroup(soffice.pid);
    let sofficeErr = '';
    soffice.stderr!.on('data', (d: Buffer) => (sofficeErr = (sofficeErr + d.toString()).slice(-2000)));
    // Spawned from the main thread: the bridge's parent-death signal (prctl) fires when this process ends, not a thread.
    const bridge = spawn(this.#opts.pythonPath, [BRIDGE, `pipe,name=${pipeName}`, String(this.#opts.startTimeoutMs / 1000), String(process.pid)], { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv });
    let bridgeErr = '';
    bridge.stderr!.on('data', (d: Buffer) => (bridgeErr = (bridgeErr + d.toString()).slice(-2000)));
    // A write to a bridge that just died must not become an unhandled EPIPE; its exit is handled below.
    bridge.stdin!.on('error', () => undefined);
    // soffice leads its own group (detached): were the server killed, the reaper kills the group.
    const inst: Instance = { soffice, bridge, workDir, conversions: 0, pending: new Map(), dead: false, crashed: false, deathReason: '', unreap };

    const ready = new Promise<void>((resolve, reject) => {
      const fail = (why: string) => reject(new OfficeConversionError('OFFICE_UNAVAILABLE', `LibreOffice could not be started (${this.#opts.sofficePath}): ${why}`));
      soffice.once('error', (err) => fail(err.message));
      bridge.once('error', (err) => fail(`the UNO bridge (${this.#opts.pythonPath}) cannot run: ${err.message}`));
      soffice.once('exit', (code, signal) => fail(`soffice exited (${code ?? signal}) ${sofficeErr.trim()}`));
      bridge.once('exit', (code) => fail(`the UNO bridge exited (${code}) ${bridgeErr.trim()}`));
      const lines = createInterface({ input: bridge.stdout! });
      lines.on('line', (line) => {
        let msg: { ready?: boolean; id?: number; ok?: boolean; error?: string };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          return;
        }
        if (msg.ready !== undefined) return msg.ready ? resolve() : fail(msg.error ?? 'the bridge did not connect');
        const p = msg.id !== undefined ? inst.pending.get(msg.id) : undefined;
        if (!p) return;
        if (msg.ok) p.resolve();
        else p.reject(new OfficeConversionError('OFFICE_CONVERSION_FAILED', `LibreOffice could not convert the document: ${msg.error ?? 'unknown error'}`));
      });
    });
    const onDeath = (what: string) => () => {
      if (inst.dead) return;
      inst.crashed = true;
      if (!this.#closed) this.#stats.crashes++;
      this.#log('warn', 'LibreOffice stopped unexpectedly', { what, stderr: (sofficeErr + bridgeErr).slice(-500) });
      void this.#stop(inst, `${what} stopped unexpectedly`);
    };
    // Whichever loses the race below must not become an unhandled rejection (that would end the server).
    ready.catch(() => undefined);
    let startTimer: NodeJS.Timeout | undefined;
    const tooSlow = new Promise<never>((_, reject) => {
      startTimer = setTimeout(() => reject(new OfficeConversionError('OFFICE_UNAVAILABLE', `LibreOffice did not start within ${this.#opts.startTimeoutMs} ms.`)), this.#opts.startTimeoutMs);
    });
    try {
      await Promise.race([ready, tooSlow]);
    } catch (err) {
      await this.#stop(inst, 'it failed to start');
      throw err;
    } finally {
      clearTimeout(startTimer);
    }
    soffice.on('exit', onDeath('soffice'));
    bridge.on('exit', onDeath('the UNO bridge'));
    this.#log('info', 'LibreOffice started', { pid: soffice.pid, ms: Date.now() - started });
    this.#current = inst;
    return inst;
  }

  /** Kills one instance (both processes) and fails what was waiting on it. */
  async #stop(inst: Instance, why: string): Promise<void> {
    if (inst.dead) return;
    inst.dead = true;
    inst.deathReason = why;
    if (this.#current === inst) this.#current = null;
    for (const p of inst.pending.values()) p.reject(new OfficeConversionError('OFFICE_CONVERSION_FAILED', `LibreOffice stopped during the conversion (${why}).`));
    inst.pending.clear();
    const exited = (child: ChildProcess) =>
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const waits = [exited(inst.soffice), exited(inst.bridge)];
    inst.bridge.stdin?.end();
    inst.bridge.kill('SIGKILL');
    try {
      if (inst.soffice.pid) process.kill(-inst.soffice.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await Promise.race([Promise.all(waits), new Promise((r) => setTimeout(r, 5000).unref())]);
    inst.unreap();
    await rm(inst.workDir, { recursive: true, force: true });
  }
}
