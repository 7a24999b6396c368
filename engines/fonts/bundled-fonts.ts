// The OFL fonts Quire ships (npm packages): the PDF renderer embeds them, Chromium (HTML to PDF) sees only them.
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

/** Absolute paths of the bundled font files. */
export function bundledFontFiles(): string[] {
  return Object.entries(BUNDLED).flatMap(([pkg, names]) => names.map((f) => bundledFontFile(pkg, f)));
}

/** Absolute path of one bundled font file: `pkg` as in BUNDLED (e.g. `noto-sans`), `file` one of its entries. */
export function bundledFontFile(pkg: string, file: string): string {
  if (!BUNDLED[pkg]?.includes(file)) throw new Error(`${pkg}/${file} is not a bundled font file.`);
  return path.join(path.dirname(require.resolve(`@expo-google-fonts/${pkg}/package.json`)), file);
}
