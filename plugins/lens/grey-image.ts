// Grey page images for OCR (one byte a pixel, as PdfRasteriser.grey draws them): skew estimation by projection
// profiles, rotation about the centre, cropping and bilinear resizing — all the image work the two OCR engines need.

export interface GreyImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Skew searched within ±MAX_SKEW_DEGREES: a sheet fed askew, not a page turned on its side. */
const MAX_SKEW_DEGREES = 6;
/** The profile is measured on a copy this wide at most (enough to resolve 0.05° over a page). */
const PROFILE_WIDTH = 1000;

/**
 * The skew of the text lines in radians (positive: lines fall to the right, as in OcrPage.skew), from
 * projection profiles: the dark pixels are projected onto the vertical axis along lines of each candidate
 * slope, and the slope whose profile is sharpest (largest sum of squared row counts) is that of the text
 * lines, which then fall into few rows with white gaps between them. Coarse 0.25° steps, then 0.05° steps.
 */
export function estimateSkew(img: GreyImage): number {
  const step = Math.max(1, Math.ceil(img.width / PROFILE_WIDTH));
  const threshold = darkThreshold(img, step);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < img.height; y += step) {
    const row = y * img.width;
    for (let x = 0; x < img.width; x += step) {
      if (img.data[row + x]! < threshold) {
        xs.push(x / step);
        ys.push(y / step);
      }
    }
  }
  if (xs.length < 50) return 0;
  const rows = Math.ceil(img.height / step) + Math.ceil(img.width / step) + 2;
  const offset = Math.ceil(img.width / step) * Math.tan((MAX_SKEW_DEGREES * Math.PI) / 180) + 1;
  const profile = new Float64Array(rows);
  const sharpness = (degrees: number): number => {
    const t = Math.tan((degrees * Math.PI) / 180);
    profile.fill(0);
    for (let k = 0; k < xs.length; k++) {
      const r = Math.round(ys[k]! - xs[k]! * t + offset);
      if (r >= 0 && r < rows) profile[r]!++;
    }
    let sum = 0;
    for (let r = 0; r < rows; r++) sum += profile[r]! * profile[r]!;
    return sum;
  };
  const search = (from: number, to: number, by: number): number => {
    let best = 0;
    let bestScore = -1;
    for (let d = from; d <= to + 1e-9; d += by) {
      const s = sharpness(d);
      if (s > bestScore) [best, bestScore] = [d, s];
    }
    return best;
  };
  const coarse = search(-MAX_SKEW_DEGREES, MAX_SKEW_DEGREES, 0.25);
  const fine = search(coarse - 0.25, coarse + 0.25, 0.05);
  return (fine * Math.PI) / 180;
}

/** Otsu's threshold over a sample of the pixels: ink below, paper above. */
function darkThreshold(img: GreyImage, step: number): number {
  const hist = new Float64Array(256);
  let n = 0;
  for (let y = 0; y < img.height; y += step) for (let x = 0; x < img.width; x += step, n++) hist[img.data[y * img.width + x]!]!++;
  let total = 0;
  for (let i = 0; i < 256; i++) total += i * hist[i]!;
  let sumB = 0;
  let wB = 0;
  let best = 128;
  let bestVar = -1;
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!;
    if (wB === 0) continue;
    const wF = n - wB;
    if (wF === 0) break;
    sumB += t * hist[t]!;
    const mB = sumB / wB;
    const mF = (total - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > bestVar) [bestVar, best] = [between, t];
  }
  return best + 1;
}

/**
 * The image turned by `-angle` about its centre (so lines that fell by `angle` become level), same size,
 * uncovered corners white; bilinear sampling.
 */
export function rotate(img: GreyImage, angle: number): GreyImage {
  const { width, height, data } = img;
  const out = new Uint8Array(width * height).fill(255);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const cx = width / 2;
  const cy = height / 2;
  for (let y = 0; y < height; y++) {
    const dy = y - cy;
    // Source of (x, y): the point turned back by +angle.
    let sx = cx - cx * cos - dy * sin;
    let sy = cy - cx * sin + dy * cos;
    for (let x = 0; x < width; x++, sx += cos, sy += sin) {
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 >= width - 1 || y0 >= height - 1) continue;
      const i = y0 * width + x0;
      const a = data[i]!;
      const b = data[i + 1]!;
      const c = data[i + width]!;
      const d = data[i + width + 1]!;
      // Four equal neighbours (paper, mostly) give themselves: the same value the sum below gives, about 0.6 of the
      // time of an A4 page's turn on a white page.
      if (a === b && a === c && a === d) {
        out[y * width + x] = a;
        continue;
      }
      const fx = sx - x0;
      const top = a + (b - a) * fx;
      out[y * width + x] = top + (c + (d - c) * fx - top) * (sy - y0) + 0.5;
    }
  }
  return { width, height, data: out };
}

/** The rectangle [x0, x1) × [y0, y1) of the image (clamped to it) resized to `w` × `h`, bilinear, as floats 0–255. */
export function resizeRegion(img: GreyImage, x0: number, y0: number, x1: number, y1: number, w: number, h: number): Float32Array {
  const out = new Float32Array(w * h);
  const sx = (x1 - x0) / w;
  const sy = (y1 - y0) / h;
  const maxX = img.width - 1;
  const maxY = img.height - 1;
  for (let y = 0; y < h; y++) {
    const fy = Math.min(maxY, Math.max(0, y0 + (y + 0.5) * sy - 0.5));
    const yi = Math.min(maxY - 1, Math.floor(fy));
    const wy = Math.max(0, fy - yi);
    const r0 = Math.max(0, yi) * img.width;
    const r1 = Math.min(maxY, yi + 1) * img.width;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(maxX, Math.max(0, x0 + (x + 0.5) * sx - 0.5));
      const xi = Math.min(maxX - 1, Math.floor(fx));
      const wx = Math.max(0, fx - xi);
      const a = img.data[r0 + Math.max(0, xi)]!;
      const b = img.data[r0 + Math.min(maxX, xi + 1)]!;
      const c = img.data[r1 + Math.max(0, xi)]!;
      const d = img.data[r1 + Math.min(maxX, xi + 1)]!;
      const top = a + (b - a) * wx;
      out[y * w + x] = top + (c + (d - c) * wx - top) * wy;
    }
  }
  return out;
}
