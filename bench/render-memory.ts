// The memory part of the render benchmark: many distinct invoices through one render-pdf pool, process RSS sampled as it goes.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { PluginDefinition } from '../sdk/plugin-api.js';
import { PluginPool } from '../kernel/plugin-pool.js';
import { validateDocument } from '../document/validator.js';
import { invoiceDocument } from '../test/fixtures/documents.js';

export interface MemorySample {
  renders: number;
  rssMb: number;
  /** Highest RSS seen by a 250 ms sampler since the previous sample. */
  peakMb: number;
  seconds: number;
  recycled: number;
}

export interface MemoryCurve {
  recycleAfter: number;
  planned: number;
  samples: MemorySample[];
  errors: number;
  /** Why the run ended early (RSS ceiling), if it did. */
  stopped?: string;
}

const mb = (bytes: number) => bytes / (1024 * 1024);

/**
 * Renders `n` distinct invoices through one pool with `recycleAfter` (0: never), one in flight a thread
 * (`pool.capacity`) as the job runner hands them over; RSS every `every` renders. Stops at `ceilingMb`.
 */
export async function memoryCurve(n: number, recycleAfter: number, every: number, ceilingMb: number, onSample: (s: MemorySample) => void): Promise<MemoryCurve> {
  // The manifest sets FONTCONFIG_FILE as it loads, before any worker thread starts.
  const { default: def } = (await import('../plugins/render-pdf/manifest.js')) as { default: PluginDefinition };
  const pool = PluginPool.forPlugin(def, { ...def.manifest.pool, recycleAfter });
  const curve: MemoryCurve = { recycleAfter, planned: n, samples: [], errors: 0 };
  const t0 = performance.now();
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 250);
  const sample = (renders: number) => {
    const rss = process.memoryUsage.rss();
    const s: MemorySample = { renders, rssMb: mb(rss), peakMb: mb(Math.max(peak, rss)), seconds: (performance.now() - t0) / 1000, recycled: pool.recycled };
    peak = rss;
    curve.samples.push(s);
    onSample(s);
  };
  sample(0);
  let submitted = 0;
  let done = 0;
  try {
    const lane = async () => {
      while (submitted < n && !curve.stopped) {
        const i = submitted++;
        const doc = validateDocument(invoiceDocument(2_000_000 + i)).document!;
        try {
          await pool.run('renderPdf', { params: { document: doc, pdfProfile: 'standard', createdAt: new Date().toISOString() }, files: [], settings: {} });
        } catch {
          curve.errors++;
        }
        if (++done % every === 0) {
          sample(done);
          if (curve.samples.at(-1)!.rssMb > ceilingMb) curve.stopped = `RSS passed ${ceilingMb} MB`;
        }
      }
    };
    await Promise.all(Array.from({ length: pool.capacity }, lane));
  } finally {
    clearInterval(sampler);
    await pool.close();
  }
  return curve;
}

/** Runs `memoryCurve` in a fresh process (`--memory-child`), so the RSS is the pool's alone; samples stream back as JSON lines. */
export async function memoryCurveInChild(n: number, recycleAfter: number, every: number, ceilingMb: number, onSample: (s: MemorySample) => void): Promise<MemoryCurve> {
  const script = fileURLToPath(new URL('./render.js', import.meta.url));
  const child = spawn(process.execPath, [script, '--memory-child', `--renders=${n}`, `--recycle-after=${recycleAfter}`, `--every=${every}`, `--ceiling-mb=${ceilingMb}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let curve: MemoryCurve | null = null;
  for await (const line of createInterface({ input: child.stdout! })) {
    const msg = JSON.parse(line) as { sample?: MemorySample; curve?: MemoryCurve };
    if (msg.sample) onSample(msg.sample);
    if (msg.curve) curve = msg.curve;
  }
  if (!curve) throw new Error('the memory child ended without a result');
  return curve;
}
