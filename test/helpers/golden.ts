// Golden images: the first page of a PDF rasterised by poppler, compared with a stored PNG within a tolerance.
//
// Goldens live in test/fixtures/golden/<case>.png. After an intended layout change, rewrite them with
//   QUIRE_UPDATE_GOLDEN=1 node scripts/run-tests.mjs <test file>
// then look at the changed PNGs before committing them (docs/setup.md, "Golden images").
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { ROOT } from './quire-server.js';

export const GOLDEN_DIR = path.join(ROOT, 'test/fixtures/golden');
const UPDATE = process.env.QUIRE_UPDATE_GOLDEN === '1';
/** Low resolution keeps the goldens small (a page is 331 × 468 px) and ignores sub-pixel noise. */
export const DPI = 40;
// Renders are byte-for-byte reproducible here, so the tolerance only has to absorb another poppler's
// anti-aliasing. Pages are mostly white: moving a whole page's content down by 1 mm changes about 1 % of
// its pixels by more than 64 (0.6 % mean difference), a completely different page about 2 %. A changed
// word is below any raster tolerance at 40 dpi; the pdftotext checks catch that.
/** Mean absolute grey difference, as a fraction of full scale. */
const MAX_MEAN_DIFF = 0.005;
/** Share of pixels whose grey differs by more than 64 of 255. */
const MAX_CHANGED_SHARE = 0.002;

export function run(cmd: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'buffer', maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${stderr.toString()}`));
      else resolve(stdout);
    });
  });
}

export async function firstPagePng(file: string): Promise<Buffer> {
  const prefix = `${file}-page`;
  await run('pdftoppm', ['-r', String(DPI), '-gray', '-png', '-f', '1', '-l', '1', '-singlefile', file, prefix]);
  return readFileSync(`${prefix}.png`);
}

export async function greyPixels(bytes: Buffer): Promise<{ width: number; height: number; grey: Uint8Array }> {
  const image = await loadImage(bytes);
  const canvas = createCanvas(image.width, image.height);
  const g = canvas.getContext('2d');
  g.drawImage(image, 0, 0);
  const rgba = g.getImageData(0, 0, image.width, image.height).data;
  const grey = new Uint8Array(image.width * image.height);
  for (let i = 0; i < grey.length; i++) grey[i] = rgba[i * 4]!;
  return { width: image.width, height: image.height, grey };
}

export interface GoldenOptions {
  /** The stored file's type: png, or jpg for the JPEG page images of POST /render/images. */
  ext?: 'png' | 'jpg';
  /** Reads both images to grey pixels; page images pass a reader independent of the canvas that encoded them. */
  decode?: (bytes: Buffer) => Promise<{ width: number; height: number; grey: Uint8Array }>;
}

export async function compareWithGolden(name: string, actual: Buffer, { ext = 'png', decode = greyPixels }: GoldenOptions = {}): Promise<void> {
  const golden = path.join(GOLDEN_DIR, `${name}.${ext}`);
  if (UPDATE) {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(golden, actual);
    return;
  }
  assert.ok(existsSync(golden), `no golden image ${path.relative(ROOT, golden)}: run once with QUIRE_UPDATE_GOLDEN=1, look at it, and commit it`);
  const [a, b] = await Promise.all([decode(actual), decode(readFileSync(golden))]);
  const keep = () => {
    const dir = path.join(os.tmpdir(), 'quire-golden-actual');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${name}.${ext}`), actual);
    return path.join(dir, `${name}.${ext}`);
  };
  if (a.width !== b.width || a.height !== b.height) {
    assert.unreachable(`${name}: page is ${a.width}×${a.height} px, golden ${b.width}×${b.height} px (actual kept at ${keep()})`);
  }
  let sum = 0;
  let changed = 0;
  for (let i = 0; i < a.grey.length; i++) {
    const d = Math.abs(a.grey[i]! - b.grey[i]!);
    sum += d;
    if (d > 64) changed++;
  }
  const mean = sum / a.grey.length / 255;
  const share = changed / a.grey.length;
  if (mean >= MAX_MEAN_DIFF || share >= MAX_CHANGED_SHARE) {
    assert.unreachable(
      `${name}: first page differs from its golden (mean grey difference ${(mean * 100).toFixed(2)} %, limit ${MAX_MEAN_DIFF * 100} %; ` +
        `${(share * 100).toFixed(2)} % of pixels changed by more than 64, limit ${MAX_CHANGED_SHARE * 100} %). ` +
        `Actual page kept at ${keep()}; if the change is intended, rerun with QUIRE_UPDATE_GOLDEN=1.`,
    );
  }
}
