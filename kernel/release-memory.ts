// Hands the C heap's free pages back to the system once a pool's old threads have exited, and once the server has
// gone idle: jemalloc's arena purge when the process runs on jemalloc (npm start), glibc's malloc_trim otherwise.
import { createRequire } from 'node:module';
import { allocatorInUse } from './allocator.js';

/** One native call made on a libuv thread; `done` gets its int result. */
type Release = (done: (err: unknown, result: number) => void) => void;

interface KoffiFunction {
  async(...args: unknown[]): void;
}

/** `arena.<MALLCTL_ARENAS_ALL>.purge`: every arena's unused dirty pages (jemalloc 5's MALLCTL_ARENAS_ALL is 4096). */
const PURGE_ALL_ARENAS = 'arena.4096.purge';

/** The release call of the allocator in use, loaded on first use; null where there is none (musl, macOS, Windows). */
let release: Release | null | undefined;

function loadRelease(): Release | null {
  if (release !== undefined) return release;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as { load(name: string): { func(signature: string): KoffiFunction } };
    if (allocatorInUse() === 'jemalloc') {
      // dlopen by soname finds the preloaded library: the allocator in use, not a second copy.
      const mallctl = koffi.load('libjemalloc.so.2').func('int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)');
      release = (done) => mallctl.async(PURGE_ALL_ARENAS, null, null, null, 0, (err: unknown, rc: number) => done(err, rc === 0 ? 1 : -1));
    } else {
      const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t)');
      release = (done) => trim.async(0, done);
    }
  } catch {
    release = null;
  }
  return release;
}

/**
 * Asks the allocator to return the free memory of every arena to the system, on a libuv thread (it walks
 * every arena: tens of ms). A worker thread's native allocations (the Typst compiler's above all) are
 * freed into an arena when the thread ends, and stay in the process: glibc gives back only the top of an
 * arena by itself (without this, RSS climbed by 100 MB or more over a few thousand renders before it
 * levelled off), jemalloc only after its decay time (about 10 s, which made the process's memory swing
 * by the memory of a thread or two; docs/benchmarks.md). Resolves to true when memory was released (with
 * jemalloc: the purge ran), false when there was none to release, null when the allocator offers no such
 * call. Never rejects.
 */
export function releaseFreedMemory(): Promise<boolean | null> {
  const fn = loadRelease();
  if (!fn) return Promise.resolve(null);
  return new Promise((resolve) => {
    try {
      fn((err, result) => resolve(err || result < 0 ? null : result === 1));
    } catch {
      resolve(null);
    }
  });
}

/** After the last task, the idle server's memory is released this long later, and once more after the second delay. */
const IDLE_RELEASE_MS = [15_000, 60_000];
let idleTimers: NodeJS.Timeout[] | undefined;

/**
 * Called whenever a plugin task settles: once no task has settled for 15 s, and again after 60 s, the free pages of
 * every arena go back to the system. jemalloc returns a freed page only after its decay time and only when some
 * allocation or free runs in that arena, so in a process that has gone quiet the pages its main thread freed (the
 * request and download buffers V8 collects after the load) stayed resident; the second release follows V8's own
 * idle collections. Under load the timers are only re-armed (Timeout.refresh) on every task and never fire.
 */
export function releaseWhenIdle(): void {
  if (idleTimers) for (const t of idleTimers) t.refresh();
  else idleTimers = IDLE_RELEASE_MS.map((ms) => setTimeout(() => void releaseFreedMemory(), ms).unref());
}
