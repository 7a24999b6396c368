// The heap of the Markdown parser's thread during one parse, measured where the service parses: a worker thread with the parser's resource limits, running the parser thread's own task function (for bench/markdown.ts).
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import parse from '../services/markdown-parse-worker.js';
import { markdownThreadLimits } from '../services/markdown-parser.js';
import type { ParseOptions } from '../document/markdown/index.js';

export interface ThreadMemory {
  /** The thread's heap in use before the parse, after a full collection (bytes): its code, the schema compiler, the source. */
  before: number;
  /** Most heap in use during the parse and the hand-back of its result, garbage included, above `before` (bytes). */
  peak: number;
  /**
   * Most heap in use right after a full collection during the parse, above `before` (bytes): what the parse held
   * live (0 when no full collection ran: see `liveBound`).
   */
  live: number;
  /**
   * Most heap in use right after any collection during the parse, above `before` (bytes): after a scavenge the old
   * generation's garbage is still counted, so this bounds what was live from above.
   */
  liveBound: number;
  /** Heap still in use after the result was handed back and a full collection, above `before` (bytes). */
  kept: number;
  /** Collections during the parse: scavenges (young generation) and mark-compacts (all of the heap). */
  scavenges: number;
  markCompacts: number;
  /** CPU time of the thread's parse (ms; the process's, the collector's helper threads included). */
  cpuMs: number;
  /** The limits the thread ran with. */
  limits: ReturnType<typeof markdownThreadLimits>;
}

/**
 * One parse of the file at `file` in a new thread with the parser thread's limits (`limits` to try others),
 * after a small parse `warmUp` loaded the code. The peak is read in the thread from V8's collection
 * callbacks (v8.GCProfiler: the heap in use just before and after each collection), the largest "before",
 * or the heap at the end when larger. Needs `--expose-gc` (a full collection before and after the parse).
 */
export function threadMemory(file: string, warmUp: string, limits = markdownThreadLimits(), options: ParseOptions = {}): Promise<ThreadMemory> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { file, warmUp, options }, resourceLimits: limits });
    let figures: ThreadMemory | undefined;
    worker.on('message', (m: { figures?: ThreadMemory }) => {
      if (m.figures) figures = { ...m.figures, limits };
    });
    worker.on('error', reject);
    worker.on('exit', () => (figures ? resolve(figures) : reject(new Error('the parser thread ended without figures'))));
  });
}

function measure(): void {
  const { file, warmUp, options } = workerData as { file: string; warmUp: string; options: ParseOptions };
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('threadMemory needs node --expose-gc');
  const source = readFileSync(file, 'utf8');
  parse({ source: warmUp, options });
  gc();
  const used = () => v8.getHeapStatistics().used_heap_size;
  const before = used();
  const profiler = new v8.GCProfiler();
  profiler.start();
  const cpu0 = process.cpuUsage();
  let result: ReturnType<typeof parse> | null = parse({ source, options });
  const cpu = process.cpuUsage(cpu0);
  // Handed back as the service's thread does (piscina posts the result: a structured clone), then let go.
  parentPort!.postMessage({ result });
  result = null;
  const end = used();
  const collections = profiler.stop().statistics;
  gc();
  const kept = used() - before;
  const beforeGc = collections.map((c) => c.beforeGC.heapStatistics.usedHeapSize);
  const full = collections.filter((c) => c.gcType === 'MarkSweepCompact');
  const figures: Omit<ThreadMemory, 'limits'> = {
    before,
    peak: Math.max(end, ...beforeGc) - before,
    live: Math.max(0, ...full.map((c) => c.afterGC.heapStatistics.usedHeapSize - before)),
    liveBound: Math.max(0, ...collections.map((c) => c.afterGC.heapStatistics.usedHeapSize - before)),
    kept,
    scavenges: collections.filter((c) => c.gcType === 'Scavenge').length,
    markCompacts: full.length,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
  parentPort!.postMessage({ figures });
}

if (!isMainThread && (workerData as { file?: string } | null)?.file) measure();
