// Folds the element-wise chains Paddle2ONNX leaves around PP-OCR's convolutions, before onnxruntime sees the
// model: PP-LCNetV3's learnable affine blocks (x·s + t with scalar s, t) go into the weights and bias of the
// convolution before or after them, and hard-swish, exported as Add(3) → Clip(0, 6) → Mul → Div(6), becomes
// x · HardSigmoid(x) (the only form opset 9 has; HardSwish is opset 14). Then the hard-swish gates and the scalar
// additions left go through 1×1 depthwise convolutions, so onnxruntime keeps each block in its NCHWc layout. The
// arithmetic is the same up to float rounding (outputs within 3e-6 of the original's); onnxruntime's own fusions
// miss these because the scalar sits in the Mul's first input and the chains are not a single activation.
// Against the shipped models, recognition costs 0.6–0.75 of the CPU a run, detection about 0.75 (`node
// dist/bench/lens-onnx.js`; docs/benchmarks.md, "PP-OCR's blocks kept in onnxruntime's NCHWc layout").
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { onnx as Onnx } from 'onnx-proto';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto') as { onnx: typeof Onnx };

/** Bumped whenever the folds change, so a folded file made by an older Quire is not used. */
const FOLD_VERSION = 2;
/** A fold's `.partial` file older than this was left by a process that died folding (a fold takes seconds): ms. */
const STALE_PARTIAL_MS = 10 * 60_000;

/**
 * The path of the folded copy of a model, made on first use in `<node_modules>/.cache/quire-onnx` (beside the
 * installed models, written by whoever installed them) by a short-lived thread, so that no thread that runs the
 * model holds the folding's garbage (loaded from a file, a folded model costs a thread no more memory than the
 * source: 106 MB of RSS either way with both models, 144 MB when handed over as bytes); later threads and restarts
 * load the file. The name carries a hash of the source and FOLD_VERSION. Where the folded copy cannot be written
 * (a read-only install), the source's own path: the model then runs unfolded, with the same results at its old speed.
 */
export async function foldedModel(model: string): Promise<string> {
  const source = path.resolve(model);
  const at = source.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  const dir = path.join(at >= 0 ? source.slice(0, at + `${path.sep}node_modules`.length) : path.dirname(source), '.cache', 'quire-onnx');
  const target = path.join(dir, `${path.basename(source, '.onnx')}.${contentHash(source)}.fold${FOLD_VERSION}.onnx`);
  if (existsSync(target)) return target;
  try {
    mkdirSync(dir, { recursive: true });
    removeLeftovers(dir, path.basename(source, '.onnx'), path.basename(target));
    await new Promise<void>((resolve, reject) => {
      const worker = new Worker(new URL('./onnx-fold-worker.js', import.meta.url), { workerData: { source, target } });
      worker.once('error', reject);
      worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`folding ${source} exited with ${code}`))));
    });
    return target;
  } catch {
    return source;
  }
}

/**
 * Before a model is folded: removes the folds of it that `target` supersedes (another fold version, or an earlier
 * release of the model: `<model>.<hash>.fold<n>.onnx`, 5–11 MB each), and the `.partial` files of `target`
 * (onnx-fold-worker.ts writes `<target>.<pid>.<random>.partial`, then renames it) that no fold is still writing:
 * those older than STALE_PARTIAL_MS, left when a process was killed mid-fold.
 */
function removeLeftovers(dir: string, model: string, target: string): void {
  const before = Date.now() - STALE_PARTIAL_MS;
  const escaped = model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const superseded = new RegExp(`^${escaped}\\.[0-9a-f]{16}\\.fold\\d+\\.onnx$`);
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    try {
      if (name !== target && superseded.test(name)) rmSync(file, { force: true });
      else if (name.startsWith(`${target}.`) && name.endsWith('.partial') && statSync(file).mtimeMs < before) rmSync(file, { force: true });
    } catch {
      // Renamed or removed by another fold meanwhile.
    }
  }
}

/** A file's SHA-256 (16 hex digits), read through one reused 1 MB buffer: no copy of the model stays behind. */
function contentHash(file: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(file, 'r');
  try {
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex').slice(0, 16);
}

type Node = Onnx.NodeProto;

interface Constant {
  node: Node;
  dims: number[];
  data: Float32Array;
}

/** A scalar affine step x·s + t: a Mul by a scalar constant whose only reader is an Add of a scalar constant. */
interface Affine {
  s: number;
  t: number;
  mul: Node;
  add: Node;
  /** The non-constant input of the Mul. */
  input: string;
}

/**
 * What was folded: convolutions that took an affine step after or before them, hard-swish chains rewritten, and
 * element-wise steps put through a 1×1 depthwise convolution.
 */
export interface FuseCounts {
  affineAfterConv: number;
  affineBeforeConv: number;
  hardSwish: number;
  channelwise: number;
}

/** The model with its affine steps and hard-swish chains folded and its blocks kept in NCHWc; the input bytes are not changed. */
export function fuseElementwise(bytes: Uint8Array): { bytes: Uint8Array; counts: FuseCounts } {
  const model = onnx.ModelProto.decode(bytes);
  const graph = model.graph!;
  const fold = new Folder(graph.node as Node[], new Set((graph.output ?? []).map((o) => o.name!)));
  const counts = { affineAfterConv: fold.affineAfterConv(), hardSwish: fold.hardSwish(), affineBeforeConv: fold.affineBeforeConv(), channelwise: fold.channelwise() };
  graph.node = fold.withoutUnreadConstants();
  return { bytes: onnx.ModelProto.encode(model).finish(), counts };
}

class Folder {
  private readonly constants = new Map<string, Constant>();
  private readers = new Map<string, Node[]>();
  private producers = new Map<string, Node>();
  private fresh = 0;

  constructor(
    private nodes: Node[],
    private readonly graphOutputs: Set<string>,
  ) {
    for (const n of nodes) {
      const t = n.opType === 'Constant' ? n.attribute?.[0]?.t : undefined;
      if (!t || t.dataType !== onnx.TensorProto.DataType.FLOAT) continue;
      const raw = t.rawData;
      // A copy: protobufjs may hand out a view into the whole model's buffer.
      const data = raw?.length ? new Float32Array(Uint8Array.from(raw).buffer) : Float32Array.from(t.floatData ?? []);
      this.constants.set(n.output![0]!, { node: n, dims: (t.dims ?? []).map(Number), data });
    }
  }

  /** Conv → Mul(s) → Add(t): W·s, b·s + t. */
  affineAfterConv(): number {
    this.index();
    let count = 0;
    const gone = new Set<Node>();
    const added: Node[] = [];
    for (const conv of this.nodes) {
      if (conv.opType !== 'Conv') continue;
      const step = this.affine(this.onlyReader(conv.output![0]!));
      const wb = this.ownWeights(conv);
      if (!step || !wb) continue;
      const outChannels = wb.w.dims[0]!;
      const weights = wb.w.data.map((v) => v * step.s);
      const bias = new Float32Array(outChannels).map((_, o) => (wb.b?.data[o] ?? 0) * step.s + step.t);
      this.setWeights(conv, wb, weights, bias, gone, added);
      conv.output![0] = step.add.output![0]!;
      gone.add(step.mul).add(step.add);
      count++;
    }
    this.nodes = [...added, ...this.nodes.filter((n) => !gone.has(n))];
    return count;
  }

  /** Add(x, 3) → Clip(0, 6) → Mul(x, ·) → Div(6): Mul(x, HardSigmoid(x; 1/6, 0.5)). */
  hardSwish(): number {
    this.index();
    const gone = new Set<Node>();
    const replaced = new Map<Node, Node[]>();
    for (const add of this.nodes) {
      if (add.opType !== 'Add') continue;
      const k = add.input!.findIndex((i) => this.scalar(i) === 3);
      if (k < 0) continue;
      const x = add.input![1 - k]!;
      const clip = this.onlyReader(add.output![0]!);
      if (clip?.opType !== 'Clip') continue;
      // Opset < 11 gives the bounds as attributes, later ones as inputs.
      const [lo, hi] = clip.input!.length === 1 ? [this.attribute(clip, 'min')?.f, this.attribute(clip, 'max')?.f] : [this.scalar(clip.input![1]!), this.scalar(clip.input![2]!)];
      if (lo !== 0 || hi !== 6) continue;
      const mul = this.onlyReader(clip.output![0]!);
      if (mul?.opType !== 'Mul' || !mul.input!.includes(x)) continue;
      const div = this.onlyReader(mul.output![0]!);
      if (div?.opType !== 'Div' || div.input![0] !== mul.output![0] || this.scalar(div.input![1]!) !== 6) continue;
      const gate = this.name('hard-sigmoid');
      const float = (name: string, f: number) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f });
      // In the Div's place: x is produced before the chain, so the order stays topological.
      replaced.set(div, [
        onnx.NodeProto.create({ opType: 'HardSigmoid', input: [x], output: [gate], attribute: [float('alpha', 1 / 6), float('beta', 0.5)] }),
        onnx.NodeProto.create({ opType: 'Mul', input: [x, gate], output: [div.output![0]!] }),
      ]);
      gone.add(add).add(clip).add(mul);
    }
    this.nodes = this.nodes.flatMap((n) => (gone.has(n) ? [] : (replaced.get(n) ?? [n])));
    return replaced.size;
  }

  /**
   * Mul(c) → Add(d) → Conv(W, b): Conv(c·W, b + d·ΣW) on the Mul's input when the convolution pads nothing; with
   * zero padding (where the padded border would not be d) the Add stays, as x + d/c, into Conv(c·W, b).
   */
  affineBeforeConv(): number {
    this.index();
    let count = 0;
    const gone = new Set<Node>();
    const added: Node[] = [];
    for (const mul of this.nodes) {
      const step = this.affine(mul);
      if (!step || step.s === 0) continue;
      const conv = this.onlyReader(step.add.output![0]!);
      if (conv?.opType !== 'Conv' || conv.input![0] !== step.add.output![0]) continue;
      const wb = this.ownWeights(conv);
      if (!wb) continue;
      const outChannels = wb.w.dims[0]!;
      const perOutput = wb.w.data.length / outChannels;
      const padded = (this.attribute(conv, 'pads')?.ints ?? []).some((p) => Number(p) !== 0);
      const bias = new Float32Array(outChannels).map((_, o) => {
        let sum = 0;
        if (!padded) for (let i = 0; i < perOutput; i++) sum += wb.w.data[o * perOutput + i]!;
        return (wb.b?.data[o] ?? 0) + step.t * sum;
      });
      this.setWeights(conv, wb, wb.w.data.map((v) => v * step.s), bias, gone, added);
      gone.add(step.mul);
      if (padded) {
        const k = step.add.input!.findIndex((i) => this.scalar(i) !== undefined);
        step.add.input![k] = this.constant([], [step.t / step.s], added);
        step.add.input![1 - k] = step.input;
      } else {
        conv.input![0] = step.input;
        gone.add(step.add);
      }
      count++;
    }
    this.nodes = [...added, ...this.nodes.filter((n) => !gone.has(n))];
    return count;
  }

  /**
   * HardSigmoid(x) as a hard-swish gate → HardSigmoid(Conv(x; 1)), and Add(x, c) → Conv(x; 1, c), where x is a
   * convolution's output (through element-wise steps) with C channels: a 1×1 depthwise convolution (C groups) with
   * unit weights, and the scalar as its bias — the same arithmetic. onnxruntime runs convolutions in its blocked
   * NCHWc layout and keeps Mul and Add of two such tensors in it, but not HardSigmoid or the addition of a
   * constant: each reordered its tensor to NCHW and back, about a fifth of a recogniser run. It fuses the
   * HardSigmoid into the new convolution as its activation, and the whole block stays in NCHWc.
   */
  channelwise(): number {
    this.index();
    const added: Node[] = [];
    const replaced = new Map<Node, Node[]>();
    const depthwise = (x: string, channels: number, bias: number | undefined, output: string) =>
      onnx.NodeProto.create({
        opType: 'Conv',
        input: [x, this.constant([channels, 1, 1, 1], new Float32Array(channels).fill(1), added), ...(bias === undefined ? [] : [this.constant([channels], new Float32Array(channels).fill(bias), added)])],
        output: [output],
        attribute: [
          onnx.AttributeProto.create({ name: 'group', type: onnx.AttributeProto.AttributeType.INT, i: channels }),
          onnx.AttributeProto.create({ name: 'kernel_shape', type: onnx.AttributeProto.AttributeType.INTS, ints: [1, 1] }),
        ],
      });
    for (const node of this.nodes) {
      if (node.opType === 'HardSigmoid') {
        const x = node.input![0]!;
        const mul = this.onlyReader(node.output![0]!);
        const channels = this.channels(x);
        if (mul?.opType !== 'Mul' || !mul.input!.includes(x) || !channels) continue;
        const through = this.name('channelwise');
        replaced.set(node, [depthwise(x, channels, undefined, through), node]);
        node.input![0] = through;
      } else if (node.opType === 'Add') {
        const k = node.input!.findIndex((i) => this.scalar(i) !== undefined);
        const channels = k < 0 ? undefined : this.channels(node.input![1 - k]!);
        if (!channels) continue;
        replaced.set(node, [depthwise(node.input![1 - k]!, channels, this.scalar(node.input![k]!), node.output![0]!)]);
      }
    }
    this.nodes = [...added, ...this.nodes.flatMap((n) => replaced.get(n) ?? [n])];
    return replaced.size;
  }

  /** The nodes, without the constants nothing reads any more. */
  withoutUnreadConstants(): Node[] {
    this.index();
    return this.nodes.filter((n) => n.opType !== 'Constant' || this.readers.has(n.output![0]!));
  }

  private index(): void {
    this.readers = new Map();
    this.producers = new Map();
    for (const n of this.nodes) {
      for (const o of n.output ?? []) this.producers.set(o, n);
      for (const i of n.input ?? []) {
        const list = this.readers.get(i);
        if (list) list.push(n);
        else this.readers.set(i, [n]);
      }
    }
  }

  /** The one node reading a value that is not a graph output, if it has exactly one. */
  private onlyReader(name: string): Node | undefined {
    const readers = this.readers.get(name);
    return readers?.length === 1 && !this.graphOutputs.has(name) ? readers[0] : undefined;
  }

  /**
   * The channels of a convolution's output, read through the element-wise steps after it (their other inputs are
   * constants or per-channel gates of the same channels); undefined for any other value.
   */
  private channels(name: string): number | undefined {
    for (let depth = 0, node = this.producers.get(name); node && depth < 8; depth++) {
      if (node.opType === 'Conv') return this.constants.get(node.input![1]!)?.dims[0];
      if (!['Mul', 'Add', 'HardSigmoid', 'Relu'].includes(node.opType!)) return undefined;
      const x: string | undefined = node.input!.find((i) => !this.constants.has(i));
      node = x === undefined ? undefined : this.producers.get(x);
    }
    return undefined;
  }

  private scalar(name: string): number | undefined {
    const c = this.constants.get(name);
    return c?.data.length === 1 ? c.data[0] : undefined;
  }

  private attribute(node: Node, name: string): Onnx.IAttributeProto | undefined {
    return node.attribute?.find((a) => a.name === name);
  }

  private affine(mul: Node | undefined): Affine | undefined {
    if (mul?.opType !== 'Mul') return undefined;
    const k = mul.input!.findIndex((i) => this.scalar(i) !== undefined);
    if (k < 0) return undefined;
    const add = this.onlyReader(mul.output![0]!);
    if (add?.opType !== 'Add') return undefined;
    const j = add.input!.findIndex((i) => this.scalar(i) !== undefined);
    if (j < 0 || add.input![1 - j] !== mul.output![0]) return undefined;
    return { s: this.scalar(mul.input![k]!)!, t: this.scalar(add.input![j]!)!, mul, add, input: mul.input![1 - k]! };
  }

  /** A convolution's constant weights and bias, when nothing else reads them (so they can be changed). */
  private ownWeights(conv: Node): { w: Constant; b?: Constant } | undefined {
    const [, wName, bName] = conv.input!;
    const w = this.constants.get(wName!);
    if (!w || this.readers.get(wName!)!.length !== 1) return undefined;
    if (!bName) return { w };
    const b = this.constants.get(bName);
    return b && this.readers.get(bName)!.length === 1 ? { w, b } : undefined;
  }

  private setWeights(conv: Node, old: { w: Constant; b?: Constant }, weights: Float32Array, bias: Float32Array, gone: Set<Node>, added: Node[]): void {
    conv.input = [conv.input![0]!, this.constant(old.w.dims, weights, added), this.constant([old.w.dims[0]!], bias, added)];
    gone.add(old.w.node);
    if (old.b) gone.add(old.b.node);
  }

  private constant(dims: number[], values: ArrayLike<number>, added: Node[]): string {
    const name = this.name('constant');
    const data = Float32Array.from(values);
    const t = onnx.TensorProto.create({ dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(data.buffer) });
    const node = onnx.NodeProto.create({ opType: 'Constant', output: [name], attribute: [onnx.AttributeProto.create({ name: 'value', type: onnx.AttributeProto.AttributeType.TENSOR, t })] });
    this.constants.set(name, { node, dims, data });
    added.push(node);
    return name;
  }

  private name(kind: string): string {
    return `quire.fused.${kind}.${this.fresh++}`;
  }
}
