// Worker of pdf.watermark: builds the watermark once (a form XObject for text, an image XObject), then paints it on each selected page with a small shared content stream.
import { PDFArray, PDFDict, PDFName, PDFRef, type PDFContext, type PDFDocument, type PDFFont, type PDFObject } from 'pdf-lib';
import { PluginError, type WorkerFile, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import { resolveSpecs } from '../../engines/pdf/page-selection.js';
import { embedJpg, embedPng } from '../../engines/pdf/embed-image.js';
import { guardPdf, guardPdfSync, openPdf, savePdf } from '../../engines/pdf/load.js';
import { pageTurn, visibleBox } from '../../engines/pdf/page-box.js';
import { FONT_RULE, TextFonts, describeChars, isWinAnsi, planLine, textCjkVariant, type FaceId } from '../../engines/pdf/text-fonts.js';
import type { WatermarkParams, WatermarkResultBody } from './contract.js';

const LABEL = 'fileId';
/** Most copies of a tiled watermark on one page; past it the tiling is refused as too dense. */
export const MAX_TILES_PER_PAGE = 1000;
/** Decoded pixels of a PNG watermark at most (pdf-lib decodes PNGs in memory: 4 bytes per pixel). */
export const MAX_IMAGE_PIXELS = 25_000_000;
const LINE_HEIGHT = 1.2;

const N = {
  Resources: PDFName.of('Resources'),
  XObject: PDFName.of('XObject'),
  ExtGState: PDFName.of('ExtGState'),
  Contents: PDFName.of('Contents'),
};

/** The watermark as drawn at the origin: `width` × `height` points, painted by `paint(name)` once its XObject is called `name`. */
interface Stamp {
  ref: PDFRef;
  /** Natural size in points; images are scaled per page by `scaleFor`. */
  width: number;
  height: number;
  scaleFor: (viewWidth: number, viewHeight: number) => number;
  paint: (name: string, scale: number) => string;
}

export async function watermark(input: WorkerInput<WatermarkParams>): Promise<WorkerOutput> {
  const params = input.params;
  const file = input.files.find((f) => f.field === 'fileId');
  if (!file) throw new Error('pdf.watermark received no input file.');
  const image = input.files.find((f) => f.field === 'imageFileId');
  if ((params.text === undefined) === (image === undefined)) {
    throw new PluginError('WATERMARK_INVALID', params.text === undefined ? 'Give the watermark: either `text` or `imageFileId`.' : 'Give either `text` or `imageFileId`, not both.');
  }
  const { doc, pageCount, pageRefs, objectStreams } = await openPdf(file.bytes, LABEL);
  const selected = params.pages ? [...new Set(resolveSpecs('pages', params.pages, pageCount).flat())].sort((a, b) => a - b) : pageRefs.map((_, i) => i);

  const stamp = image ? await imageStamp(doc, image, params) : await textStamp(doc, params);
  const context = doc.context;
  const opacity = context.register(context.obj({ Type: 'ExtGState', ca: params.opacity, CA: params.opacity }));
  // Pages of one size and rotation share one content stream.
  const streams = new Map<string, PDFRef>();
  guardPdfSync(LABEL, 'write', () => {
    for (const index of selected) {
      const page = context.lookup(pageRefs[index]!) as PDFDict;
      const resources = ownResources(context, page);
      const xobjectName = freeName(context, resources, N.XObject, 'QuireWatermark', stamp.ref);
      const stateName = freeName(context, resources, N.ExtGState, 'QuireWatermarkGS', opacity);
      const ops = paintOperators(page, context, stamp, params, index, xobjectName, stateName);
      let ref = streams.get(ops);
      if (!ref) {
        ref = context.register(context.flateStream(ops));
        streams.set(ops, ref);
      }
      setContents(context, page, ref, params.layer);
    }
  });
  const bytes = await savePdf(doc, 'the watermarked PDF', objectStreams);
  const result: WatermarkResultBody = { watermarkedPages: selected.length, pageCount, kind: image ? 'image' : 'text' };
  return { file: { bytes, mimeType: 'application/pdf', filename: 'watermarked.pdf' }, result };
}

async function textStamp(doc: PDFDocument, params: WatermarkParams): Promise<Stamp> {
  const size = params.fontSize;
  const lines = params.text!.split(/\r\n|\r|\n/);
  // One font rule for the whole text, so that every line looks alike: Helvetica only when all of it is Windows-1252.
  const winAnsi = isWinAnsi(lines.join(''));
  // And one choice of CJK glyph forms: a Japanese line's kanji in the Japanese forms on every line.
  const cjk = textCjkVariant(params.text!);
  const plans = lines.map((line) => planLine(line, winAnsi, cjk));
  const missing = [...new Set(plans.flatMap((p) => p.missing))];
  if (missing.length) {
    throw new PluginError(
      'WATERMARK_INVALID',
      `text: no bundled font has ${missing.length === 1 ? 'the character' : 'the characters'} ${describeChars(missing)}; the watermark is drawn in ${FONT_RULE}. Use an image watermark for other scripts.`,
    );
  }
  const fonts = new TextFonts(doc);
  const faces = [...new Set(plans.flatMap((p) => p.runs.map((r) => r.face)))];
  const used = new Map<FaceId, { font: PDFFont; name: string }>();
  for (const face of faces.length ? faces : (['helvetica'] as const)) {
    used.set(face, { font: await guardPdf(LABEL, 'write', () => fonts.font(face)), name: `F${used.size}` });
  }
  const [ascent, full] = [...used.values()].reduce(
    ([a, f], { font }) => [Math.max(a, font.heightAtSize(size, { descender: false })), Math.max(f, font.heightAtSize(size))],
    [0, 0],
  );
  const runs = plans.map((p) => p.runs.map((r) => ({ ...r, ...used.get(r.face)! })));
  const widths = runs.map((line) => line.reduce((w, r) => w + r.font.widthOfTextAtSize(r.text, size), 0));
  const width = Math.max(1, ...widths);
  const height = (lines.length - 1) * size * LINE_HEIGHT + full;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(params.color.slice(i, i + 2), 16) / 255);
  let ops = `BT ${num(r!)} ${num(g!)} ${num(b!)} rg\n`;
  runs.forEach((line, i) => {
    const x = (width - widths[i]!) / 2;
    const y = height - ascent - i * size * LINE_HEIGHT;
    ops += `1 0 0 1 ${num(x)} ${num(y)} Tm`;
    // encodeText gives a hex string: the user's text never reaches the content stream as syntax. Each Tj moves on by its own width.
    for (const run of line) ops += ` /${run.name} ${num(size)} Tf ${run.font.encodeText(run.text).toString()} Tj`;
    ops += '\n';
  });
  ops += 'ET';
  const pad = size * 0.25;
  const context = doc.context;
  const form = context.flateStream(ops, {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [-pad, -pad, width + pad, height + pad],
    Resources: { Font: Object.fromEntries([...used.values()].map(({ font, name }) => [name, font.ref])) },
  });
  return { ref: context.register(form), width, height, scaleFor: () => 1, paint: (name) => `/${name} Do` };
}

async function imageStamp(doc: PDFDocument, image: WorkerFile, params: WatermarkParams): Promise<Stamp> {
  const label = `imageFileId (${image.filename})`;
  if (image.mimeType === 'image/png') checkPngSize(image.bytes, label);
  let embedded;
  try {
    embedded = image.mimeType === 'image/png' ? await embedPng(doc, image.bytes) : await embedJpg(doc, image.bytes);
  } catch (err) {
    throw new PluginError('IMAGE_UNREADABLE', `${label} is not a readable ${image.mimeType === 'image/png' ? 'PNG' : 'JPEG'} image: ${err instanceof Error ? err.message : String(err)}.`);
  }
  const width = params.imageWidth ?? embedded.width;
  const height = (width * embedded.height) / embedded.width;
  const fixed = params.imageWidth !== undefined;
  return {
    ref: embedded.ref,
    width,
    height,
    // Without an explicit width, an image larger than half the page is reduced to fit in half of it.
    scaleFor: (viewWidth, viewHeight) => (fixed ? 1 : Math.min(1, (viewWidth / 2) / width, (viewHeight / 2) / height)),
    paint: (name, scale) => `${num(width * scale)} 0 0 ${num(height * scale)} 0 0 cm /${name} Do`,
  };
}

/** Refuses a PNG whose header declares more pixels than MAX_IMAGE_PIXELS, before pdf-lib decodes it. */
function checkPngSize(bytes: Uint8Array, label: string): void {
  if (bytes.byteLength < 24) throw new PluginError('IMAGE_UNREADABLE', `${label} is not a readable PNG image: it is truncated.`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new PluginError('IMAGE_UNREADABLE', `${label} is ${width} × ${height} pixels; watermark images may have at most ${MAX_IMAGE_PIXELS / 1e6} million pixels.`);
  }
}

/** The page's /Resources as a dictionary it can be given entries in (created when missing). */
function ownResources(context: PDFContext, page: PDFDict): PDFDict {
  const existing = context.lookup(page.get(N.Resources));
  if (existing instanceof PDFDict) return existing;
  const created = context.obj({});
  page.set(N.Resources, created);
  return created;
}

/** A name in `resources[category]` that is free or already means `target`, starting from `base`. */
function freeName(context: PDFContext, resources: PDFDict, category: PDFName, base: string, target: PDFRef): string {
  let dict = context.lookup(resources.get(category));
  if (!(dict instanceof PDFDict)) {
    dict = context.obj({});
    resources.set(category, dict);
  }
  const entries = dict as PDFDict;
  for (let n = 0; ; n++) {
    const name = n === 0 ? base : `${base}${n}`;
    const key = PDFName.of(name);
    const current = entries.get(key);
    if (current === undefined) {
      entries.set(key, target);
      return name;
    }
    if (current === target) return name;
  }
}

/** The content stream that paints the watermark on this page, placed as the reader sees the page. */
function paintOperators(page: PDFDict, context: PDFContext, stamp: Stamp, params: WatermarkParams, index: number, xobject: string, state: string): string {
  const [x0, y0, x1, y1] = visibleBox(context, page);
  const pw = Math.max(1, x1 - x0);
  const ph = Math.max(1, y1 - y0);
  const turn = pageTurn(context, page);
  // The reader's view: the page turned clockwise by /Rotate.
  const [viewW, viewH] = turn % 180 === 0 ? [pw, ph] : [ph, pw];
  const scale = stamp.scaleFor(viewW, viewH);
  const w = stamp.width * scale;
  const h = stamp.height * scale;
  const theta = (params.rotation * Math.PI) / 180;
  const bw = Math.abs(w * Math.cos(theta)) + Math.abs(h * Math.sin(theta));
  const bh = Math.abs(w * Math.sin(theta)) + Math.abs(h * Math.cos(theta));
  const centres = placements(params, viewW, viewH, bw, bh, index);
  // Content drawn at angle phi on the page shows at phi - /Rotate to the reader.
  const phi = ((params.rotation + turn) * Math.PI) / 180;
  const cos = Math.cos(phi);
  const sin = Math.sin(phi);
  let ops = `q /${state} gs\n`;
  for (const [u, v] of centres) {
    const [px, py] = toPage(u, v, turn, pw, ph);
    const e = x0 + px - (w / 2) * cos + (h / 2) * sin;
    const f = y0 + py - (w / 2) * sin - (h / 2) * cos;
    ops += `q ${num(cos)} ${num(sin)} ${num(-sin)} ${num(cos)} ${num(e)} ${num(f)} cm ${stamp.paint(xobject, scale)} Q\n`;
  }
  return `${ops}Q\n`;
}

/** Centres of the watermark's copies in the reader's view (origin bottom left), from the position. */
function placements(params: WatermarkParams, viewW: number, viewH: number, bw: number, bh: number, index: number): Array<[number, number]> {
  const m = params.margin;
  const pos = params.position;
  if (pos === 'tile') {
    const stepX = bw + params.tileGap;
    const stepY = bh + params.tileGap;
    const nx = Math.ceil(viewW / 2 / stepX);
    const ny = Math.ceil(viewH / 2 / stepY);
    const count = (2 * nx + 1) * (2 * ny + 1);
    if (count > MAX_TILES_PER_PAGE) {
      throw new PluginError(
        'WATERMARK_INVALID',
        `Tiling would place ${count} copies on page ${index + 1} (at most ${MAX_TILES_PER_PAGE}); make the watermark larger (fontSize or imageWidth) or raise tileGap.`,
      );
    }
    const out: Array<[number, number]> = [];
    for (let j = -ny; j <= ny; j++) for (let i = -nx; i <= nx; i++) out.push([viewW / 2 + i * stepX, viewH / 2 + j * stepY]);
    return out;
  }
  const u = pos.endsWith('left') ? m + bw / 2 : pos.endsWith('right') ? viewW - m - bw / 2 : viewW / 2;
  const v = pos.startsWith('top') ? viewH - m - bh / 2 : pos.startsWith('bottom') ? m + bh / 2 : viewH / 2;
  return [[u, v]];
}

/** A point of the reader's view to unrotated page coordinates (relative to the visible box's corner). */
function toPage(u: number, v: number, turn: number, pw: number, ph: number): [number, number] {
  switch (turn) {
    case 90:
      return [pw - v, u];
    case 180:
      return [pw - u, ph - v];
    case 270:
      return [v, ph - u];
    default:
      return [u, v];
  }
}

/**
 * Adds the watermark stream to the page's /Contents: first for `under`; last for `over`, after the
 * original content wrapped in q … Q so that a transformation it leaves behind cannot move the watermark.
 */
function setContents(context: PDFContext, page: PDFDict, watermarkRef: PDFRef, layer: 'over' | 'under'): void {
  const current = page.get(N.Contents);
  const resolved = context.lookup(current);
  const parts: PDFObject[] = current === undefined ? [] : resolved instanceof PDFArray ? resolved.asArray() : [current];
  const next =
    layer === 'under'
      ? [watermarkRef, ...parts]
      : [context.getPushGraphicsStateContentStream(), ...parts, context.getPopGraphicsStateContentStream(), watermarkRef];
  page.set(N.Contents, context.obj(next));
}

/** A number for a content stream: at most 4 decimals, no exponent, no `-0`. */
function num(n: number): string {
  const r = Math.round(n * 10_000) / 10_000;
  return Object.is(r, -0) ? '0' : String(r);
}
