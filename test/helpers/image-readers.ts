// Independent readers of PNG, JPEG and PGM bytes for tests: headers parsed by hand, PNG decoded with node:zlib,
// JPEG decoded by pdfjs's JPEG decoder, so no check goes through the canvas library that encoded the images.
import * as assert from 'uvu/assert';
import zlib from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  /** One grey value (0–255) per pixel, row by row. */
  grey: Uint8Array;
  /** One opacity (0–255) per pixel, row by row, when the PNG has an alpha channel. */
  alpha?: Uint8Array;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk, which must follow the signature. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.ok(bytes.subarray(0, 8).equals(PNG_SIGNATURE), 'not a PNG: the signature is missing');
  assert.is(bytes.toString('latin1', 12, 16), 'IHDR', 'the first chunk of a PNG is IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * Decodes an 8-bit, non-interlaced PNG: every chunk's CRC is checked, the IDAT stream inflated and
 * unfiltered. Throws on anything malformed, so a truncated or corrupt file fails the test.
 */
export function decodePng(bytes: Buffer): Pixels {
  const { width, height } = pngSize(bytes);
  const depth = bytes[24]!;
  const colorType = bytes[25]!;
  const interlace = bytes[28]!;
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  assert.ok(depth === 8 && channels && interlace === 0, `unsupported PNG: depth ${depth}, colour type ${colorType}, interlace ${interlace}`);
  const idat: Buffer[] = [];
  let at = 8;
  let ended = false;
  while (at < bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const crc = bytes.readUInt32BE(at + 8 + length);
    assert.is(zlib.crc32(bytes.subarray(at + 4, at + 8 + length)), crc, `CRC of the ${type} chunk at byte ${at}`);
    if (type === 'IDAT') idat.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
    if (type === 'IEND') {
      ended = true;
      break;
    }
  }
  assert.ok(ended, 'the PNG has no IEND chunk');
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels!;
  assert.is(raw.length, height * (stride + 1), 'inflated image data size');
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels! ? out[y * stride + x - channels!]! : 0;
      const b = y > 0 ? out[(y - 1) * stride + x]! : 0;
      const c = x >= channels! && y > 0 ? out[(y - 1) * stride + x - channels!]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else assert.is(filter, 0, `PNG filter type of row ${y}`);
      out[y * stride + x] = (line[x]! + predictor) & 0xff;
    }
  }
  const alpha = channels === 2 || channels === 4 ? Uint8Array.from({ length: width * height }, (_, i) => out[i * channels + channels - 1]!) : undefined;
  return { width, height, grey: toGrey(out, channels!), ...(alpha && { alpha }) };
}

/** Width, height and components from the first SOFn marker; the file must start with SOI and end with EOI. */
export function jpegSize(bytes: Buffer): { width: number; height: number; components: number } {
  assert.ok(bytes[0] === 0xff && bytes[1] === 0xd8, 'not a JPEG: SOI is missing');
  assert.ok(bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9, 'the JPEG does not end with EOI');
  let at = 2;
  while (at < bytes.length) {
    assert.is(bytes[at], 0xff, `JPEG marker expected at byte ${at}`);
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7), components: bytes[at + 9]! };
    }
    at += 2 + length;
  }
  throw new Error('the JPEG has no SOF marker');
}

/** Decodes a JPEG with pdfjs's decoder (pdfjs-dist/image_decoders), independent of the encoder. */
export async function decodeJpeg(bytes: Buffer): Promise<Pixels> {
  const { JpegImage } = await import('pdfjs-dist/image_decoders/pdf.image_decoders.mjs');
  const jpeg = new JpegImage();
  jpeg.parse(new Uint8Array(bytes));
  const rgb = jpeg.getData({ width: jpeg.width, height: jpeg.height, forceRGB: true });
  return { width: jpeg.width, height: jpeg.height, grey: toGrey(rgb, 3) };
}

/** A binary PGM (P5, 8 bit), as `pdftoppm -gray` writes it. */
export function readPgm(bytes: Buffer): Pixels {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(bytes.toString('latin1', 0, 64));
  assert.ok(header && header[3] === '255', 'not an 8-bit binary PGM');
  const width = Number(header[1]);
  const height = Number(header[2]);
  return { width, height, grey: new Uint8Array(bytes.subarray(header[0].length, header[0].length + width * height)) };
}

/**
 * Mean absolute grey difference of two images over the area they share, as a fraction of full scale. Their
 * sizes may differ by one pixel: poppler rounds a page's size up (595.28 pt at 150 dpi is 1241 px), Quire to nearest.
 */
export function meanDifference(a: Pixels, b: Pixels): number {
  assert.ok(Math.abs(a.width - b.width) <= 1 && Math.abs(a.height - b.height) <= 1, `sizes ${a.width}×${a.height} and ${b.width}×${b.height} differ by more than a pixel`);
  const width = Math.min(a.width, b.width);
  const height = Math.min(a.height, b.height);
  let sum = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) sum += Math.abs(a.grey[y * a.width + x]! - b.grey[y * b.width + x]!);
  }
  return sum / (width * height) / 255;
}

/** Share of pixels that are not white (grey below 250): tells a drawn page from a blank one. */
export function inkShare(p: Pixels): number {
  let ink = 0;
  for (const v of p.grey) if (v < 250) ink++;
  return ink / p.grey.length;
}

/** Luma (ITU-R BT.601) of RGB(A) or grey(+alpha) samples; alpha is ignored (pages are drawn on white). */
function toGrey(samples: ArrayLike<number>, channels: number): Uint8Array {
  const n = samples.length / channels;
  const grey = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * channels;
    grey[i] = channels >= 3 ? Math.round(0.299 * samples[o]! + 0.587 * samples[o + 1]! + 0.114 * samples[o + 2]!) : samples[o]!;
  }
  return grey;
}
