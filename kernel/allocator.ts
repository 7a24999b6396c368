// The C allocator the process runs with: `npm start` preloads jemalloc through scripts/with-allocator.sh.
import { readFileSync } from 'node:fs';

export type Allocator = 'jemalloc' | 'system';

/** jemalloc when its library is mapped into this process; otherwise (or where /proc is missing) the C library's malloc. */
export function allocatorInUse(): Allocator {
  try {
    return /\/libjemalloc\.so[^\n]*$/m.test(readFileSync('/proc/self/maps', 'utf8')) ? 'jemalloc' : 'system';
  } catch {
    return 'system';
  }
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
