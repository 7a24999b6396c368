// Runs the qpdf program from a worker thread: an argument array (never a shell), the password on stdin, a deadline and a memory cap.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { PluginError, type SystemComponent } from '../../sdk/plugin-api.js';

/** The manifest `requires` entry of a plugin that runs qpdf. */
export const QPDF_COMPONENT: SystemComponent = { name: 'qpdf', probe: ['qpdf', '--version'], install: 'apt-get install qpdf (qpdf 10.2 or later)' };

/**
 * A worker thread killed at its deadline leaves its child processes running, so qpdf gets its own,
 * shorter deadline (plus a CPU-time limit that ends it even if nobody is left to kill it).
 */
export const DEFAULT_QPDF_TIMEOUT_MS = 45_000;
/** Address space qpdf may use; a hostile file that makes it allocate more ends it instead of the machine. */
export const DEFAULT_QPDF_MEMORY_MB = 1024;
const MAX_OUTPUT_BYTES = 1 << 20;
/** util-linux prlimit sets the limits of the program it starts; present on every Debian system. */
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p)) ?? null;

export interface QpdfLimits {
  timeoutMs: number;
  memoryMb: number;
}

export interface QpdfRun {
  /** qpdf's exit code: 0 success, 2 errors, 3 warnings only. */
  code: number;
  stdout: string;
  stderr: string;
}

/** The limits from the plugin's settings (`qpdfTimeoutMs`, `qpdfMemoryMb`), or the defaults. */
export function qpdfLimits(settings: Record<string, unknown>): QpdfLimits {
  const positive = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback);
  return { timeoutMs: positive(settings.qpdfTimeoutMs, DEFAULT_QPDF_TIMEOUT_MS), memoryMb: positive(settings.qpdfMemoryMb, DEFAULT_QPDF_MEMORY_MB) };
}

/**
 * Runs `qpdf <options> <args>`. The password travels on stdin (`--password-file=-`), so it never shows
 * in a process listing and cannot be read as an option or an `@file` argument; qpdf reads only one
 * line there, so a password holding a line break goes as a single `--password=…` argument instead
 * (still one argv entry: no shell, no option parsing of its content). Paths in `args` must be
 * absolute (qpdf would read an argument starting with `@` as a file of arguments). `label` names the
 * input in messages. Past the deadline or the memory cap the job fails with PDF_TOO_COMPLEX.
 */
export function runQpdf(args: string[], password: string | null, limits: QpdfLimits, label: string): Promise<QpdfRun> {
  const viaStdin = password !== null && !/[\r\n]/.test(password);
  const passwordArgs = password === null ? [] : viaStdin ? ['--password-file=-'] : [`--password=${password}`];
  const qpdfArgs = [...passwordArgs, ...args];
  const seconds = Math.max(1, Math.ceil(limits.timeoutMs / 1000));
  const [command, argv] = PRLIMIT
    ? [PRLIMIT, [`--as=${Math.round(limits.memoryMb * 2 ** 20)}`, `--cpu=${seconds + 1}`, '--', 'qpdf', ...qpdfArgs]]
    : ['qpdf', qpdfArgs];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, limits.timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < MAX_OUTPUT_BYTES) stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_OUTPUT_BYTES) stderr += d.toString('utf8');
    });
    child.stdin.on('error', () => {}); // qpdf may exit before reading stdin (e.g. an unreadable file)
    child.stdin.end(viaStdin ? `${password}\n` : '');
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new PluginError('QPDF_FAILED', `${label} could not be processed: qpdf could not be started (${err.message}).`, { input: label }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(new PluginError('PDF_TOO_COMPLEX', `${label} took qpdf longer than ${seconds} s; the file is too complex (or hostile) to process.`, { input: label }));
      } else if (signal || /bad_alloc|out of memory/i.test(stderr)) {
        reject(
          new PluginError('PDF_TOO_COMPLEX', `${label} made qpdf exceed its limits (${limits.memoryMb} MB of memory, ${seconds} s of CPU time); the file is too complex (or hostile) to process.`, {
            input: label,
            signal,
          }),
        );
      } else {
        resolve({ code: code ?? 2, stdout, stderr });
      }
    });
  });
}

/** qpdf's messages without its `qpdf: <path>: ` prefixes and with temp paths removed, for a client-facing error. */
export function qpdfMessage(stderr: string, tempPaths: string[]): string {
  let text = stderr;
  for (const p of tempPaths) text = text.split(p).join('the file');
  const lines = text
    .split('\n')
    .map((l) => l.replace(/^(qpdf|WARNING): (the file: )?/, '').trim())
    .filter(Boolean);
  const unique = [...new Set(lines)];
  const shown = unique.slice(0, 3).join('; ');
  return unique.length > 3 ? `${shown}; …` : shown || 'no details';
}
