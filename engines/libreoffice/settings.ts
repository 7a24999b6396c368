// The LibreOffice service's operator settings, from environment variables (shared by every plugin that converts).
import type { LibreOfficeOptions } from './converter.js';

export interface LibreOfficeSettings extends Omit<LibreOfficeOptions, 'log'> {
  sofficePath: string;
  pythonPath: string;
  /** Start soffice at boot rather than on the first conversion. */
  warmUp: boolean;
}

/** Environment variable → setting; documented in docs/configuration.md. */
export const LIBREOFFICE_ENV = {
  QUIRE_SOFFICE_PATH: 'the soffice program',
  QUIRE_LIBREOFFICE_PYTHON: 'a Python 3 with the uno module (python3-uno)',
  QUIRE_LIBREOFFICE_RESTART_AFTER: 'conversions before soffice is replaced (0 = never)',
  QUIRE_LIBREOFFICE_TIMEOUT_MS: 'deadline of one conversion in ms',
  QUIRE_LIBREOFFICE_WARM_UP: 'start soffice at boot (true) or on the first conversion (false)',
} as const;

/** Reads the settings; a malformed value throws an Error naming the variable (the boot is refused with it). */
export function libreOfficeSettings(env: NodeJS.ProcessEnv = process.env): LibreOfficeSettings {
  const int = (name: keyof typeof LIBREOFFICE_ENV, fallback: number, min: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${JSON.stringify(text)} is not an integer of at least ${min} (${LIBREOFFICE_ENV[name]}).`);
    return n;
  };
  const warm = env.QUIRE_LIBREOFFICE_WARM_UP ?? '';
  if (warm && !/^(true|false|1|0|yes|no)$/i.test(warm)) throw new Error(`QUIRE_LIBREOFFICE_WARM_UP=${JSON.stringify(warm)} is not a boolean; use true or false.`);
  return {
    sofficePath: env.QUIRE_SOFFICE_PATH || 'soffice',
    pythonPath: env.QUIRE_LIBREOFFICE_PYTHON || '/usr/bin/python3',
    restartAfter: int('QUIRE_LIBREOFFICE_RESTART_AFTER', 200, 0),
    timeoutMs: int('QUIRE_LIBREOFFICE_TIMEOUT_MS', 60_000, 1000),
    warmUp: /^(true|1|yes)$/i.test(warm),
  };
}

/** The system components a converting plugin declares: soffice, and the Python bridge's uno module. */
export function libreOfficeComponents(env: NodeJS.ProcessEnv = process.env) {
  const s = { sofficePath: env.QUIRE_SOFFICE_PATH || 'soffice', pythonPath: env.QUIRE_LIBREOFFICE_PYTHON || '/usr/bin/python3' };
  return [
    { name: 'libreoffice', probe: [s.sofficePath, '--version'], install: 'apt-get install libreoffice-writer-nogui, or set QUIRE_SOFFICE_PATH', optional: true },
    { name: 'python3-uno', probe: [s.pythonPath, '-c', 'import uno'], install: 'apt-get install python3-uno, or set QUIRE_LIBREOFFICE_PYTHON', optional: true },
  ];
}
