// Hands the C heap's free pages back to the system once a pool's old threads have exited (glibc's malloc_trim).
import { createRequire } from 'node:module';

interface Trim {
  async(pad: number, done: (err: unknown, released: number) => void): void;
}

/** malloc_trim from the C library, loaded on first use; null where there is none (musl, macOS, Windows). */
let trim: Trim | null | undefined;

function loadTrim(): Trim | null {
  if (trim !== undefined) return trim;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as { load(name: string): { func(signature: string): Trim } };
    trim = koffi.load('libc.so.6').func('int malloc_trim(size_t)');
  } catch {
    trim = null;
  }
  return trim;
}

/**
 * Asks glibc to return the free memory of every malloc arena to the system, on a libuv thread (it walks
 * every arena: tens of ms). A worker thread's native allocations (the Typst compiler's above all) are
 * freed into its arena when the thread ends, but glibc gives back only the top of an arena by itself:
 * the free pages in between stay in the process, and the next threads fill them unevenly, so without
 * this RSS climbed by 100 MB or more over a few thousand renders before it levelled off
 * (docs/benchmarks.md). Resolves to true when memory was released, false when there was none to release,
 * null when the C library has no malloc_trim. Never rejects.
 */
export function releaseFreedMemory(): Promise<boolean | null> {
  const fn = loadTrim();
  if (!fn) return Promise.resolve(null);
  return new Promise((resolve) => {
    try {
      fn.async(0, (err, released) => resolve(err ? null : released === 1));
    } catch {
      resolve(null);
    }
  });
}
