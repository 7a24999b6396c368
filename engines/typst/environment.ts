// The process environment the Typst compiler reads, set by the manifest of every plugin that runs it.
import { fileURLToPath } from 'node:url';

/**
 * Set in the main thread, before any worker starts: worker threads only copy `process.env`, while the
 * compiler's native code reads the process environment itself. An operator's own values win.
 * - FONTCONFIG_FILE: the compiler scans the machine's fonts through fontconfig; the bundled fonts.conf.
 * - RAYON_NUM_THREADS: the PDF export hands small pieces of each document to a rayon thread pool, one
 *   thread a core by default. The render threads already keep the cores busy, one document each, and a
 *   second pool thread only added hand-overs: one pool thread made 32 concurrent clients 2–6 % faster,
 *   the 26-page report no slower, and the switches between threads a render fell from about 190 to 6
 *   (docs/benchmarks.md, "jemalloc and one rayon thread").
 */
export function prepareTypstEnvironment(): void {
  process.env.FONTCONFIG_FILE ??= fileURLToPath(new URL('../../../engines/typst/assets/fonts.conf', import.meta.url));
  process.env.RAYON_NUM_THREADS ??= '1';
}
