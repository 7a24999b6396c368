// The characters a TrueType/OpenType font maps to glyphs, read from its `cmap` table alone: the file's other
// tables (a CJK font's 10 MB of outlines) are never read. Hand-written on purpose: @pdf-lib/fontkit, the font
// library already installed, adds about 33 MB to a thread's memory just by being imported.
import { closeSync, openSync, readSync } from 'node:fs';

/** Covered code points as sorted, disjoint ranges: [start0, end0, start1, end1, …] (ends inclusive). */
export type CodePointRanges = Uint32Array;

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, position);
  if (n !== length) throw new Error('font file ends early');
  return buf;
}

/** Reads the Unicode character map of the font file at `file` (the first font of a collection). */
export function readCmapRanges(file: string): CodePointRanges {
  const fd = openSync(file, 'r');
  try {
    let base = 0;
    let head = readAt(fd, 0, 12);
    if (head.toString('latin1', 0, 4) === 'ttcf') {
      base = readAt(fd, 12, 4).readUInt32BE(0);
      head = readAt(fd, base, 12);
    }
    const numTables = head.readUInt16BE(4);
    const dir = readAt(fd, base + 12, numTables * 16);
    for (let i = 0; i < numTables; i++) {
      if (dir.toString('latin1', i * 16, i * 16 + 4) !== 'cmap') continue;
      return parseCmap(readAt(fd, dir.readUInt32BE(i * 16 + 8), dir.readUInt32BE(i * 16 + 12)));
    }
    return new Uint32Array();
  } finally {
    closeSync(fd);
  }
}

/** The best Unicode subtable: full repertoire (format 12) before the Basic Multilingual Plane (format 4). */
function parseCmap(cmap: Buffer): CodePointRanges {
  const count = cmap.readUInt16BE(2);
  let bmp = -1;
  for (let i = 0; i < count; i++) {
    const rec = 4 + i * 8;
    const platform = cmap.readUInt16BE(rec);
    const encoding = cmap.readUInt16BE(rec + 2);
    const offset = cmap.readUInt32BE(rec + 4);
    const format = cmap.readUInt16BE(offset);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    if (format === 12) return format12(cmap, offset);
    if (format === 4 && bmp < 0) bmp = offset;
  }
  return bmp >= 0 ? format4(cmap, bmp) : new Uint32Array();
}

function format12(cmap: Buffer, at: number): CodePointRanges {
  const groups = cmap.readUInt32BE(at + 12);
  const out: number[] = [];
  for (let g = 0; g < groups; g++) {
    const p = at + 16 + g * 12;
    let start = cmap.readUInt32BE(p);
    const end = cmap.readUInt32BE(p + 4);
    // A group starting at glyph 0 maps its first character to .notdef: not covered.
    if (cmap.readUInt32BE(p + 8) === 0) start++;
    if (start <= end) push(out, start, end);
  }
  return Uint32Array.from(out);
}

function format4(cmap: Buffer, at: number): CodePointRanges {
  const segments = cmap.readUInt16BE(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  const out: number[] = [];
  for (let s = 0; s < segments; s++) {
    const start = cmap.readUInt16BE(starts + s * 2);
    const end = cmap.readUInt16BE(ends + s * 2);
    const delta = cmap.readUInt16BE(deltas + s * 2);
    const rangeOffset = cmap.readUInt16BE(rangeOffsets + s * 2);
    for (let c = start; c <= end && c !== 0xffff; c++) {
      let glyph: number;
      if (rangeOffset === 0) glyph = (c + delta) & 0xffff;
      else {
        const p = rangeOffsets + s * 2 + rangeOffset + (c - start) * 2;
        glyph = p + 1 < cmap.length ? cmap.readUInt16BE(p) : 0;
        if (glyph !== 0) glyph = (glyph + delta) & 0xffff;
      }
      if (glyph !== 0) push(out, c, c);
    }
  }
  return Uint32Array.from(out);
}

/** Appends [start, end], merged with the last range when they touch (input arrives in ascending order). */
function push(out: number[], start: number, end: number): void {
  const last = out.length - 1;
  if (last > 0 && out[last]! + 1 >= start) out[last] = Math.max(out[last]!, end);
  else out.push(start, end);
}

/** Whether `cp` lies in one of the ranges (binary search). */
export function inRanges(ranges: CodePointRanges, cp: number): boolean {
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (cp < ranges[mid * 2]!) hi = mid - 1;
    else if (cp > ranges[mid * 2 + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}
