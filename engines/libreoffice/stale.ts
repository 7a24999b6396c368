// What a killed server's LibreOffice left behind, found and removed at the next start: soffice processes still running
// on a profile of a dead server, and that server's temp folder (profiles, files in conversion).
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processAlive } from '../process/alive.js';

/** The converter's temp folder is `<tmp>/quire-libreoffice-<pid of its server>-<random>`. */
export const LIBREOFFICE_ROOT_PREFIX = 'quire-libreoffice-';


/** Processes whose command line names `root` (soffice and oosplash carry `-env:UserInstallation=file://<root>/…`). */
async function processesUsing(root: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return []; // not Linux: folders only
  }
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(`${root}/`)) found.push(Number(name));
  }
  return found;
}

/**
 * Folders of servers that are no longer running (the pid in the name is dead) are stale: their processes are killed
 * and the folder removed. The reaper (engines/process/reaper.ts) normally does this when a server dies; this covers a
 * reaper that died with it (the whole machine or container stopped at once).
 */
export async function sweepStaleRoots(log: (msg: string, fields: Record<string, unknown>) => void): Promise<void> {
  let names: string[];
  try {
    names = await readdir(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(LIBREOFFICE_ROOT_PREFIX) ? /^(\d+)-/.exec(name.slice(LIBREOFFICE_ROOT_PREFIX.length)) : null;
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    const root = path.join(tmpdir(), name);
    const pids = await processesUsing(root);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
    log('stale LibreOffice files of a server that is no longer running removed', { folder: root, killed: pids.length });
  }
}
