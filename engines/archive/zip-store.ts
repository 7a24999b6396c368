// A ZIP of already-compressed parts (split PDFs, page images), stored without compression, in one synchronous pass (JSZip yields to the event loop per chunk).
import zlib from 'node:zlib';

export interface ZipEntry {
  /** ASCII file name (`page-3.pdf`, `pages-1-3_2.pdf`, `page-3.png`). */
  name: string;
  bytes: Uint8Array;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Version 1.0: stored entries need nothing newer. */
const VERSION_NEEDED = 10;
const MAX_ENTRIES = 0xffff;
const MAX_SIZE = 0xffffffff;

/**
 * A ZIP of `entries`, stored (method 0), stamped with the current time: PDF page content and PNG/JPEG
 * data are compressed already, so deflating them again costs more than it saves. Outside ZIP64's range
 * (65,535 entries, 4 GiB) it throws; a split or a page-image render never comes near either.
 */
export function storedZip(entries: readonly ZipEntry[], now = new Date()): Uint8Array {
  if (entries.length > MAX_ENTRIES) throw new Error(`A ZIP without ZIP64 holds at most ${MAX_ENTRIES} entries.`);
  const time = (now.getUTCHours() << 11) | (now.getUTCMinutes() << 5) | (now.getUTCSeconds() >> 1);
  const date = ((Math.max(now.getUTCFullYear(), 1980) - 1980) << 9) | ((now.getUTCMonth() + 1) << 5) | now.getUTCDate();
  const names = entries.map((e) => Buffer.from(e.name, 'latin1'));
  const dataSize = entries.reduce((sum, e, i) => sum + 30 + names[i]!.length + e.bytes.length, 0);
  const directorySize = names.reduce((sum, name) => sum + 46 + name.length, 0);
  const total = dataSize + directorySize + 22;
  if (dataSize > MAX_SIZE) throw new Error('A ZIP without ZIP64 holds at most 4 GiB.');

  const out = Buffer.alloc(total);
  const directory: Array<{ offset: number; crc: number }> = [];
  let at = 0;
  entries.forEach(({ bytes }, i) => {
    const name = names[i]!;
    const crc = zlib.crc32(bytes);
    directory.push({ offset: at, crc });
    out.writeUInt32LE(LOCAL_HEADER, at);
    out.writeUInt16LE(VERSION_NEEDED, at + 4);
    // at + 6 flags and at + 8 method (stored) stay 0.
    out.writeUInt16LE(time, at + 10);
    out.writeUInt16LE(date, at + 12);
    out.writeUInt32LE(crc, at + 14);
    out.writeUInt32LE(bytes.length, at + 18);
    out.writeUInt32LE(bytes.length, at + 22);
    out.writeUInt16LE(name.length, at + 26);
    name.copy(out, at + 30);
    out.set(bytes, at + 30 + name.length);
    at += 30 + name.length + bytes.length;
  });
  const directoryOffset = at;
  entries.forEach(({ bytes }, i) => {
    const name = names[i]!;
    out.writeUInt32LE(CENTRAL_HEADER, at);
    out.writeUInt16LE(VERSION_NEEDED, at + 4); // made by: MS-DOS, 1.0
    out.writeUInt16LE(VERSION_NEEDED, at + 6);
    out.writeUInt16LE(time, at + 12);
    out.writeUInt16LE(date, at + 14);
    out.writeUInt32LE(directory[i]!.crc, at + 16);
    out.writeUInt32LE(bytes.length, at + 20);
    out.writeUInt32LE(bytes.length, at + 24);
    out.writeUInt16LE(name.length, at + 28);
    out.writeUInt32LE(directory[i]!.offset, at + 42);
    name.copy(out, at + 46);
    at += 46 + name.length;
  });
  out.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, at);
  out.writeUInt16LE(entries.length, at + 8);
  out.writeUInt16LE(entries.length, at + 10);
  out.writeUInt32LE(directorySize, at + 12);
  out.writeUInt32LE(directoryOffset, at + 16);
  // A Buffer this big owns its memory (no pool slice), so the worker can move it.
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
