// Pictures for the office targets: sizes on the page, and PNG rasters of what Word and LibreOffice cannot be
// trusted to show (WebP, SVG, and the SVG charts, QR codes and barcodes the PDF draws), made with @napi-rs/canvas.
import { createHash } from 'node:crypto';
import { createCanvas, GlobalFonts, loadImage } from '@napi-rs/canvas';
import { imageSize } from 'image-size';
import { RenderInputError, type Length, type LoadedImage } from '../render-input.js';
import { bundledFontBlobs } from '../fonts/pdf-fonts.js';
import type { CjkVariant } from '../fonts/scripts.js';
import { pictureText } from './picture-text.js';
import type { Picture } from './model.js';
import { encodeCanvas } from '../image/encode-canvas.js';

const CM_PER_INCH = 2.54;
/** Natural size of a raster image without a usable resolution: CSS pixels. */
const NATURAL_DPI = 96;
/** SVG is rasterised at this resolution for its size on the page: sharp in print, small in the file. */
export const RASTER_DPI = 200;
/** No raster side beyond this, whatever the page size (a 100 cm wide picture would otherwise be 7900 px). */
const MAX_RASTER_SIDE = 4000;

export interface SizeCm {
  widthCm: number;
  heightCm: number;
}

/** Pixel size of raster bytes (PNG, JPEG, GIF, WebP), or the declared size of an SVG in CSS pixels (300 × 150 when it declares none). */
export function pixelSize(bytes: Uint8Array): { width: number; height: number } {
  try {
    const s = imageSize(bytes);
    if (s.width > 0 && s.height > 0) return { width: s.width, height: s.height };
  } catch {
    // An SVG without width, height or viewBox: CSS gives replaced elements 300 × 150.
  }
  if (looksLikeSvg(bytes)) return { width: 300, height: 150 };
  throw new Error('the image header cannot be read: the file is damaged or truncated');
}

/** Natural size on the page of an image `width` × `height` pixels (CSS pixels for SVG). */
export function naturalSizeCm(width: number, height: number): SizeCm {
  return { widthCm: (width / NATURAL_DPI) * CM_PER_INCH, heightCm: (height / NATURAL_DPI) * CM_PER_INCH };
}

/**
 * The size on the page: the element's width and/or height (cm, or % of the available width/height;
 * fr and auto mean "not given"), the other side from the aspect ratio, the natural size when neither is
 * given; then scaled down, keeping the aspect ratio, to fit `box` (the text width, or a column, and the text height).
 * With both given, the picture is the largest that fits inside that box (the PDF crops it to fill it instead).
 */
export function fitSize(natural: SizeCm, width: Length, height: Length, box: SizeCm): SizeCm {
  const toCm = (l: Length, base: number) => (l === null ? null : l.k === 'cm' ? l.v : l.k === 'pct' ? (base * l.v) / 100 : null);
  const aspect = natural.heightCm / natural.widthCm;
  const w = toCm(width, box.widthCm);
  const h = toCm(height, box.heightCm);
  let size: SizeCm;
  if (w !== null && h !== null) {
    const scale = Math.min(w / natural.widthCm, h / natural.heightCm);
    size = { widthCm: natural.widthCm * scale, heightCm: natural.heightCm * scale };
  } else if (w !== null) size = { widthCm: w, heightCm: w * aspect };
  else if (h !== null) size = { widthCm: h / aspect, heightCm: h };
  else size = { ...natural };
  const shrink = Math.min(1, box.widthCm / size.widthCm, box.heightCm / size.heightCm);
  return { widthCm: size.widthCm * shrink, heightCm: size.heightCm * shrink };
}

/** Raster pixels for a picture shown at `size` (RASTER_DPI, capped), at least 1 × 1. */
export function rasterPixels(size: SizeCm): { width: number; height: number } {
  let width = (size.widthCm / CM_PER_INCH) * RASTER_DPI;
  let height = (size.heightCm / CM_PER_INCH) * RASTER_DPI;
  const cap = Math.min(1, MAX_RASTER_SIDE / Math.max(width, height));
  width = Math.max(1, Math.round(width * cap));
  height = Math.max(1, Math.round(height * cap));
  return { width, height };
}

// ------------------------------------------------------------------ the pictures of one document

const USER_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'];

/**
 * Makes the pictures of one document. Sizes are known at once; the PNGs of WebP and SVG sources are made
 * concurrently and filled in before `done()` resolves, which returns what could not be drawn, by path.
 */
export class PictureQueue {
  readonly #tasks: Array<Promise<void>> = [];
  readonly #problems: Array<{ path: string; message: string }> = [];

  constructor(
    private readonly images: Map<string, LoadedImage>,
    private readonly fontDirs: string[],
    /** The document's CJK variant (asked only when a picture has text the core fonts lack). */
    private readonly cjk: () => CjkVariant,
  ) {}

  /** A user image (`src` of the document or of an image variable): PNG, JPEG and GIF as they are, WebP and SVG as PNG. */
  user(src: string, path: string, alt: string, width: Length, height: Length, box: SizeCm): Picture {
    const loaded = this.images.get(src);
    if (!loaded) throw new RenderInputError([{ path, message: `image ${src} was not loaded` }]);
    const mime = loaded.mimeType;
    if (!USER_IMAGE_TYPES.includes(mime)) throw new RenderInputError([{ path, message: `image ${src} is ${mime}; images must be PNG, JPEG, GIF, WebP or SVG` }]);
    let natural: { width: number; height: number };
    try {
      natural = pixelSize(loaded.bytes);
    } catch (err) {
      throw new RenderInputError([{ path, message: `image ${src}: ${(err as Error).message}` }]);
    }
    const size = fitSize(naturalSizeCm(natural.width, natural.height), width, height, box);
    if (mime === 'image/svg+xml') return this.svg(Buffer.from(loaded.bytes).toString('utf8'), size, rasterPixels(size), alt, path, src);
    const picture: Picture = { bytes: loaded.bytes, mimeType: 'image/png', pixelWidth: natural.width, pixelHeight: natural.height, widthCm: size.widthCm, heightCm: size.heightCm, alt };
    if (mime === 'image/webp') {
      this.#task(path, src, async () => {
        const converted = await rasterToPng(loaded.bytes);
        Object.assign(picture, { bytes: converted.png, pixelWidth: converted.width, pixelHeight: converted.height });
      });
    } else picture.mimeType = mime as Picture['mimeType'];
    return picture;
  }

  /** A picture drawn from SVG at `pixels` and shown at `size`. */
  svg(svg: string, size: SizeCm, pixels: { width: number; height: number }, alt: string, path: string, src?: string): Picture {
    const picture: Picture = { bytes: new Uint8Array(0), mimeType: 'image/png', pixelWidth: pixels.width, pixelHeight: pixels.height, widthCm: size.widthCm, heightCm: size.heightCm, alt };
    this.#task(path, src, async () => {
      const drawn = pictureText(svg, this.cjk);
      registerScriptFonts(drawn.files);
      picture.bytes = await rasteriseSvg(drawn.svg, pixels.width, pixels.height);
    });
    return picture;
  }

  /** Waits for every PNG; returns the pictures that could not be drawn. */
  async done(): Promise<Array<{ path: string; message: string }>> {
    await Promise.all(this.#tasks);
    return this.#problems;
  }

  #task(path: string, src: string | undefined, task: () => Promise<void>): void {
    registerFonts(this.fontDirs);
    this.#tasks.push(
      task().catch((err: unknown) => {
        this.#problems.push({ path, message: `${src ? `image ${src}` : 'the graphic'} could not be drawn: ${(err as Error).message}` });
      }),
    );
  }
}

// ------------------------------------------------------------------ fonts

let bundledRegistered = false;
const registeredDirs = new Set<string>();

/** SVG text is drawn with the bundled fonts (and the operator's font folders), registered once per thread. */
export function registerFonts(fontDirs: string[] = []): void {
  if (!bundledRegistered) {
    for (const blob of bundledFontBlobs()) GlobalFonts.register(blob);
    bundledRegistered = true;
  }
  for (const dir of fontDirs) {
    if (registeredDirs.has(dir)) continue;
    GlobalFonts.loadFontsFromDir(dir);
    registeredDirs.add(dir);
  }
}

const registeredFiles = new Set<string>();

/**
 * The fonts of further scripts (Thai, Devanagari, CJK: 0.2–10 MB each), registered by path when a picture's text
 * first needs them, so that a thread drawing only Latin pictures never loads them.
 */
function registerScriptFonts(files: string[]): void {
  for (const file of files) {
    if (registeredFiles.has(file)) continue;
    GlobalFonts.registerFromPath(file);
    registeredFiles.add(file);
  }
}

// ------------------------------------------------------------------ rasterising

/** PNGs of SVGs already drawn in this thread, by SVG and pixel size: charts repeat across documents and renders. */
const cache = new Map<string, Uint8Array>();
let cacheBytes = 0;
const CACHE_MAX_BYTES = 32 * 1024 * 1024;

/** Draws `svg` into a `width` × `height` PNG (transparent where the SVG draws nothing). */
export async function rasteriseSvg(svg: string, width: number, height: number): Promise<Uint8Array> {
  const key = `${width}x${height}:${createHash('sha1').update(svg).digest('base64')}`;
  const hit = cache.get(key);
  if (hit) {
    // Refresh its place: the map's order is the eviction order.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  // Identical graphics of one document (a chart repeated per chapter) are drawn once, even when drawn concurrently.
  let pending = inflight.get(key);
  if (!pending) {
    pending = draw(svg, width, height).finally(() => inflight.delete(key));
    inflight.set(key, pending);
    const png = await pending;
    cache.set(key, png);
    cacheBytes += png.byteLength;
    for (const [k, v] of cache) {
      if (cacheBytes <= CACHE_MAX_BYTES) break;
      cache.delete(k);
      cacheBytes -= v.byteLength;
    }
    return png;
  }
  return pending;
}

const inflight = new Map<string, Promise<Uint8Array>>();

async function draw(svg: string, width: number, height: number): Promise<Uint8Array> {
  const image = await loadImage(Buffer.from(sizedSvg(svg, width, height), 'utf8'));
  const canvas = createCanvas(width, height);
  canvas.getContext('2d').drawImage(image, 0, 0, width, height);
  return new Uint8Array(await encodeCanvas(canvas, 'png'));
}

/** Decodes raster bytes Word cannot show (WebP) and writes them as a PNG of the same pixels. */
export async function rasterToPng(bytes: Uint8Array): Promise<{ png: Uint8Array; width: number; height: number }> {
  const image = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const canvas = createCanvas(image.width, image.height);
  canvas.getContext('2d').drawImage(image, 0, 0);
  return { png: new Uint8Array(await encodeCanvas(canvas, 'png')), width: image.width, height: image.height };
}

/**
 * The SVG with its root width and height set to the raster size, so that it is drawn as vectors at that
 * size rather than scaled up from a small bitmap. Without a viewBox, one is added from the declared size
 * so that the content scales with the new viewport.
 */
function sizedSvg(svg: string, width: number, height: number): string {
  const start = svg.search(/<svg[\s>]/);
  if (start < 0) throw new Error('the SVG has no <svg> root element');
  const end = svg.indexOf('>', start);
  if (end < 0) throw new Error('the SVG root element is not closed');
  let tag = svg.slice(start, end);
  const selfClosing = tag.endsWith('/');
  if (selfClosing) tag = tag.slice(0, -1);
  const hasViewBox = /\sviewBox\s*=/.test(tag);
  let viewBox = '';
  if (!hasViewBox) {
    const declared = pixelSize(Buffer.from(svg, 'utf8'));
    viewBox = ` viewBox="0 0 ${declared.width} ${declared.height}"`;
  }
  tag = tag.replace(/\s(?:width|height)\s*=\s*("[^"]*"|'[^']*')/g, '');
  tag += ` width="${width}" height="${height}"${viewBox}`;
  if (!/\sxmlns\s*=/.test(tag)) tag += ' xmlns="http://www.w3.org/2000/svg"';
  return svg.slice(0, start) + tag + (selfClosing ? '/' : '') + svg.slice(end);
}

function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('utf8');
  return /<svg[\s>]/.test(head);
}
