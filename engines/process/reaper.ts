// Helper processes and temp folders that must not outlive the server, whatever ends it (SIGKILL to it or to its whole
// process group included): a reaper process in a session of its own waits for the server's end and cleans up after it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { statFields } from './tree.js';

/** Plain sh read from the source tree (like LibreOffice's bridge.py). */
const SCRIPT = fileURLToPath(new URL('../../../engines/process/reaper.sh', import.meta.url));
/** Where the registry is, for the worker threads (each gets a copy of the environment when it starts). */
const ENV = 'QUIRE_REAPER_DIR';

/**
 * Starts the server's reaper (once; call before the worker pools start, so that their threads inherit the registry's
 * place). It reads a pipe from this process that is never written to: the pipe ends when this process does, and the
 * reaper then SIGKILLs the registered process groups and removes the registered folders. Without it (a library user,
 * a test of one engine) registrations are no-ops and each component cleans up after itself as before.
 */
export function startReaper(): void {
  if (process.env[ENV]) return;
  const registry = mkdtempSync(path.join(tmpdir(), 'quire-reaper-'));
  const child = spawn('sh', [SCRIPT, registry], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.on('error', () => undefined);
  child.stdin!.on('error', () => undefined);
  // Neither the reaper nor its pipe keeps the server's event loop alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  // The reaper removes the registry too, after whatever is still registered (nothing, after a clean shutdown).
  process.env[ENV] = registry;
}

function register(name: string, content: string): () => void {
  const registry = process.env[ENV];
  if (!registry) return () => undefined;
  const file = path.join(registry, name);
  try {
    writeFileSync(file, content);
  } catch {
    return () => undefined; // the registry went with a server that is exiting
  }
  return () => rmSync(file, { force: true });
}

/**
 * Registers a process group (its leader's pid: a child spawned `detached`) to be killed if the server dies first;
 * returns the unregistration. The leader's start time goes with it: the reaper kills the group only while that very
 * leader runs, never a group whose id another program got since (a browser that ended with its worker thread stays
 * registered).
 */
export function reapGroup(pgid: number | undefined): () => void {
  // Field 22 of /proc/<pid>/stat: when the leader started (clock ticks after boot).
  const started = pgid ? statFields(pgid)?.[19] : undefined;
  return pgid && started ? register(`group-${pgid}`, started) : () => undefined;
}

/** Registers a temp folder (its name must start with `quire-`) to be removed if the server dies first; returns the unregistration. */
export function reapPath(dir: string): () => void {
  return register(`path-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`, dir);
}
