// The fonts of the PDF target: a fixed OFL set from npm packages (same input, same PDF on every machine).
import { readFileSync } from 'node:fs';
import { coreFontFiles } from './bundled-fonts.js';
import { cjkFamilies, type CjkVariant } from './scripts.js';

/** Names a document may use in `defaults.fonts.family` besides the real family names. */
const ALIASES: Record<string, string> = {
  sans: 'Noto Sans',
  'quire sans': 'Noto Sans',
  serif: 'Noto Serif',
  'quire serif': 'Noto Serif',
  mono: 'JetBrains Mono',
  'quire mono': 'JetBrains Mono',
};

/** Scripts the main families lack (Hebrew, Arabic, emoji) come from these, in order. */
const FALLBACKS = ['Noto Sans', 'Noto Sans Hebrew', 'Noto Sans Arabic', 'Noto Emoji', 'DejaVu Sans Mono'];

/**
 * The fonts of further scripts, after FALLBACKS: a character those drew before is drawn by them still (same
 * output), and a Latin document never opens a CJK file. The CJK order is the document's (see scripts.ts).
 */
function scriptFallbacks(cjk: CjkVariant): string[] {
  return ['Noto Sans Thai', 'Noto Sans Devanagari', ...cjkFamilies(cjk)];
}

/** Families installed with Quire (Typst also embeds Libertinus Serif, New Computer Modern and DejaVu Sans Mono). */
export const BUNDLED_FAMILIES = ['Noto Sans', 'Noto Serif', 'JetBrains Mono', 'Noto Sans Mono', 'Noto Sans Hebrew', 'Noto Sans Arabic', 'Noto Emoji', 'Noto Sans Thai', 'Noto Sans Devanagari', 'Noto Sans SC', 'Noto Sans TC', 'Noto Sans JP', 'Noto Sans KR', 'Libertinus Serif', 'New Computer Modern', 'DejaVu Sans Mono'];

/** The font list for code: the mono families, then the fallbacks of text. */
export function monoStack(cjk: CjkVariant = 'SC'): string[] {
  return ['JetBrains Mono', 'Noto Sans Mono', 'DejaVu Sans Mono', ...FALLBACKS, ...scriptFallbacks(cjk)];
}

export const MONO_STACK = monoStack();

/** The font list for text: the requested family first, then the fallbacks that cover other scripts (CJK in the document's order). */
export function fontStack(family: string | undefined, cjk: CjkVariant = 'SC'): string[] {
  const main = family ? (ALIASES[family.trim().toLowerCase()] ?? family.trim()) : 'Noto Sans';
  return [main, ...[...FALLBACKS, ...scriptFallbacks(cjk)].filter((f) => f.toLowerCase() !== main.toLowerCase())];
}

/**
 * The bytes of the core bundled font files (Latin, Greek, Cyrillic, Hebrew, Arabic, emoji), read once per
 * worker thread by the SVG renderer of office pictures: the script fonts (the CJK files are about
 * 60 MB) are registered by path when a picture's text first needs them (engines/office/picture-text.ts).
 */
export function bundledFontBlobs(): Buffer[] {
  return coreFontFiles().map((f) => readFileSync(f));
}
