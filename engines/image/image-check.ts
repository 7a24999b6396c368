// What an uploaded image is, from its bytes: one of five types, an SVG without scripts or outside references, and a header size within the limits.
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { HttpError } from '../../contracts/errors.js';

export const ACCEPTED_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'] as const;
export type ImageMimeType = (typeof ACCEPTED_IMAGE_TYPES)[number];

export interface ImageLimits {
  /** width × height of a raster image. */
  maxPixels: number;
  /** Longest side of a raster image, in pixels. */
  maxSide: number;
}

/** The kernel's defaults (QUIRE_MAX_IMAGE_PIXELS, QUIRE_MAX_IMAGE_SIDE), for plugins that check images the kernel never saw (inside a PDF). */
export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxPixels: 50_000_000, maxSide: 20_000 };

export interface CheckedImage {
  mimeType: ImageMimeType;
  /** Pixels for raster images; the declared size (CSS px) of an SVG, or null when it declares none. */
  width: number | null;
  height: number | null;
}

/** file-type's answer → the accepted raster type (an animated PNG is a PNG). */
const RASTER: Record<string, ImageMimeType> = { 'image/png': 'image/png', 'image/apng': 'image/png', 'image/jpeg': 'image/jpeg', 'image/gif': 'image/gif', 'image/webp': 'image/webp' };

/** Nested `data:image/svg+xml` images are checked too, this deep at most. */
const MAX_SVG_NESTING = 3;

/** Decides the type by content and refuses what is unsafe or too large to decode (throws HttpError). */
export async function checkImage(bytes: Uint8Array, limits: ImageLimits): Promise<CheckedImage> {
  const found = await fileTypeFromBuffer(bytes);
  const raster = found ? RASTER[found.mime] : undefined;
  if (raster) {
    const { width, height } = rasterSize(bytes, raster);
    checkPixelLimits(width, height, limits, 'The image');
    return { mimeType: raster, width, height };
  }
  const text = utf8(bytes);
  const root = text === null ? -1 : svgRoot(text);
  if (text === null || root < 0) {
    const detected = found?.mime ?? (text === null ? 'application/octet-stream' : 'text/plain');
    throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `The file's content is ${detected}; images may be PNG, JPEG, GIF, WebP or SVG (${ACCEPTED_IMAGE_TYPES.join(', ')}; SVG as UTF-8 XML whose root element is <svg>).`);
  }
  checkSvg(text, limits, 0);
  return { mimeType: 'image/svg+xml', ...svgSize(text.slice(root)) };
}

function rasterSize(bytes: Uint8Array, mimeType: string): { width: number; height: number } {
  let size: { width: number; height: number; orientation?: number };
  try {
    size = imageSize(bytes);
  } catch {
    throw invalid(`The ${mimeType} header cannot be read: the file is damaged or truncated.`, 'has an unreadable header', 'INVALID_IMAGE');
  }
  if (!(size.width > 0 && size.height > 0)) throw invalid(`The ${mimeType} header gives a size of ${size.width} × ${size.height} pixels; the file is damaged.`, 'has no size', 'INVALID_IMAGE');
  // EXIF orientations 5–8 turn the picture a quarter: report the size as it is shown.
  return (size.orientation ?? 1) >= 5 ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
}

/** Why a raster of this header size may not be decoded (decompression bombs), or null when it is within the limits. */
export function pixelLimitProblem(width: number, height: number, limits: ImageLimits): { detail: string; message: string } | null {
  if (width <= limits.maxSide && height <= limits.maxSide && width * height <= limits.maxPixels) return null;
  const mp = (n: number) => `${Math.round((n / 1e6) * 10) / 10} megapixels`;
  const limit = `at most ${limits.maxSide} pixels on a side and ${mp(limits.maxPixels)}`;
  return { detail: `is ${width} × ${height} pixels (${mp(width * height)}); images may be ${limit}`, message: `is ${width} × ${height} pixels; the limit is ${limit}` };
}

function checkPixelLimits(width: number, height: number, limits: ImageLimits, what: string): void {
  const problem = pixelLimitProblem(width, height, limits);
  if (problem) throw invalid(`${what} ${problem.detail} (QUIRE_MAX_IMAGE_SIDE, QUIRE_MAX_IMAGE_PIXELS).`, problem.message, 'LIMIT_EXCEEDED');
}

function invalid(detail: string, message: string, code: string): HttpError {
  return new HttpError('VALIDATION_FAILED', detail, [{ path: 'file', message, code }]);
}

function unsafeSvg(why: string): HttpError {
  return invalid(`The SVG ${why}. Quire accepts SVG without scripts, DOCTYPE/ENTITY declarations and references outside the file; export it again without them (e.g. as "plain SVG").`, why, 'UNSAFE_SVG');
}

function utf8(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Index of the root `<svg` after a BOM, the XML declaration, processing instructions, comments and whitespace; -1 if the root is anything else. */
function svgRoot(text: string): number {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
    const close = text.startsWith('<?', i) ? '?>' : text.startsWith('<!--', i) ? '-->' : null;
    if (close) {
      const end = text.indexOf(close, i + 2);
      if (end < 0) return -1;
      i = end + close.length;
      continue;
    }
    if (/^<!doctype/i.test(text.slice(i, i + 9))) throw unsafeSvg('has a DOCTYPE declaration (refused: entity expansion and external entities)');
    return /^<svg[\s>/]/.test(text.slice(i, i + 5)) ? i : -1;
  }
}

/** Refuses declarations, scripts, event handlers and references to anything outside the file; looks into data: images. */
function checkSvg(text: string, limits: ImageLimits, depth: number): void {
  if (/<!(doctype|entity)/i.test(text)) throw unsafeSvg('has a DOCTYPE or ENTITY declaration (refused: entity expansion and external entities)');
  if (/<\?xml-stylesheet/i.test(text)) throw unsafeSvg('links a stylesheet with <?xml-stylesheet?>, a reference outside the file');
  if (/<(?:[\w.-]+:)?script[\s>/]/i.test(text)) throw unsafeSvg('contains a <script> element');
  // Attributes are found anywhere in the text, not only inside tags: the same text in character data is refused too, which costs
  // real drawings nothing and keeps this one linear pass over up to 20 MB.
  const handler = /(?:^|[\s"'])((?:[\w.-]+:)?on[a-z]+)\s*=\s*["']/i.exec(text);
  if (handler) throw unsafeSvg(`has an event handler attribute ${handler[1]} (script)`);
  for (const m of text.matchAll(/(?:^|[\s"'])((?:[\w.-]+:)?(?:href|src))\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
    const value = decodeXmlReferences(m[2] ?? m[3] ?? '');
    checkReference(value, `${m[1]}="${shorten(value)}"`, limits, depth);
  }
  const css = decodeXmlReferences(text);
  if (/@import/i.test(css)) throw unsafeSvg('imports a stylesheet with @import, a reference outside the file');
  for (const target of cssUrls(css)) checkReference(target, `url(${shorten(target)})`, limits, depth);
}

/** The targets of CSS `url(…)`, read in one pass (a regex would go quadratic on many unclosed `url(`); an unclosed one runs to the end. */
function cssUrls(css: string): string[] {
  const out: string[] = [];
  const start = /\burl\(\s*/gi;
  for (let m = start.exec(css); m; m = start.exec(css)) {
    const i = start.lastIndex;
    const quote = css[i] === '"' || css[i] === "'" ? css[i]! : null;
    const from = quote ? i + 1 : i;
    const end = css.indexOf(quote ?? ')', from);
    out.push(css.slice(from, end < 0 ? undefined : end));
    if (end < 0) break;
    start.lastIndex = end + 1;
  }
  return out;
}

function checkReference(target: string, shown: string, limits: ImageLimits, depth: number): void {
  const t = target.trim();
  if (t === '' || t.startsWith('#')) return;
  if (!/^data:/i.test(t)) throw unsafeSvg(`references ${shown} outside the file; only #fragment and data: references are allowed`);
  const m = /^data:([^;,]*)((?:;[^;,]*)*),([\s\S]*)$/i.exec(t);
  if (!m) return;
  const mime = m[1]!.trim().toLowerCase();
  const base64 = /;base64/i.test(m[2]!);
  let payload: Buffer;
  try {
    payload = base64 ? Buffer.from(m[3]!.replace(/\s+/g, ''), 'base64') : Buffer.from(decodeURIComponent(m[3]!), 'utf8');
  } catch {
    return;
  }
  if (mime === 'image/svg+xml') {
    if (depth + 1 >= MAX_SVG_NESTING) throw unsafeSvg(`nests data: SVG images more than ${MAX_SVG_NESTING} deep`);
    const inner = utf8(payload);
    if (inner !== null) checkSvg(inner, limits, depth + 1);
  } else if (mime.startsWith('image/')) {
    let size: { width: number; height: number } | null = null;
    try {
      size = imageSize(payload);
    } catch {
      // Not a size this reader knows: the renderer's decoders do not know it either.
    }
    if (size) checkPixelLimits(size.width, size.height, limits, `An image embedded in the SVG (${mime})`);
  }
}

function svgSize(fromRoot: string): { width: number | null; height: number | null } {
  try {
    const s = imageSize(Buffer.from(fromRoot, 'utf8'));
    if (Number.isFinite(s.width) && Number.isFinite(s.height) && s.width > 0 && s.height > 0) return { width: Math.round(s.width), height: Math.round(s.height) };
  } catch {
    // No width/height or viewBox: an SVG may scale to whatever box it is given.
  }
  return { width: null, height: null };
}

/** The five predefined entities and character references; DOCTYPE is refused, so no other entity exists. */
function decodeXmlReferences(s: string): string {
  if (!s.includes('&')) return s;
  const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
  return s.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|(lt|gt|amp|quot|apos));/gi, (all, dec?: string, hex?: string, name?: string) => {
    if (name) return named[name.toLowerCase()]!;
    const cp = dec ? Number(dec) : parseInt(hex!, 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : all;
  });
}

function shorten(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
