// HTML-to-PDF latency: a typical HTML invoice through the real plugin pool, with its warm browser pool (jobs back to
// back, and jobs arriving with a pause between them, so the next job's context and page are ready) beside the same
// pool launching Chromium for every job (recycleAfterJobs 1). Prints figures; never fails a build.
import { parseArgs } from 'node:util';
import { PluginPool } from '../kernel/plugin-pool.js';
import type { WorkerInput } from '../sdk/plugin-api.js';
import plugin from '../plugins/html-to-pdf/manifest.js';
import { FOOTER, HEADER, invoiceHtml } from './render-chromium.js';
import { fmt, percentile, table } from './stats.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '30' }, 'cold-runs': { type: 'string', default: '15' }, warmup: { type: 'string', default: '3' }, 'gap-ms': { type: 'string', default: '2000' } },
});
const RUNS = Number(values.runs);
/** Pause before each job of the "jobs apart" mode; not counted in its time. */
const GAP_MS = Number(values['gap-ms']);
const COLD_RUNS = Number(values['cold-runs']);
const WARMUP = Number(values.warmup);

function job(i: number, settings: Record<string, unknown>): WorkerInput {
  // A different invoice number each time, so nothing is answered from a cache of the previous page.
  const bytes = Buffer.from(invoiceHtml(1000 + i));
  return {
    params: { margin: { top: '2.5cm', bottom: '2.5cm', left: '2cm', right: '2cm' }, headerTemplate: HEADER, footerTemplate: FOOTER, format: 'A4', emulatedMediaType: 'print' },
    files: [{ field: 'fileId', fileId: `bench-${i}`, filename: 'invoice.html', mimeType: 'text/html', bytes }],
    settings,
    outbound: { allowPrivateNetwork: false },
  };
}

/** One thread, so every job meets the same browser (warm) or starts its own (cold). */
async function measure(label: string, runs: number, settings: Record<string, unknown>, gapMs = 0): Promise<number[]> {
  const pool = PluginPool.forPlugin(plugin, { ...plugin.manifest.pool, maxThreads: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < WARMUP + runs; i++) {
      if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      const started = performance.now();
      const out = await pool.run('htmlToPdf', job(i, settings));
      const ms = performance.now() - started;
      if (!out.file || out.file.bytes.byteLength < 1000) throw new Error(`${label}: run ${i} produced no PDF`);
      if (i >= WARMUP) times.push(ms);
    }
  } finally {
    await pool.close();
  }
  return times;
}

const warm = await measure('warm', RUNS, {});
const apart = await measure('apart', RUNS, {}, GAP_MS);
const cold = await measure('cold', COLD_RUNS, { recycleAfterJobs: 1 });
const row = (name: string, t: number[]) => [name, String(t.length), fmt(percentile(t, 50)), fmt(percentile(t, 95)), fmt(Math.max(...t))];
console.log(`HTML-to-PDF: invoice (~1 page, header/footer templates), one worker thread, ${WARMUP} warm-up jobs each`);
console.log(
  table(
    ['mode', 'jobs', 'p50 ms', 'p95 ms', 'max ms'],
    [row('warm pool, jobs back to back', warm), row(`warm pool, jobs ${GAP_MS / 1000} s apart (context and page ready)`, apart), row('cold (Chromium launched per job)', cold)],
  ),
);
console.log(`cold / warm back to back: p50 ×${fmt(percentile(cold, 50) / percentile(warm, 50))}, p95 ×${fmt(percentile(cold, 95) / percentile(warm, 95))}`);
console.log(`cold / warm apart: p50 ×${fmt(percentile(cold, 50) / percentile(apart, 50))}, p95 ×${fmt(percentile(cold, 95) / percentile(apart, 95))}`);
