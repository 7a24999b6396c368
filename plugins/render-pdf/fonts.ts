// The fonts of the PDF target: a fixed OFL set from npm packages (same input, same PDF on every machine).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** Bundled font files: package → the styles loaded (Regular, Italic, Bold, BoldItalic where they exist). */
const BUNDLED: Record<string, string[]> = {
  'noto-sans': ['400Regular/NotoSans_400Regular.ttf', '400Regular_Italic/NotoSans_400Regular_Italic.ttf', '700Bold/NotoSans_700Bold.ttf', '700Bold_Italic/NotoSans_700Bold_Italic.ttf'],
  'noto-serif': ['400Regular/NotoSerif_400Regular.ttf', '400Regular_Italic/NotoSerif_400Regular_Italic.ttf', '700Bold/NotoSerif_700Bold.ttf', '700Bold_Italic/NotoSerif_700Bold_Italic.ttf'],
  // The mono family: Noto Sans Mono has no italic, JetBrains Mono has all four styles (Latin, Greek, Cyrillic).
  'jetbrains-mono': ['400Regular/JetBrainsMono_400Regular.ttf', '400Regular_Italic/JetBrainsMono_400Regular_Italic.ttf', '700Bold/JetBrainsMono_700Bold.ttf', '700Bold_Italic/JetBrainsMono_700Bold_Italic.ttf'],
  // Kept for documents that name it.
  'noto-sans-mono': ['400Regular/NotoSansMono_400Regular.ttf', '700Bold/NotoSansMono_700Bold.ttf'],
  'noto-sans-hebrew': ['400Regular/NotoSansHebrew_400Regular.ttf', '700Bold/NotoSansHebrew_700Bold.ttf'],
  'noto-sans-arabic': ['400Regular/NotoSansArabic_400Regular.ttf', '700Bold/NotoSansArabic_700Bold.ttf'],
  'noto-emoji': ['400Regular/NotoEmoji_400Regular.ttf'],
};

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
  const blobs: Buffer[] = [];
  for (const [pkg, files] of Object.entries(BUNDLED)) {
    const dir = path.dirname(require.resolve(`@expo-google-fonts/${pkg}/package.json`));
    for (const f of files) blobs.push(readFileSync(path.join(dir, f)));
  }
  return blobs;
}
