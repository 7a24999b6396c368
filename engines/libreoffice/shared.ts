// One warm LibreOffice per process, shared by every plugin that converts office documents (reference-counted).
import { LibreOfficeConverter, type LibreOfficeOptions } from './converter.js';

interface Shared {
  key: string;
  converter: LibreOfficeConverter;
  users: number;
}

let shared: Shared | null = null;

export interface LibreOfficeLease {
  converter: LibreOfficeConverter;
  /** Gives the lease back; the last one closes soffice. */
  release(): Promise<void>;
}

/**
 * The process's converter. Plugins asking with the same options share one soffice; a plugin asking with
 * other options (another soffice path or budget) while one runs gets its own converter.
 */
export function acquireLibreOffice(options: Omit<LibreOfficeOptions, 'log'>, log?: LibreOfficeOptions['log']): LibreOfficeLease {
  const key = JSON.stringify(options, Object.keys(options).sort());
  if (shared && shared.key === key) {
    const s = shared;
    s.users++;
    return { converter: s.converter, release: once(() => releaseShared(s)) };
  }
  if (shared) {
    const own = new LibreOfficeConverter({ ...options, log });
    return { converter: own, release: once(() => own.close()) };
  }
  const s: Shared = { key, converter: new LibreOfficeConverter({ ...options, log }), users: 1 };
  shared = s;
  return { converter: s.converter, release: once(() => releaseShared(s)) };
}

async function releaseShared(s: Shared): Promise<void> {
  if (--s.users > 0) return;
  if (shared === s) shared = null;
  await s.converter.close();
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => (done ??= fn());
}
