// Tesseract (tesseract.js, WebAssembly) for pages without a text layer. Everything is local: the core and
// worker script come from node_modules, the English LSTM model from @tesseract.js-data/eng; nothing is
// downloaded and no cache file is written. tesseract.js runs its own worker threads inside this plugin's
// worker thread, so a crash fails only the job.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Worker as TesseractWorker, Bbox } from 'tesseract.js';

const require = createRequire(import.meta.url);
/** The integer-quantised LSTM model: the one tesseract.js picks for OEM LSTM_ONLY, fast and accurate. */
const LANG_PATH = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

/** Below this mean word confidence (0–100) a page may be upside down, and is read turned as well. */
const UPRIGHT_CONFIDENCE = 50;

/** A recognised word in image pixels (y grows downwards). */
export interface OcrWord {
  text: string;
  x0: number;
  x1: number;
  /** Baseline height at the word's left and right edges (the line's baseline, which follows any skew). */
  baseLeft: number;
  baseRight: number;
  /** The line's height from descender to ascender: about the font size in pixels. */
  size: number;
  /** Tesseract's confidence, 0–100. */
  confidence: number;
}

export interface OcrPage {
  words: OcrWord[];
  /** Skew of the text lines in radians (positive: lines fall to the right), from their baselines. */
  skew: number;
}

/**
 * Tesseract engines for the scanned pages of one job: up to `threads` workers, created as pages arrive and
 * ended with the job (`close`), so nothing of one job's recognition can reach the next. With two workers,
 * two pages are recognised at once (tesseract.js gives each worker a thread of its own).
 */
export class OcrSession {
  readonly #threads: number;
  readonly #all: Array<Promise<TesseractWorker>> = [];
  readonly #idle: TesseractWorker[] = [];
  readonly #waiting: Array<(w: TesseractWorker) => void> = [];

  constructor(threads = 1) {
    this.#threads = Math.max(1, threads);
  }

  async #acquire(): Promise<TesseractWorker> {
    const idle = this.#idle.pop();
    if (idle) return idle;
    if (this.#all.length < this.#threads) {
      const created = (async () => {
        const { createWorker, OEM } = await import('tesseract.js');
        // Without an errorHandler tesseract.js rethrows a failed recognition on the thread's event loop (an
        // uncaught exception) besides rejecting its promise; the rejection is enough.
        return createWorker('eng', OEM.LSTM_ONLY, { langPath: LANG_PATH, cacheMethod: 'none', gzip: true, errorHandler: () => undefined });
      })();
      this.#all.push(created);
      return created;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(w: TesseractWorker): void {
    const next = this.#waiting.shift();
    if (next) next(w);
    else this.#idle.push(w);
  }

  /**
   * Recognises a page image (PNG, JPEG or PGM bytes): its words with their boxes, line baselines and sizes.
   * A page read with low confidence is read again turned by 180°, and the better reading is kept: a sheet
   * fed upside down reads at about 30%, the right way up at over 90%. The boxes of the turned reading are
   * those of the upright page, so the layout rules apply unchanged.
   */
  async recognise(image: Uint8Array): Promise<OcrPage> {
    const w = await this.#acquire();
    try {
      const bytes = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
      const output = { blocks: true, text: false };
      let { data } = await w.recognize(bytes, {}, output);
      if ((data.confidence ?? 100) < UPRIGHT_CONFIDENCE && (data.blocks?.length ?? 0) > 0) {
        const turned = (await w.recognize(bytes, { rotateRadians: Math.PI }, output)).data;
        if ((turned.confidence ?? 0) > (data.confidence ?? 0)) data = turned;
      }
      return pageOf(data.blocks ?? []);
    } finally {
      this.#release(w);
    }
  }

  async close(): Promise<void> {
    const all = this.#all.splice(0);
    this.#idle.length = 0;
    await Promise.all(all.map(async (p) => (await p.catch(() => null))?.terminate().catch(() => undefined)));
  }
}

type Blocks = NonNullable<Awaited<ReturnType<TesseractWorker['recognize']>>['data']['blocks']>;

function pageOf(blocks: Blocks): OcrPage {
  const words: OcrWord[] = [];
  // Skew: the baselines' slopes weighted by their length (long lines measure it best).
  let slope = 0;
  let weight = 0;
  for (const block of blocks) {
    for (const para of block.paragraphs) {
      for (const line of para.lines) {
        const b = line.baseline;
        const run = b.x1 - b.x0;
        if (run > 0) {
          slope += ((b.y1 - b.y0) / run) * run;
          weight += run;
        }
        const at = (x: number) => (run > 0 ? b.y0 + ((b.y1 - b.y0) * (x - b.x0)) / run : b.y0);
        const kept = line.words.filter((w, k) => w.text.trim() && !noise(w, line.words[k - 1], line.words[k + 1], line.rowAttributes?.rowHeight || height(line.bbox)));
        // Each word's size from its own box (see wordSize); a word within 15% of its line's median takes the
        // median, so one word's jitter does not change the line, while a line Tesseract ran across columns
        // of different sizes keeps each part's own.
        const sizes = kept.map((w) => wordSize(w.text.trim(), height(w.bbox)));
        const typical = median(sizes.filter((x): x is number => x !== null)) || line.rowAttributes?.rowHeight || height(line.bbox);
        kept.forEach((w, k) => {
          const own = sizes[k] ?? typical;
          const size = Math.abs(own - typical) <= typical * 0.15 ? typical : own;
          words.push({ text: w.text.trim(), x0: w.bbox.x0, x1: w.bbox.x1, baseLeft: at(w.bbox.x0), baseRight: at(w.bbox.x1), size, confidence: w.confidence });
        });
      }
    }
  }
  return { words, skew: weight > 0 ? Math.atan(slope / weight) : 0 };
}

function height(b: Bbox): number {
  return Math.max(1, b.y1 - b.y0);
}

/** Letters that reach the ascender or cap height, and those that reach below the baseline. */
const ASCENDING = /[A-Z0-9bdfhklijt!?%&#@$£€()[\]{}\/\\|]/;
const DESCENDING = /[gjpqyQ()[\]{}|]/;

/**
 * A word's font size from the height of its box, by the kinds of letter it holds: in common text faces
 * x-height is about 0.52 em, ascenders and capitals 0.73 em, descenders reach 0.21 em below the baseline.
 * Tesseract's row height is no use where it joins lines of neighbouring columns into one. Null for a word
 * of two characters or fewer, or of punctuation only, whose box says little.
 */
function wordSize(text: string, boxHeight: number): number | null {
  if (text.length < 3 || !/[\p{L}\p{N}]/u.test(text)) return null;
  const em = (ASCENDING.test(text) ? 0.73 : 0.52) + (DESCENDING.test(text) ? 0.21 : 0);
  return boxHeight / em;
}

function median(xs: number[]): number {
  const sorted = xs.filter((x) => x > 0).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 1;
}

type OcrWordBox = { text: string; confidence: number; bbox: Bbox };

/**
 * Specks read as words: no letter or digit, and either low confidence or far (over two font sizes) from the
 * words beside it ("'", "~", ":" from dirt on the glass, which would otherwise widen the text's extent);
 * and bars, which are table rules.
 */
function noise(w: OcrWordBox, prev: OcrWordBox | undefined, next: OcrWordBox | undefined, size: number): boolean {
  if (/[\p{L}\p{N}]/u.test(w.text)) return false;
  // A bar alone is a table rule or a box edge, not text.
  if (/^[|¦]+$/.test(w.text.trim())) return true;
  const apart = (!prev || w.bbox.x0 - prev.bbox.x1 > 2 * size) && (!next || next.bbox.x0 - w.bbox.x1 > 2 * size);
  return w.confidence < 60 || apart;
}
