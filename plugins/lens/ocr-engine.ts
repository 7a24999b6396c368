// Tesseract (tesseract.js, WebAssembly) for pages without a text layer. Everything is local: the core and
// worker script come from node_modules, the English LSTM model from @tesseract.js-data/eng; nothing is
// downloaded and no cache file is written. tesseract.js runs its own worker thread inside this plugin's
// worker thread, so a crash fails only the job.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Worker as TesseractWorker } from 'tesseract.js';

const require = createRequire(import.meta.url);
/** The integer-quantised LSTM model: the one tesseract.js picks for OEM LSTM_ONLY, fast and accurate. */
const LANG_PATH = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

/**
 * A Tesseract engine for the scanned pages of one job: created on the first such page, ended with the job
 * (`close`), so nothing of one job's recognition can reach the next.
 */
export class OcrSession {
  #worker: Promise<TesseractWorker> | undefined;

  /** Recognises a page image (PNG bytes); returns its text with paragraphs separated by blank lines. */
  async recognise(png: Uint8Array): Promise<string> {
    this.#worker ??= (async () => {
      const { createWorker, OEM } = await import('tesseract.js');
      return createWorker('eng', OEM.LSTM_ONLY, { langPath: LANG_PATH, cacheMethod: 'none', gzip: true });
    })();
    const w = await this.#worker;
    const { data } = await w.recognize(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
    return data.text;
  }

  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = undefined;
    if (w) await (await w.catch(() => null))?.terminate().catch(() => undefined);
  }
}
