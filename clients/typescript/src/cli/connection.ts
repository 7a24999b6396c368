// Which server and key the CLI uses: --profile from the profile file, else QUIRE_URL/QUIRE_API_KEY, else the file's default profile.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './usage-error.js';

export interface Connection {
  url: string;
  apiKey: string;
  /** Where the settings came from, for messages. */
  source: string;
}

interface ProfileFile {
  /** The profile used without --profile when QUIRE_URL is not set (default: the profile named `default`). */
  defaultProfile?: string;
  profiles?: Record<string, { url?: string; apiKey?: string }>;
}

/** `$XDG_CONFIG_HOME/quire/config.json`, by default `~/.config/quire/config.json`. */
export function profileFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'quire', 'config.json');
}

function readProfiles(file: string): ProfileFile | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    return JSON.parse(text) as ProfileFile;
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * An explicit --profile wins (its url and key, each falling back to the environment); without it QUIRE_URL and
 * QUIRE_API_KEY are used, each falling back to the file's default profile.
 */
export function resolveConnection(profile: string | undefined, env: NodeJS.ProcessEnv = process.env): Connection {
  const file = profileFilePath(env);
  const profiles = readProfiles(file);
  const name = profile ?? profiles?.defaultProfile ?? 'default';
  const chosen = profiles?.profiles?.[name];
  if (profile && !chosen) {
    const known = Object.keys(profiles?.profiles ?? {});
    throw new UsageError(`no profile "${profile}" in ${file}${known.length ? ` (it has ${known.join(', ')})` : ''}`);
  }
  const url = profile ? (chosen?.url ?? env.QUIRE_URL) : (env.QUIRE_URL ?? chosen?.url);
  const apiKey = profile ? (chosen?.apiKey ?? env.QUIRE_API_KEY) : (env.QUIRE_API_KEY ?? chosen?.apiKey);
  if (!url || !apiKey) {
    throw new UsageError(`no ${!url ? 'server URL' : 'API key'}: set QUIRE_URL and QUIRE_API_KEY, or add a profile to ${file} (docs/cli.md)`);
  }
  return { url, apiKey, source: profile || (!env.QUIRE_URL && chosen) ? `profile ${name}` : 'QUIRE_URL' };
}
