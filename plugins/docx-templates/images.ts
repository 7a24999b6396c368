// Pictures for image variables: checked (type, pixel limits, safe SVG), sized, and an SVG given a PNG fallback.
import { imageSize } from 'image-size';
import { PluginError, type WorkerFile } from '../../sdk/index.js';

export interface TemplateImage {
  /** Sequence number in this job: names the media file and the drawing. */
  n: number;
  ext: 'png' | 'jpeg' | 'gif' | 'bmp' | 'svg';
  mimeType: string;
  bytes: Uint8Array;
  /** For SVG: a PNG of it at twice the placed size, for Word before 2016 and for LibreOffice. */
  png?: Uint8Array;
  widthPx: number;
  heightPx: number;
  caption: string;
}

const EXT: Record<string, TemplateImage['ext']> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/bmp': 'bmp', 'image/svg+xml': 'svg' };

/** Same bounds as POST /images/upload's defaults: what LibreOffice may be asked to decode. */
const LIMITS = { maxPixels: 50_000_000, maxSide: 20_000 };

export interface ImageRequest {
  path: string;
  src: string;
  width?: number;
  height?: number;
  caption?: string;
}

/** Loads one image variable from the job's input files (throws PluginError INVALID_IMAGE naming `path`). */
export async function prepareImage(req: ImageRequest, files: WorkerFile[], n: number): Promise<TemplateImage> {
  const file = files.find((f) => f.fileId === req.src);
  if (!file) throw new PluginError('INVALID_IMAGE', `${req.path}.src: file ${req.src} was not handed to the job; upload it again.`);
  const ext = EXT[file.mimeType];
  if (!ext) throw new PluginError('INVALID_IMAGE', `${req.path}.src: file ${req.src} is ${file.mimeType}; images may be PNG, JPEG, GIF, BMP or SVG.`);
  const widthPx = req.width ?? 200;
  const heightPx = req.height ?? 200;
  const image: TemplateImage = { n, ext, mimeType: file.mimeType, bytes: file.bytes, widthPx, heightPx, caption: req.caption ?? '' };
  if (ext === 'svg') {
    // Loaded on the first SVG only: the canvas and the SVG checker are heavy, and every boot loads this worker once.
    const [{ checkImage }, { rasteriseSvg }] = await Promise.all([import('../../engines/image/image-check.js'), import('../../engines/office/pictures.js')]);
    try {
      await checkImage(file.bytes, LIMITS);
    } catch (err) {
      throw new PluginError('INVALID_IMAGE', `${req.path}.src (${file.filename}): ${(err as Error).message}`);
    }
    const scale = Math.min(2, 4000 / Math.max(widthPx, heightPx));
    try {
      image.png = await rasteriseSvg(new TextDecoder().decode(file.bytes), Math.max(1, Math.round(widthPx * scale)), Math.max(1, Math.round(heightPx * scale)));
    } catch (err) {
      throw new PluginError('INVALID_IMAGE', `${req.path}.src (${file.filename}): the SVG cannot be drawn: ${(err as Error).message}.`);
    }
    return image;
  }
  let size: { width: number; height: number };
  try {
    size = imageSize(file.bytes);
  } catch {
    throw new PluginError('INVALID_IMAGE', `${req.path}.src (${file.filename}): the ${file.mimeType} header cannot be read; the file is damaged or truncated.`);
  }
  if (!(size.width > 0 && size.height > 0) || size.width > LIMITS.maxSide || size.height > LIMITS.maxSide || size.width * size.height > LIMITS.maxPixels) {
    throw new PluginError('INVALID_IMAGE', `${req.path}.src (${file.filename}) is ${size.width} × ${size.height} pixels; images may be at most ${LIMITS.maxSide} pixels on a side and ${LIMITS.maxPixels / 1e6} megapixels.`);
  }
  return image;
}

/** EMU (OOXML's unit) of a length in CSS pixels: 914400 per inch, 96 px per inch. */
export function emu(px: number): number {
  return Math.round(px * 9525);
}

/** An ODF length of CSS pixels, in inches. */
export function odfLength(px: number): string {
  return `${(px / 96).toFixed(4)}in`;
}
