// encodeCanvas holds the canvas until its async encode ends: canvases dropped mid-encode and collected at once do
// not crash the process (@napi-rs/canvas 0.1's raw encode() does, with SIGSEGV).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createCanvas } from '@napi-rs/canvas';
import { encodeCanvas } from '../../engines/image/encode-canvas.js';
import { pngSize } from '../helpers/image-readers.js';

const SELF = fileURLToPath(import.meta.url);

/** Run in a child with --expose-gc: 20 rounds of 16 encodes whose canvases nobody holds, collected mid-encode. */
async function stress(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const encodeDropped = () => {
    const canvas = createCanvas(600, 600);
    canvas.getContext('2d').fillRect(0, 0, 600, 600);
    return encodeCanvas(canvas, 'webp', 80);
  };
  for (let round = 0; round < 20; round++) {
    const encodes = Array.from({ length: 16 }, encodeDropped);
    gc();
    const out = await Promise.all(encodes);
    gc();
    if (!out.every((b) => b.subarray(8, 12).toString('latin1') === 'WEBP')) throw new Error('not a WebP');
  }
  process.stdout.write('STRESS-OK\n');
}

if (process.argv[2] === 'stress') {
  await stress();
} else {
  test('survives canvases collected while their encodes run (each answers a WebP)', () => {
    const run = spawnSync(process.execPath, ['--expose-gc', SELF, 'stress'], { encoding: 'utf8', timeout: 120_000 });
    assert.is(run.signal, null, `killed by ${run.signal}: ${run.stderr}`);
    assert.is(run.status, 0, run.stderr);
    assert.match(run.stdout, 'STRESS-OK');
  });

  test('encodes PNG and JPEG of the drawn size', async () => {
    const canvas = createCanvas(30, 20);
    canvas.getContext('2d').fillRect(0, 0, 30, 20);
    assert.equal(pngSize(await encodeCanvas(canvas, 'png')), { width: 30, height: 20 });
    const jpeg = await encodeCanvas(canvas, 'jpeg', 90);
    assert.equal([...jpeg.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  });

  test.run();
}
