// Fonts for user text that pdf-lib draws into a PDF (watermark text, form values): Helvetica for Windows-1252 text, else subsets of the bundled Noto fonts; characters none of them has are reported, never drawn as boxes.
import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { StandardFontEmbedder, StandardFonts, type PDFDocument, type PDFFont } from 'pdf-lib';
import { bundledFontFile } from '../fonts/bundled-fonts.js';
import { familyHas } from '../fonts/glyph-coverage.js';
import { cjkFamilies, cjkVariantOfText, type CjkVariant } from '../fonts/scripts.js';
import { fixFontkitSubsets } from './fontkit-subset-fix.js';
// @pdf-lib/fontkit's shapers for Devanagari and other Indic and Southeast Asian scripts were compiled with Babel's
// generators and call the global `regeneratorRuntime` it never imports: without this, a Devanagari text throws.
import 'regenerator-runtime/runtime.js';

export type FaceId = 'helvetica' | 'noto-sans' | 'noto-sans-hebrew' | 'noto-sans-arabic' | 'noto-emoji' | 'noto-sans-thai' | 'noto-sans-sc' | 'noto-sans-tc' | 'noto-sans-jp' | 'noto-sans-kr';
type NotoId = Exclude<FaceId, 'helvetica'>;

/** The embedded fonts, in the order they are tried for a character (docs/pdf-tools.md#fonts-for-text); the CJK ones follow in the text's order (notoOrder). */
const NOTO: Array<{ id: NotoId; pkg: string; file: string }> = [
  { id: 'noto-sans', pkg: 'noto-sans', file: '400Regular/NotoSans_400Regular.ttf' },
  { id: 'noto-sans-hebrew', pkg: 'noto-sans-hebrew', file: '400Regular/NotoSansHebrew_400Regular.ttf' },
  { id: 'noto-sans-arabic', pkg: 'noto-sans-arabic', file: '400Regular/NotoSansArabic_400Regular.ttf' },
  { id: 'noto-emoji', pkg: 'noto-emoji', file: '400Regular/NotoEmoji_400Regular.ttf' },
  // Noto Sans itself has Devanagari.
  { id: 'noto-sans-thai', pkg: 'noto-sans-thai', file: '400Regular/NotoSansThai_400Regular.ttf' },
  { id: 'noto-sans-sc', pkg: 'noto-sans-sc', file: '400Regular/NotoSansSC_400Regular.ttf' },
  { id: 'noto-sans-tc', pkg: 'noto-sans-tc', file: '400Regular/NotoSansTC_400Regular.ttf' },
  { id: 'noto-sans-jp', pkg: 'noto-sans-jp', file: '400Regular/NotoSansJP_400Regular.ttf' },
  { id: 'noto-sans-kr', pkg: 'noto-sans-kr', file: '400Regular/NotoSansKR_400Regular.ttf' },
];

const CJK_IDS = new Set<FaceId>(['noto-sans-sc', 'noto-sans-tc', 'noto-sans-jp', 'noto-sans-kr']);

/**
 * The Noto fonts in the order tried for text whose CJK characters take the `cjk` forms: the CJK ones in the renderer's
 * order (engines/fonts/scripts.ts `cjkFamilies`: the variant of the text first).
 */
function notoOrder(cjk: CjkVariant): NotoId[] {
  return [...NOTO.filter((f) => !CJK_IDS.has(f.id)).map((f) => f.id), ...cjkFamilies(cjk).map((family) => family.toLowerCase().replace(/ /g, '-') as NotoId)];
}

/** The CJK forms of a text: those of its own script (kana → JP, hangul → KR, Han → SC). */
export function textCjkVariant(text: string): CjkVariant {
  return cjkVariantOfText([text]) ?? 'SC';
}

export const FACE_NAMES: Record<FaceId, string> = {
  helvetica: 'Helvetica',
  'noto-sans': 'Noto Sans',
  'noto-sans-hebrew': 'Noto Sans Hebrew',
  'noto-sans-arabic': 'Noto Sans Arabic',
  'noto-emoji': 'Noto Emoji',
  'noto-sans-thai': 'Noto Sans Thai',
  'noto-sans-sc': 'Noto Sans SC',
  'noto-sans-tc': 'Noto Sans TC',
  'noto-sans-jp': 'Noto Sans JP',
  'noto-sans-kr': 'Noto Sans KR',
};

/** The rule in one phrase, for error messages. */
export const FONT_RULE = 'Helvetica when all of it is Windows-1252, otherwise Noto Sans, Noto Sans Hebrew, Noto Sans Arabic, Noto Emoji, Noto Sans Thai or Noto Sans SC, TC, JP or KR';

/** A stretch of one line drawn in one font. */
export interface TextRun {
  text: string;
  face: FaceId;
}

// The embedder alone answers "can Helvetica encode this?" without adding a font to any document (pdf-lib's enum and its font-name type are the same strings).
const helvetica = StandardFontEmbedder.for(StandardFonts.Helvetica as unknown as Parameters<typeof StandardFontEmbedder.for>[0]);
/** Characters that need no glyph of their own: line breaks (callers lay out lines) and variation selectors (fontkit reads them with the character before). */
const NO_GLYPH = /^[\r\n\uFE00-\uFE0F\u{E0100}-\u{E01EF}]$/u;
/** Spaces, punctuation and combining marks stay in the font of the run they are in, so a Hebrew phrase is one run. Digits always take the first font that has them. */
const NEUTRAL = /^(?!\p{Nd})[\p{Script=Common}\p{Script=Inherited}]$/u;
/** Faces whose runs fontkit lays out right to left (it reverses the glyphs of a Hebrew or Arabic run). */
const RIGHT_TO_LEFT = new Set<FaceId>(['noto-sans-hebrew', 'noto-sans-arabic']);
const TRAILING_NEUTRALS = /(?:(?!\p{Nd})\p{Script=Common})+$/u;

interface LoadedFace {
  bytes: Uint8Array;
  font: fontkit.Font;
}
const loaded = new Map<NotoId, LoadedFace>();

/**
 * What pdf-lib is given as its fontkit. pdf-lib parses a font's bytes on every embedFont, and fontkit builds its
 * layout tables on a font's first text, which costs ~130 ms for Noto Sans, per job. This hands pdf-lib the font
 * parsed once per thread instead; a fontkit font is only read afterwards (each document takes its own subset).
 */
const threadFontkit: Parameters<PDFDocument['registerFontkit']>[0] = {
  create: (bytes: Uint8Array, postscriptName?: string) => [...loaded.values()].find((face) => face.bytes === bytes)?.font ?? fontkit.create(bytes, postscriptName),
};

/** A Noto font read and parsed once per worker thread (the files are 0.2–0.9 MB; a CJK one 5–10 MB, read only when a text draws with it). */
function load(id: NotoId): LoadedFace {
  let face = loaded.get(id);
  if (!face) {
    const entry = NOTO.find((f) => f.id === id)!;
    const bytes = readFileSync(bundledFontFile(entry.pkg, entry.file));
    const font = fontkit.create(bytes);
    fixFontkitSubsets(font);
    face = { bytes, font };
    loaded.set(id, face);
  }
  return face;
}

function hasGlyph(id: FaceId, char: string): boolean {
  // The fonts of further scripts are asked through their character maps alone (engines/fonts/glyph-coverage.ts), so
  // that asking whether a CJK font has a character does not read its 10 MB.
  if (id === 'noto-sans-thai' || CJK_IDS.has(id)) return familyHas(FACE_NAMES[id], char.codePointAt(0)!);
  if (id === 'helvetica') {
    try {
      helvetica.encodeText(char);
      return true;
    } catch {
      return false;
    }
  }
  return load(id).font.hasGlyphForCodePoint(char.codePointAt(0)!);
}

function drawnChars(text: string): string[] {
  return [...text].filter((c) => !NO_GLYPH.test(c));
}

/** Whether Helvetica (a standard font, nothing embedded) can draw all of `text`. */
export function isWinAnsi(text: string): boolean {
  return drawnChars(text).every((c) => hasGlyph('helvetica', c));
}

/**
 * How one line is drawn: all in Helvetica when it can be (and `allowHelvetica`), else in runs of
 * the first Noto font that has each character. `missing` lists the characters (once each, in order)
 * that no bundled font has.
 */
export function planLine(text: string, allowHelvetica = true, cjk: CjkVariant = textCjkVariant(text)): { runs: TextRun[]; missing: string[] } {
  if (allowHelvetica && isWinAnsi(text)) return { runs: text ? [{ text, face: 'helvetica' }] : [], missing: [] };
  const order = notoOrder(cjk);
  const runs: TextRun[] = [];
  const missing = new Set<string>();
  let run: TextRun | undefined;
  for (const char of text) {
    // Not in an emoji run: Noto Emoji's space and punctuation are emoji-wide.
    if (run && (NO_GLYPH.test(char) || (run.face !== 'noto-emoji' && NEUTRAL.test(char) && hasGlyph(run.face, char)))) {
      run.text += char;
      continue;
    }
    const face = order.find((f) => hasGlyph(f, char));
    if (!face) {
      if (!NO_GLYPH.test(char)) missing.add(char);
      continue;
    }
    if (run?.face === face) {
      run.text += char;
      continue;
    }
    // Spaces and punctuation after a right-to-left phrase belong to what follows: left in its run, they would be reversed to its start.
    // They take the first font that has them (the emoji font's space, for one, is far wider than a text space).
    let carried = run && RIGHT_TO_LEFT.has(run.face) ? (TRAILING_NEUTRALS.exec(run.text)?.[0] ?? '') : '';
    if (carried) {
      run!.text = run!.text.slice(0, -carried.length);
      const carrier = order.find((f) => [...carried].every((c) => hasGlyph(f, c))) ?? face;
      if (carrier !== face) {
        runs.push({ text: carried, face: carrier });
        carried = '';
      }
    }
    runs.push((run = { text: carried + char, face }));
  }
  return { runs: runs.filter((r) => r.text !== ''), missing: [...missing] };
}

/**
 * The one font that draws all of `text` (form fields take one font each): Helvetica when it can, else
 * the first Noto font that has every character. Otherwise `missing` (characters no bundled font has)
 * or `split` (the fonts the text would need together).
 */
export function singleFace(text: string): { face: FaceId } | { missing: string[] } | { split: FaceId[] } {
  if (isWinAnsi(text)) return { face: 'helvetica' };
  const chars = drawnChars(text);
  const cjk = textCjkVariant(text);
  const whole = notoOrder(cjk).find((f) => chars.every((c) => hasGlyph(f, c)));
  if (whole) return { face: whole };
  const { runs, missing } = planLine(chars.join(''), false, cjk);
  return missing.length ? { missing } : { split: [...new Set(runs.map((r) => r.face))] };
}

/** `"中" (U+4E2D), "文" (U+6587)` for a message; past `max` characters the rest are counted. */
export function describeChars(chars: string[], max = 12): string {
  const shown = chars.slice(0, max).map((c) => `${JSON.stringify(c)} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`);
  return shown.join(', ') + (chars.length > max ? ` and ${chars.length - max} more` : '');
}

/**
 * The fonts of one document, embedded on first use: Helvetica as a standard font, the Noto fonts as
 * subsets (only the glyphs drawn are written when the document is saved).
 */
export class TextFonts {
  private readonly fonts = new Map<FaceId, Promise<PDFFont>>();

  constructor(private readonly doc: PDFDocument) {}

  font(id: FaceId): Promise<PDFFont> {
    let font = this.fonts.get(id);
    if (!font) {
      if (id === 'helvetica') font = this.doc.embedFont(StandardFonts.Helvetica);
      else {
        this.doc.registerFontkit(threadFontkit);
        font = this.doc.embedFont(load(id).bytes, { subset: true });
      }
      this.fonts.set(id, font);
    }
    return font;
  }
}
