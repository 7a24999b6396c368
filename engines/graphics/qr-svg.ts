// QR codes as one crisp SVG path (merged runs of dark modules), for any renderer to embed as a vector image.
import { createRequire } from 'node:module';
import type * as QRCode from 'qrcode';

// qrcode (CommonJS) is loaded on the first QR code, not when a render thread starts: most documents have none.
const require = createRequire(import.meta.url);
let qrcodeModule: typeof QRCode | undefined;
const qrcode = (): typeof QRCode => (qrcodeModule ??= require('qrcode') as typeof QRCode);

export interface QrSvgOptions {
  /** Side length of the whole symbol, quiet zone included, in points (default 85.04 pt = 3 cm). */
  sizePt?: number;
  /** Colour of the dark modules (default #000000); the background is always white, as scanners need. */
  color?: string;
  /** Error correction level (default M). */
  errorCorrection?: 'L' | 'M' | 'Q' | 'H';
}

/** The quiet zone ISO/IEC 18004 asks for, in modules, on each side. */
const QUIET_ZONE = 4;
const DEFAULT_SIZE_PT = 85.04;
const SAFE_COLOR = /^(#[0-9a-f]{3,8}|[a-z]{3,20}|rgba?\([0-9.,%\s]+\))$/i;

/** Draws `value` (encoded as UTF-8 bytes, or a denser mode when the text allows) as a QR code; `modules` counts the symbol without its quiet zone. */
export function qrSvg(value: string, options: QrSvgOptions = {}): { svg: string; modules: number } {
  const level = options.errorCorrection ?? 'M';
  let matrix: QRCode.BitMatrix;
  try {
    matrix = qrcode().create(value, { errorCorrectionLevel: level }).modules;
  } catch (err) {
    const bytes = Buffer.byteLength(value, 'utf8');
    throw new Error(`Cannot encode a QR code of ${value.length} characters (${bytes} UTF-8 bytes) at error correction ${level}: ${(err as Error).message}`);
  }
  const size = matrix.size;
  const total = size + 2 * QUIET_ZONE;
  const sizePt = options.sizePt !== undefined && Number.isFinite(options.sizePt) && options.sizePt > 0 ? options.sizePt : DEFAULT_SIZE_PT;
  const color = options.color !== undefined && SAFE_COLOR.test(options.color) ? options.color : '#000000';

  // One subpath per horizontal run of dark modules: far fewer nodes than a rect per module, and no seams.
  let d = '';
  for (let row = 0; row < size; row++) {
    let col = 0;
    while (col < size) {
      if (!matrix.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < size && matrix.get(row, col)) col++;
      const run = col - start;
      d += `M${start + QUIET_ZONE} ${row + QUIET_ZONE}h${run}v1h-${run}z`;
    }
  }
  const pt = Math.round(sizePt * 100) / 100;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pt}pt" height="${pt}pt" viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges">` +
    `<rect width="${total}" height="${total}" fill="#ffffff"/>` +
    `<path fill="${color}" d="${d}"/>` +
    `</svg>`;
  return { svg, modules: size };
}
