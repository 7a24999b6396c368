// Checks raw PDF bytes before any parser sees them: object nesting depth and Flate streams that inflate without bound.
import zlib from 'node:zlib';

/** Deepest `[`/`<<` nesting accepted (qpdf's limit is similar); real documents stay far below it. */
export const MAX_OBJECT_NESTING = 500;
/** A stream inflating past this many bytes, and past MAX_INFLATE_RATIO times its size, is a bomb. */
export const BOMB_FLOOR_BYTES = 64 * 2 ** 20;
/** Real content, fonts and images inflate 2-20 times; a bomb inflates about 1000 times. */
export const MAX_INFLATE_RATIO = 100;
/** Deflate cannot expand data by more than ~1032:1, so smaller streams cannot reach the floor. */
const MAX_DEFLATE_EXPANSION = 1032;
/** Nested Flate layers followed when inflating one stream ([/FlateDecode /FlateDecode] bombs). */
const MAX_FLATE_LAYERS = 3;

export interface RawScan {
  /** Some object nests deeper than MAX_OBJECT_NESTING. */
  tooDeep: boolean;
  /** Byte ranges of zlib stream data that could inflate past the bomb floor: big ones, and any with nested Flate filters. */
  flateCandidates: Array<{ start: number; end: number }>;
}

/**
 * One linear pass over the bytes outside streams and strings: counts `[`/`<<` nesting (restarting at
 * every `endobj`, so stray brackets in junk between objects do not add up) and notes big zlib streams.
 * Stream bodies are jumped over with a native search, so the pass costs little next to parsing.
 */
export function scanRawPdf(bytes: Uint8Array): RawScan {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const flateCandidates: RawScan['flateCandidates'] = [];
  const minCandidate = Math.ceil(BOMB_FLOOR_BYTES / MAX_DEFLATE_EXPANSION);
  const n = buf.length;
  let depth = 0;
  let i = 0;
  while (i < n) {
    const c = buf[i]!;
    if (c === 0x5b /* [ */) {
      if (++depth > MAX_OBJECT_NESTING) return { tooDeep: true, flateCandidates };
    } else if (c === 0x5d /* ] */) {
      if (depth > 0) depth--;
    } else if (c === 0x3c /* < */) {
      if (buf[i + 1] === 0x3c) {
        if (++depth > MAX_OBJECT_NESTING) return { tooDeep: true, flateCandidates };
        i += 2;
        continue;
      }
      const end = buf.indexOf(0x3e /* > */, i + 1); // hex string
      i = end < 0 ? n : end + 1;
      continue;
    } else if (c === 0x3e /* > */) {
      if (buf[i + 1] === 0x3e) {
        if (depth > 0) depth--;
        i += 2;
        continue;
      }
    } else if (c === 0x28 /* ( */) {
      i = skipLiteralString(buf, i);
      continue;
    } else if (c === 0x25 /* % */) {
      while (i < n && buf[i] !== 0x0a && buf[i] !== 0x0d) i++;
      continue;
    } else if (c === 0x73 /* s */ && isKeywordAt(buf, i, 'stream')) {
      let start = i + 6;
      if (buf[start] === 0x0d) start++;
      if (buf[start] === 0x0a) start++;
      const end = buf.indexOf('endstream', start, 'latin1');
      if (end < 0) break; // unterminated stream: the parser reports it
      if (isZlibHeader(buf[start], buf[start + 1]) && (end - start >= minCandidate || declaresNestedFlate(buf, i))) flateCandidates.push({ start, end });
      i = end + 9;
      depth = 0;
      continue;
    } else if (c === 0x65 /* e */ && isKeywordAt(buf, i, 'endobj')) {
      depth = 0;
      i += 6;
      continue;
    }
    i++;
  }
  return { tooDeep: false, flateCandidates };
}

export interface BombReport {
  /** `4 0 R` when the object header before the stream could be read. */
  object: string | null;
  compressedBytes: number;
  /** The inflated size it was stopped at. */
  limitBytes: number;
}

/** Inflates each candidate, discarding the output, and stops at the first that passes its limit. */
export async function findDecompressionBomb(bytes: Uint8Array, candidates: RawScan['flateCandidates']): Promise<BombReport | null> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const { start, end } of candidates) {
    const compressedBytes = end - start;
    const limitBytes = Math.max(BOMB_FLOOR_BYTES, compressedBytes * MAX_INFLATE_RATIO);
    if (await inflatesBeyond(buf.subarray(start, end), limitBytes)) {
      return { object: objectBefore(buf, start), compressedBytes, limitBytes };
    }
  }
  return null;
}

/**
 * Streams the data through zlib, following further zlib layers found in the output, and answers
 * whether any layer's output passes `limit`. Corrupt data is not a bomb: readers stop where it breaks.
 */
function inflatesBeyond(data: Buffer, limit: number): Promise<boolean> {
  return new Promise((resolve) => {
    const all: zlib.Inflate[] = [];
    let open = 0;
    let settled = false;
    const finish = (verdict: boolean) => {
      if (settled) return;
      settled = true;
      for (const z of all) z.destroy();
      resolve(verdict);
    };
    const addStage = (layer: number): { z: zlib.Inflate; dead: boolean } => {
      const stage = { z: zlib.createInflate({ chunkSize: 1 << 20 }), dead: false };
      all.push(stage.z);
      open++;
      let total = 0;
      let next: { z: zlib.Inflate; dead: boolean } | null | undefined; // undefined: not decided; null: plain data
      const close = () => {
        if (stage.dead) return;
        stage.dead = true;
        if (next && !next.dead) next.z.end();
        if (--open === 0) finish(false);
      };
      stage.z.on('error', close);
      stage.z.on('end', close);
      stage.z.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > limit) return finish(true);
        if (next === undefined) next = layer < MAX_FLATE_LAYERS && isZlibHeader(chunk[0], chunk[1]) ? addStage(layer + 1) : null;
        if (next && !next.dead) next.z.write(chunk);
      });
      return stage;
    };
    addStage(1).z.end(data);
  });
}

/**
 * Whether the dictionary before the `stream` keyword at `at` lists FlateDecode twice or more: each
 * layer multiplies the expansion, so such a stream is checked whatever its size.
 */
function declaresNestedFlate(buf: Buffer, at: number): boolean {
  const from = Math.max(0, buf.lastIndexOf(' obj', at, 'latin1'), at - 4096);
  const first = buf.indexOf('FlateDecode', from, 'latin1');
  const second = first < 0 ? -1 : buf.indexOf('FlateDecode', first + 11, 'latin1');
  return second >= 0 && second < at;
}

function isZlibHeader(cmf: number | undefined, flg: number | undefined): boolean {
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && (cmf * 256 + flg) % 31 === 0;
}

function objectBefore(buf: Buffer, streamStart: number): string | null {
  const at = buf.lastIndexOf(' obj', streamStart, 'latin1');
  if (at < 0) return null;
  const m = /(\d+)\s+(\d+)\s*$/.exec(buf.subarray(Math.max(0, at - 24), at).toString('latin1'));
  return m ? `${m[1]} ${m[2]} R` : null;
}

function skipLiteralString(buf: Buffer, start: number): number {
  let parens = 0;
  let i = start;
  while (i < buf.length) {
    const c = buf[i]!;
    if (c === 0x5c /* \ */) i += 2;
    else {
      if (c === 0x28) parens++;
      else if (c === 0x29 && --parens === 0) return i + 1;
      i++;
    }
  }
  return i;
}

function isKeywordAt(buf: Buffer, i: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (buf[i + k] !== word.charCodeAt(k)) return false;
  const before = i > 0 ? buf[i - 1]! : 0x20;
  const after = buf[i + word.length] ?? 0x20;
  return isDelimiterOrSpace(before) && isDelimiterOrSpace(after);
}

function isDelimiterOrSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00 || c === 0x3e /* > */ || c === 0x5d /* ] */ || c === 0x29 /* ) */;
}
