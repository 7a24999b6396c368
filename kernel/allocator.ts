// The C allocator the process runs with: `npm start` preloads jemalloc through scripts/with-allocator.sh.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type Allocator = 'jemalloc' | 'system';

const WITH_ALLOCATOR = fileURLToPath(new URL('../../scripts/with-allocator.sh', import.meta.url));

/** The command and arguments that run `node <args>` as `npm start` runs the server: through scripts/with-allocator.sh. */
export function nodeWithAllocator(args: string[]): [string, string[]] {
  // /bin/sh by path: servers are started with a PATH that may lack it (the tests of a missing qpdf or Chromium).
  return ['/bin/sh', [WITH_ALLOCATOR, process.execPath, ...args]];
}

let inUse: Allocator | undefined;

/**
 * jemalloc when its library is mapped into this process; otherwise (or where /proc is missing) the C library's
 * malloc. Read once: a process keeps its allocator, and the first recycle's memory release asks again on the
 * main thread, under load.
 */
export function allocatorInUse(): Allocator {
  if (inUse) return inUse;
  try {
    inUse = /\/libjemalloc\.so[^\n]*$/m.test(readFileSync('/proc/self/maps', 'utf8')) ? 'jemalloc' : 'system';
  } catch {
    inUse = 'system';
  }
  return inUse;
}

/**
 * Why the server runs without jemalloc although the operator did not ask for that (QUIRE_ALLOCATOR=system),
 * or null when there is nothing to say.
 */
export function allocatorWarning(inUse: Allocator, env: NodeJS.ProcessEnv): string | null {
  if (inUse === 'jemalloc' || env.QUIRE_ALLOCATOR === 'system') return null;
  return (
    'jemalloc is not loaded, so renders cost about a fifth more CPU (docs/configuration.md, "Memory allocator"): ' +
    'install libjemalloc2 and start with npm start (scripts/with-allocator.sh), or set QUIRE_ALLOCATOR=system to keep the C library\'s malloc without this warning'
  );
}
