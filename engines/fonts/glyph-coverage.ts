// Characters no font of the renderer can draw (GLYPH_MISSING): the document's text against the character maps of the bundled fonts.
import { existsSync } from 'node:fs';
import { inRanges, readCmapRanges, type CodePointRanges } from './cmap.js';
import { bundledFontFile } from './bundled-fonts.js';
import type { DocumentJson } from '../../contracts/document-json.js';

/**
 * The fonts searched, in the order of the PDF's font list; the Regular file of each (the Bold ones cover the
 * same characters). DejaVu Sans Mono is built into the Typst compiler; its character map is read from the
 * system copy (Debian fonts-dejavu-core, which LibreOffice needs too) when there is one.
 */
const DEJAVU_MONO = '/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf';
const FAMILIES = ['Noto Sans', 'Noto Serif', 'JetBrains Mono', 'Noto Sans Mono', 'Noto Sans Hebrew', 'Noto Sans Arabic', 'Noto Emoji', 'DejaVu Sans Mono', 'Noto Sans Thai', 'Noto Sans Devanagari', 'Noto Sans SC', 'Noto Sans TC', 'Noto Sans JP', 'Noto Sans KR'];

/** The Regular file of a bundled family: package `noto-sans-sc`, file `400Regular/NotoSansSC_400Regular.ttf`. */
function regularFile(family: string): string | null {
  if (family === 'DejaVu Sans Mono') return existsSync(DEJAVU_MONO) ? DEJAVU_MONO : null;
  return bundledFontFile(family.toLowerCase().replace(/ /g, '-'), `400Regular/${family.replace(/ /g, '')}_400Regular.ttf`);
}

/** The families searched, for messages. */
export const SEARCHED_FAMILIES = FAMILIES;

/** Each face's covered code points; read when a character first gets that far down the list (a Latin text reads one cmap). */
const cmaps: Array<CodePointRanges | undefined> = [];

function cmap(i: number): CodePointRanges {
  let ranges = cmaps[i];
  if (!ranges) {
    const file = regularFile(FAMILIES[i]!);
    ranges = file ? readCmapRanges(file) : new Uint32Array();
    cmaps[i] = ranges;
  }
  return ranges;
}

/**
 * Characters that need no glyph of their own: spaces, controls, format characters (joiners, direction marks,
 * soft hyphen), variation selectors, emoji skin-tone modifiers and tag characters are shaped into their neighbours.
 */
const NO_GLYPH = /[\s\p{Cc}\p{Cf}\p{Cs}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u{1F3FB}-\u{1F3FF}\u{E0020}-\u{E007F}]/u;
const PLAIN = /^[\x20-\x7E\t\n\r]*$/;
const covered = new Map<number, boolean>();

/** Whether some searched font has a glyph for the code point. */
export function canDraw(cp: number): boolean {
  let known = covered.get(cp);
  if (known === undefined) {
    known = false;
    for (let i = 0; i < FAMILIES.length && !known; i++) known = inRanges(cmap(i), cp);
    // Bounded: a document of many distinct characters must not grow the thread's memory without limit.
    if (covered.size < 100_000) covered.set(cp, known);
  }
  return known;
}

/** Whether the bundled family `family` (one of SEARCHED_FAMILIES) has a glyph for the code point; false for any other family. */
export function familyHas(family: string, cp: number): boolean {
  const i = FAMILIES.indexOf(family);
  return i >= 0 && inRanges(cmap(i), cp);
}

/** The characters of `text` no searched font draws, each once, in order of appearance. */
export function missingCharacters(text: string): string[] {
  if (PLAIN.test(text)) return [];
  const missing = new Set<string>();
  for (const ch of text) {
    if (ch.charCodeAt(0) < 0x7f || NO_GLYPH.test(ch)) continue;
    if (!canDraw(ch.codePointAt(0)!)) missing.add(ch);
  }
  return [...missing];
}

/** Keys whose strings are not printed as text: identifiers, addresses, and LaTeX (math has its own fonts). */
const NOT_TEXT = new Set(['type', 'id', 'src', 'href', 'url', 'latex', 'anchor', 'format', 'color', 'align']);

/** Each printed string of the document with its path (`sections[0].content[2].text`, `variables.name`). */
export function* documentStrings(doc: DocumentJson): Generator<{ path: string; text: string }> {
  yield* walk(doc, '');
}

function* walk(value: unknown, path: string): Generator<{ path: string; text: string }> {
  if (typeof value === 'string') yield { path, text: value };
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* walk(value[i], `${path}[${i}]`);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (!NOT_TEXT.has(k)) yield* walk(v, path ? `${path}.${k}` : k);
  }
}

/** One place with characters no font draws. */
export interface MissingGlyphs {
  path: string;
  characters: string[];
}

/** Every string of the document with characters no searched font draws. */
export function missingGlyphs(doc: DocumentJson): MissingGlyphs[] {
  const found: MissingGlyphs[] = [];
  for (const { path, text } of documentStrings(doc)) {
    const characters = missingCharacters(text);
    if (characters.length) found.push({ path, characters });
  }
  return found;
}

/** The message of one GLYPH_MISSING finding: the characters (with their code points) and the fonts tried. */
export function glyphMissingMessage(m: MissingGlyphs): string {
  const chars = m.characters.map((c) => `"${c}" (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`).join(', ');
  return `no available font can draw ${chars}; they print as empty boxes. Fonts tried: ${SEARCHED_FAMILIES.join(', ')}`;
}
