// The frames of an ODT body: pictures (stored under Pictures/ by content hash) and embedded MathML formula
// objects (Object N/, with a picture in ObjectReplacements/), with what the package writer needs to store them.
import { createHash } from 'node:crypto';
import { el, type Xml } from './xml.js';
import { cm } from './odt-common.js';
import type { AutoStyles } from './odt-auto-styles.js';
import { formulaPreview } from './formula-preview.js';
import type { Picture } from './model.js';

export interface PackagedPicture {
  path: string;
  bytes: Uint8Array;
  mimeType: string;
}

export interface PackagedFormula {
  /** Folder of the embedded formula document ("Object 1"). */
  dir: string;
  mathml: string;
  /** SVG picture of the formula, stored at replacementPath(dir); null when Typst could not draw it. */
  replacement: string | null;
}

const EXT: Record<Picture['mimeType'], string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif' };

export class OdtFrames {
  readonly pictures = new Map<string, PackagedPicture>();
  readonly formulas: PackagedFormula[] = [];
  #images = 0;

  constructor(
    private readonly auto: AutoStyles,
    /** The body font size in pt, for the estimated size of formulas. */
    private readonly fontPt: number,
  ) {}

  /** A picture frame of the picture's size; identical pictures are stored once. */
  image(pic: Picture): Xml {
    const hash = createHash('sha1').update(pic.bytes).digest('hex').slice(0, 20);
    const path = `Pictures/${hash}.${EXT[pic.mimeType]}`;
    if (!this.pictures.has(path)) this.pictures.set(path, { path, bytes: pic.bytes, mimeType: pic.mimeType });
    const n = ++this.#images;
    const style = this.auto.style('graphic', 'fr', { 'style:parent-style-name': 'Graphics' }, el('style:graphic-properties', { 'style:vertical-pos': 'top', 'style:vertical-rel': 'baseline', 'fo:border': 'none', 'style:mirror': 'none' }));
    return el(
      'draw:frame',
      { 'draw:style-name': style, 'draw:name': `Image${n}`, 'text:anchor-type': 'as-char', 'svg:width': cm(pic.widthCm), 'svg:height': cm(pic.heightCm), 'draw:z-index': 0 },
      el('draw:image', { 'xlink:href': path, 'xlink:type': 'simple', 'xlink:show': 'embed', 'xlink:actuate': 'onLoad', 'draw:mime-type': pic.mimeType }),
      pic.alt ? [el('svg:title', null, pic.alt), el('svg:desc', null, pic.alt)] : null,
    );
  }

  /**
   * An embedded formula object: "Object N/content.xml" holds the MathML, "ObjectReplacements/Object N" a
   * picture of it drawn by Typst (formula-preview.ts), which readers without a MathML renderer show. The
   * frame has the picture's size; Writer's Math module resizes it to its own rendering. When Typst cannot
   * draw the formula, the object has no picture and an estimated size.
   */
  formula(mathml: string, latex: string, display: boolean): Xml {
    const n = this.formulas.length + 1;
    const dir = `Object ${n}`;
    const preview = latex ? formulaPreview(latex, display, this.fontPt) : null;
    this.formulas.push({ dir, mathml, replacement: preview?.svg ?? null });
    const style = this.auto.style('graphic', 'fr', { 'style:parent-style-name': 'Formula' }, el('style:graphic-properties', { 'style:vertical-pos': 'middle', 'style:vertical-rel': 'text' }));
    const size = preview ? { width: (preview.widthPt * 2.54) / 72, height: (preview.heightPt * 2.54) / 72 } : formulaSizeCm(mathml, this.fontPt);
    return el(
      'draw:frame',
      { 'draw:style-name': style, 'draw:name': `Formula${n}`, 'text:anchor-type': 'as-char', 'svg:width': cm(size.width), 'svg:height': cm(size.height), 'draw:z-index': 0 },
      el('draw:object', { 'xlink:href': `./${dir}`, 'xlink:type': 'simple', 'xlink:show': 'embed', 'xlink:actuate': 'onLoad' }),
      preview ? el('draw:image', { 'xlink:href': `./${replacementPath(dir)}`, 'xlink:type': 'simple', 'xlink:show': 'embed', 'xlink:actuate': 'onLoad' }) : null,
      latex ? el('svg:desc', null, latex) : null,
    );
  }
}

/** Where the package keeps a formula object's picture. */
export function replacementPath(dir: string): string {
  return `ObjectReplacements/${dir}`;
}

/** A formula's size estimated from its MathML: characters at 0.6 em, taller when something is stacked (fractions, limits). */
function formulaSizeCm(mathml: string, fontPt: number): { width: number; height: number } {
  const visible = mathml.replace(/<annotation[\s\S]*?<\/annotation(-xml)?>/g, '').replace(/<[^>]*>/g, '').replace(/&[^;]+;/g, 'x').replace(/\s+/g, '');
  const stacked = /<(mfrac|munderover|munder|mover|mtable)\b/.test(mathml);
  const em = (fontPt * 2.54) / 72;
  return { width: Math.max(0.3, visible.length * 0.6 * em), height: (stacked ? 2.4 : 1.3) * em };
}
