// Reads and writes the ZIP containers of DOCX and ODT with hard limits: entry count, sizes and compression ratio, checked before and while inflating.
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

export interface PackageLimits {
  /** Entries in the archive. */
  maxEntries: number;
  /** Sum of the uncompressed sizes of all entries. */
  maxUncompressedBytes: number;
  /** Uncompressed ÷ compressed size of one entry (zip bombs inflate thousands of times). */
  maxCompressionRatio: number;
}

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = { maxEntries: 2000, maxUncompressedBytes: 256 * 1024 * 1024, maxCompressionRatio: 200 };

/** A package that breaks a limit or is not a readable ZIP; `message` says which and by how much. */
export class PackageError extends Error {
  override name = 'PackageError';
  constructor(
    readonly reason: 'INVALID' | 'LIMIT',
    message: string,
  ) {
    super(message);
  }
}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  /** The compressed bytes as they are in the archive (copied unchanged into the output when not modified). */
  raw: Uint8Array;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;

/** Lists the entries of a ZIP from its central directory, refusing it when a limit is broken. */
export function readZip(bytes: Uint8Array, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(view);
  const count = view.getUint16(end + 10, true);
  const dirSize = view.getUint32(end + 12, true);
  const dirOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || dirOffset === 0xffffffff) throw new PackageError('INVALID', 'is a ZIP64 archive; office documents of this size are not accepted.');
  if (count > limits.maxEntries) throw new PackageError('LIMIT', `has ${count} entries; at most ${limits.maxEntries} are accepted.`);
  if (dirOffset + dirSize > bytes.byteLength) throw new PackageError('INVALID', 'is not a complete ZIP archive (its directory points past the end of the file).');
  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  let total = 0;
  let p = dirOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.byteLength || view.getUint32(p, true) !== SIG_CENTRAL) throw new PackageError('INVALID', 'has a damaged ZIP directory.');
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const crc = view.getUint32(p + 16, true);
    const compressedSize = view.getUint32(p + 20, true);
    const size = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const localOffset = view.getUint32(p + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(p + 46, p + 46 + nameLen));
    p += 46 + nameLen + extraLen + commentLen;
    if (flags & 1) throw new PackageError('INVALID', `is encrypted (entry ${name}); remove the password and upload it again.`);
    if (method !== 0 && method !== 8) throw new PackageError('INVALID', `uses ZIP compression method ${method} for ${name}; only stored and deflated entries are read.`);
    if (names.has(name)) throw new PackageError('INVALID', `has two entries named ${name}.`);
    names.add(name);
    total += size;
    if (total > limits.maxUncompressedBytes) throw new PackageError('LIMIT', `unpacks to more than ${limits.maxUncompressedBytes} bytes; that is the limit.`);
    if (method === 8 && size > 1024 * 1024 && size / Math.max(1, compressedSize) > limits.maxCompressionRatio) {
      throw new PackageError('LIMIT', `entry ${name} inflates ${Math.round(size / Math.max(1, compressedSize))} times (${compressedSize} → ${size} bytes); at most ${limits.maxCompressionRatio} times is accepted (a zip bomb?).`);
    }
    if (localOffset + 30 > bytes.byteLength || view.getUint32(localOffset, true) !== SIG_LOCAL) throw new PackageError('INVALID', `has a damaged entry ${name}.`);
    const dataStart = localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
    if (dataStart + compressedSize > bytes.byteLength) throw new PackageError('INVALID', `has a truncated entry ${name}.`);
    entries.push({ name, method, crc, compressedSize, size, raw: bytes.subarray(dataStart, dataStart + compressedSize) });
  }
  return entries;
}

function findEnd(view: DataView): number {
  const min = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let i = view.byteLength - 22; i >= min; i--) if (view.getUint32(i, true) === SIG_END) return i;
  throw new PackageError('INVALID', 'is not a ZIP archive (DOCX and ODT files are ZIP packages).');
}

/** The bytes of one entry; inflating stops at its declared size, so a lying header cannot make it a bomb. */
export function entryBytes(entry: ZipEntry): Uint8Array {
  if (entry.method === 0) {
    if (entry.raw.byteLength !== entry.size) throw new PackageError('INVALID', `has a damaged entry ${entry.name}.`);
    return entry.raw;
  }
  let out: Buffer;
  try {
    out = inflateRawSync(entry.raw, { maxOutputLength: Math.max(1, entry.size) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new PackageError('LIMIT', `entry ${entry.name} inflates past the size its header declares (${entry.size} bytes); refused as a zip bomb.`);
    throw new PackageError('INVALID', `has a damaged entry ${entry.name} (${(err as Error).message}).`);
  }
  if (out.byteLength !== entry.size || crc32(out) !== entry.crc) throw new PackageError('INVALID', `has a damaged entry ${entry.name} (its size or checksum does not match).`);
  return out;
}

/** An entry to write: unchanged (its raw compressed bytes are copied) or new content. */
export type OutEntry = { entry: ZipEntry } | { name: string; bytes: Uint8Array; store?: boolean };

/** Writes a ZIP; new content is deflated unless `store` (ODF's `mimetype` must be stored). */
export function writeZip(out: OutEntry[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const item of out) {
    let e: Omit<ZipEntry, 'raw'> & { raw: Uint8Array };
    if ('entry' in item) e = item.entry;
    else {
      const deflate = !item.store && item.bytes.byteLength > 64;
      const raw = deflate ? deflateRawSync(item.bytes, { level: 6 }) : item.bytes;
      e = { name: item.name, method: deflate ? 8 : 0, crc: crc32(item.bytes), compressedSize: raw.byteLength, size: item.bytes.byteLength, raw };
    }
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(SIG_LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00: the same input gives the same bytes
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.compressedSize, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.byteLength, 26);
    local.writeUInt16LE(0, 28);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(SIG_CENTRAL, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(e.method, 10);
    cd.writeUInt32LE(0x00210000, 12);
    cd.writeUInt32LE(e.crc >>> 0, 16);
    cd.writeUInt32LE(e.compressedSize, 20);
    cd.writeUInt32LE(e.size, 24);
    cd.writeUInt16LE(name.byteLength, 28);
    cd.writeUInt32LE(offset, 42);
    chunks.push(local, name, e.raw);
    central.push(cd, name);
    offset += 30 + name.byteLength + e.raw.byteLength;
  }
  const dirSize = central.reduce((n, c) => n + c.byteLength, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(SIG_END, 0);
  end.writeUInt16LE(out.length, 8);
  end.writeUInt16LE(out.length, 10);
  end.writeUInt32LE(dirSize, 12);
  end.writeUInt32LE(offset, 16);
  const all = Buffer.concat([...chunks, ...central, end]);
  // A fresh array over its own buffer, so it can be moved (not copied) between threads.
  return new Uint8Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength));
}
