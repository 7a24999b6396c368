// Runs in a short-lived thread of its own: folds one model (onnx-fuse.ts) and writes it where `foldedModel` keeps
// it. Decoding and re-encoding a model leaves tens of MB of garbage and buffers behind; here they end with the thread
// instead of staying in the Lens thread that loads the model.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { fuseElementwise } from './onnx-fuse.js';

const { source, target } = workerData as { source: string; target: string };
// Written aside and renamed: a reader sees the whole file or none, and two threads folding at once both succeed.
const partial = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
writeFileSync(partial, fuseElementwise(readFileSync(source)).bytes);
renameSync(partial, target);
