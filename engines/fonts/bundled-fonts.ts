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

/**
 * The fonts of further scripts (docs/rendering.md, "Scripts and fonts"). Regular and Bold only: the packages have
 * no italics (Typst slants the regular). The CJK files are 5–10 MB each: they are handed to the compilers as paths,
 * read when a document first needs the script, never as bytes into every thread (see scriptFontFiles).
 */
const SCRIPT_FONTS: Record<string, string[]> = {
  'noto-sans-thai': ['400Regular/NotoSansThai_400Regular.ttf', '700Bold/NotoSansThai_700Bold.ttf'],
  'noto-sans-devanagari': ['400Regular/NotoSansDevanagari_400Regular.ttf', '700Bold/NotoSansDevanagari_700Bold.ttf'],
  'noto-sans-sc': ['400Regular/NotoSansSC_400Regular.ttf', '700Bold/NotoSansSC_700Bold.ttf'],
  'noto-sans-tc': ['400Regular/NotoSansTC_400Regular.ttf', '700Bold/NotoSansTC_700Bold.ttf'],
  'noto-sans-jp': ['400Regular/NotoSansJP_400Regular.ttf', '700Bold/NotoSansJP_700Bold.ttf'],
  'noto-sans-kr': ['400Regular/NotoSansKR_400Regular.ttf', '700Bold/NotoSansKR_700Bold.ttf'],
};

/** Absolute paths of the bundled font files of the Latin, Greek, Cyrillic, Hebrew and Arabic families and emoji. */
export function coreFontFiles(): string[] {
  return Object.entries(BUNDLED).flatMap(([pkg, names]) => names.map((f) => bundledFontFile(pkg, f)));
}

/** Absolute paths of the bundled font files of the other scripts (Thai, Devanagari, Chinese, Japanese, Korean), or of the packages named (`noto-sans-thai`). */
export function scriptFontFiles(packages: string[] = Object.keys(SCRIPT_FONTS)): string[] {
  return packages.flatMap((pkg) => (SCRIPT_FONTS[pkg] ?? []).map((f) => bundledFontFile(pkg, f)));
}

/**
 * The file of one style of a further script's family (`Noto Sans Thai`, `Noto Sans SC`, …), for renderers that
 * register fonts by path when a text first needs them; null for the core families and any other name.
 */
export function scriptFamilyFile(family: string, bold: boolean): string | null {
  const pkg = family.toLowerCase().replace(/ /g, '-');
  const file = SCRIPT_FONTS[pkg]?.[bold ? 1 : 0];
  return file ? bundledFontFile(pkg, file) : null;
}

/** Absolute paths of every bundled font file: for compilers that read a file only when a document uses it. */
export function bundledFontFiles(): string[] {
  return [...coreFontFiles(), ...scriptFontFiles()];
}

/** Absolute path of one bundled font file: `pkg` as in BUNDLED (e.g. `noto-sans`), `file` one of its entries. */
export function bundledFontFile(pkg: string, file: string): string {
  if (!(BUNDLED[pkg] ?? SCRIPT_FONTS[pkg])?.includes(file)) throw new Error(`${pkg}/${file} is not a bundled font file.`);
  return path.join(path.dirname(require.resolve(`@expo-google-fonts/${pkg}/package.json`)), file);
}
