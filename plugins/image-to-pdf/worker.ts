// Worker of convert.image-to-pdf: every image on its own A4 page, header sizes checked before anything is decoded.
import { PDFDocument, concatTransformationMatrix, drawObject, popGraphicsState, pushGraphicsState, type PDFImage } from 'pdf-lib';
import { imageSize } from 'image-size';
import exifr from 'exifr';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PluginError, type WorkerFile, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import { DEFAULT_IMAGE_LIMITS, pixelLimitProblem, type ImageLimits } from '../../engines/image/image-check.js';
import type { ImageToPdfParams, ImageToPdfResultBody } from './contract.js';
import { encodeCanvas } from '../../engines/image/encode-canvas.js';
import { embedJpg, embedPng } from '../../engines/pdf/embed-image.js';

/** A4 in points, and the margin kept free on every side (10 mm). */
const A4 = { short: 595.28, long: 841.89 };
const MARGIN = (10 / 25.4) * 72;
/** Pixels are never drawn larger than at 96 dpi (CSS pixels): a small icon stays small. */
const POINTS_PER_PIXEL = 72 / 96;

type PageSummary = ImageToPdfResultBody['pages'][number];

export async function imageToPdf(input: WorkerInput<ImageToPdfParams>): Promise<WorkerOutput> {
  const limits = limitsFrom(input.settings);
  const files = input.files.filter((f) => f.field === 'fileIds');
  const pdf = await PDFDocument.create();
  pdf.setProducer('Quire image-to-pdf');
  pdf.setCreator('Quire');
  const pages: PageSummary[] = [];
  // An id given twice is embedded once and drawn on two pages.
  const embedded = new Map<string, { image: PDFImage; orientation: number; reencoded: boolean }>();
  for (const [i, file] of files.entries()) {
    const label = `fileIds[${i}] (${file.filename})`;
    let entry = embedded.get(file.fileId);
    if (!entry) {
      entry = await embed(pdf, file, label, limits);
      embedded.set(file.fileId, entry);
    }
    pages.push(drawPage(pdf, entry.image, entry.orientation, entry.reencoded));
  }
  const bytes = await pdf.save();
  const result: ImageToPdfResultBody = { pageCount: pages.length, pages };
  return { file: { bytes, mimeType: 'application/pdf', filename: 'images.pdf' }, result };
}

function limitsFrom(settings: Record<string, unknown>): ImageLimits {
  const n = (v: unknown, d: number) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : d);
  return { maxPixels: n(settings.maxPixels, DEFAULT_IMAGE_LIMITS.maxPixels), maxSide: n(settings.maxSide, DEFAULT_IMAGE_LIMITS.maxSide) };
}

async function embed(pdf: PDFDocument, file: WorkerFile, label: string, limits: ImageLimits): Promise<{ image: PDFImage; orientation: number; reencoded: boolean }> {
  // The header first: a small file may claim a picture that would take gigabytes to decode.
  let size: { width: number; height: number };
  try {
    size = imageSize(file.bytes);
  } catch {
    throw new PluginError('IMAGE_INVALID', `${label}: the ${file.mimeType} header cannot be read; the file is damaged or truncated. Export the image again and upload it.`);
  }
  if (!(size.width > 0 && size.height > 0)) throw new PluginError('IMAGE_INVALID', `${label}: the ${file.mimeType} header gives no size; the file is damaged.`);
  const problem = pixelLimitProblem(size.width, size.height, limits);
  if (problem) throw new PluginError('IMAGE_TOO_LARGE', `${label} ${problem.detail}. Scale the image down and upload it again.`);

  const orientation = await exifOrientation(file);
  try {
    if (file.mimeType === 'image/jpeg') return { image: await embedJpg(pdf, file.bytes), orientation, reencoded: false };
    if (file.mimeType === 'image/png') return { image: await embedPng(pdf, file.bytes), orientation, reencoded: false };
    // GIF (its first frame) and BMP: PDF has no filter for them, so they are decoded and written as lossless PNG.
    const decoded = await loadImage(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength));
    const canvas = createCanvas(decoded.width, decoded.height);
    canvas.getContext('2d').drawImage(decoded, 0, 0);
    return { image: await embedPng(pdf, await encodeCanvas(canvas, 'png')), orientation, reencoded: true };
  } catch (err) {
    throw new PluginError('IMAGE_INVALID', `${label}: the ${file.mimeType} image cannot be decoded (${(err as Error).message}); the file is damaged or uses an encoding PDF cannot hold. Export it again as baseline JPEG or PNG.`);
  }
}

/** EXIF orientation 1–8 of a JPEG or PNG (eXIf); 1 when absent or unreadable, since a picture without it is shown as stored. */
async function exifOrientation(file: WorkerFile): Promise<number> {
  if (file.mimeType !== 'image/jpeg' && file.mimeType !== 'image/png') return 1;
  try {
    const o = await exifr.orientation(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength));
    return typeof o === 'number' && o >= 1 && o <= 8 ? o : 1;
  } catch {
    return 1;
  }
}

/**
 * Adds an A4 page (landscape when the image as shown is wider than tall) and draws the image centred in
 * the margins, scaled down to fit and never above 96 dpi. The EXIF orientation becomes the drawing
 * matrix, so the stored pixels are embedded unchanged (no JPEG generation loss).
 */
function drawPage(pdf: PDFDocument, image: PDFImage, orientation: number, reencoded: boolean): PageSummary {
  const turned = orientation >= 5;
  const shownW = turned ? image.height : image.width;
  const shownH = turned ? image.width : image.height;
  const [pageW, pageH] = shownW > shownH ? [A4.long, A4.short] : [A4.short, A4.long];
  const scale = Math.min((pageW - 2 * MARGIN) / shownW, (pageH - 2 * MARGIN) / shownH, POINTS_PER_PIXEL);
  const w = shownW * scale;
  const h = shownH * scale;
  const x = (pageW - w) / 2;
  const y = (pageH - h) / 2;
  const page = pdf.addPage([pageW, pageH]);
  const name = page.node.newXObject('Image', image.ref);
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(...orientationMatrix(orientation, x, y, w, h)), drawObject(name), popGraphicsState());
  return { width: shownW, height: shownH, orientation, reencoded };
}

/**
 * The matrix mapping the image's unit square onto the box (x, y, w, h) of the picture as shown. EXIF
 * orientation n says how the stored pixels are turned or mirrored for display (2 mirror, 3 half turn,
 * 4 flip, 5 transpose, 6 quarter turn clockwise, 7 transverse, 8 quarter turn anticlockwise).
 */
export function orientationMatrix(n: number, x: number, y: number, w: number, h: number): [number, number, number, number, number, number] {
  switch (n) {
    case 2: return [-w, 0, 0, h, x + w, y];
    case 3: return [-w, 0, 0, -h, x + w, y + h];
    case 4: return [w, 0, 0, -h, x, y + h];
    case 5: return [0, -h, -w, 0, x + w, y + h];
    case 6: return [0, -h, w, 0, x, y + h];
    case 7: return [0, h, w, 0, x, y];
    case 8: return [0, h, -w, 0, x + w, y];
    default: return [w, 0, 0, h, x, y];
  }
}
