// The fonts of the PDF target: a fixed OFL set from npm packages (same input, same PDF on every machine).
import { readFileSync } from 'node:fs';
import { bundledFontFiles } from './bundled-fonts.js';

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

/** Families installed with Quire (Typst also embeds Libertinus Serif, New Computer Modern and DejaVu Sans Mono). */
export const BUNDLED_FAMILIES = ['Noto Sans', 'Noto Serif', 'JetBrains Mono', 'Noto Sans Mono', 'Noto Sans Hebrew', 'Noto Sans Arabic', 'Noto Emoji', 'Libertinus Serif', 'New Computer Modern', 'DejaVu Sans Mono'];

export const MONO_STACK = ['JetBrains Mono', 'Noto Sans Mono', 'DejaVu Sans Mono', ...FALLBACKS];

/** The font list for text: the requested family first, then the fallbacks that cover other scripts. */
export function fontStack(family: string | undefined): string[] {
  const main = family ? (ALIASES[family.trim().toLowerCase()] ?? family.trim()) : 'Noto Sans';
  return [main, ...FALLBACKS.filter((f) => f.toLowerCase() !== main.toLowerCase())];
}

/** The bytes of every bundled font file, read once per worker thread. */
export function bundledFontBlobs(): Buffer[] {
  return bundledFontFiles().map((f) => readFileSync(f));
}
