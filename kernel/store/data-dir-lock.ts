// One process at a time owns a data dir: the server while it runs, or the admin CLI.
import path from 'node:path';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { processAlive } from '../../engines/process/alive.js';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}


/** Takes the lock or throws DataDirLockedError naming the holder; a lock left by a dead process is taken over. */
export async function acquireDataDirLock(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, 'quire.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(file, 'wx', 0o600);
      await fh.writeFile(String(process.pid));
      await fh.close();
      return async () => {
        await rm(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processAlive(holder)) {
        throw new DataDirLockedError(`The data dir ${dataDir} is in use by process ${holder} (a running Quire server or admin command); stop it first, or use another QUIRE_DATA_DIR.`);
      }
      await rm(file, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock the data dir ${dataDir}.`);
}
