// The OCR of one job's scanned pages, whichever engine the request chose: the page image is deskewed first
// (projection profiles), then read by Tesseract (tesseract.js) or PP-OCR (onnxruntime-node), or by both under
// `auto`. Every engine answers an OcrPage (words with boxes, baselines, sizes and confidences), so the layout
// and extraction rules do not know which one read the page.
import type { OcrEngine } from './contract.js';
import { estimateSkew, rotate, type GreyImage } from './grey-image.js';
import { OcrSession, type OcrPage } from './ocr-engine.js';
import { paddleRecognise } from './paddle-ocr.js';

export { OCR_ENGINES, type OcrEngine } from './contract.js';

/** Skew below this (radians, about 0.2°) is left alone: turning the image would only blur it. */
const MIN_SKEW = 0.0035;

/** The page image level: turned back by the skew its text lines show. */
export function deskew(img: GreyImage): GreyImage {
  const angle = estimateSkew(img);
  return Math.abs(angle) >= MIN_SKEW ? rotate(img, angle) : img;
}

/** Grey pixels as a binary PGM, which Tesseract (Leptonica) reads without decoding work. */
function pgm(img: GreyImage): Uint8Array {
  const header = new TextEncoder().encode(`P5\n${img.width} ${img.height}\n255\n`);
  const out = new Uint8Array(header.length + img.data.length);
  out.set(header);
  out.set(img.data, header.length);
  return out;
}

/**
 * The engines of one job. Tesseract workers are the job's own (up to `threads`, ended by `close`); the PP-OCR
 * sessions belong to the Lens thread and outlive the job (loaded once, on the first page that needs them).
 */
export class PageOcr {
  readonly #engine: OcrEngine;
  #tesseract: OcrSession | undefined;
  readonly #threads: number;

  constructor(engine: OcrEngine = 'auto', threads = 1) {
    this.#engine = engine;
    this.#threads = threads;
  }

  #tess(): OcrSession {
    return (this.#tesseract ??= new OcrSession(this.#threads));
  }

  /** Reads a grey page image: deskewed, then recognised by the job's engine. */
  async recognise(image: GreyImage): Promise<OcrPage> {
    const level = deskew(image);
    if (this.#engine === 'tesseract') return this.#tess().recognise(pgm(level));
    return (await paddleRecognise(level)).page;
  }

  async close(): Promise<void> {
    await this.#tesseract?.close();
  }
}
