// Which Chinese, Japanese or Korean glyph forms a document gets: from its language (`defaults.locale`), else from the script of its text.

/** The regional CJK font families: one Han character has different standard forms in each. */
export type CjkVariant = 'SC' | 'TC' | 'JP' | 'KR';

export const CJK_FAMILIES: Record<CjkVariant, string> = { SC: 'Noto Sans SC', TC: 'Noto Sans TC', JP: 'Noto Sans JP', KR: 'Noto Sans KR' };

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;
const HAN = /\p{Script=Han}/u;

/**
 * The variant a BCP 47 tag asks for, or null for a language that is not Chinese, Japanese or Korean:
 * zh-Hant, zh-TW, zh-HK and zh-MO → TC; any other zh (zh-Hans, zh-CN, zh-SG, bare zh) → SC; ja → JP; ko → KR.
 */
export function cjkVariantOfLocale(locale: string | undefined): CjkVariant | null {
  if (!locale) return null;
  const [lang, ...rest] = locale.split(/[-_]/).map((p) => p.toLowerCase());
  if (lang === 'ja') return 'JP';
  if (lang === 'ko') return 'KR';
  if (lang !== 'zh') return null;
  if (rest.includes('hant') || rest.some((p) => p === 'tw' || p === 'hk' || p === 'mo')) return 'TC';
  return 'SC';
}

/** Without a CJK language: kana anywhere → JP, else hangul → KR, else Han characters → SC; null for text without any of them. */
export function cjkVariantOfText(texts: Iterable<string>): CjkVariant | null {
  let han = false;
  let hangul = false;
  for (const t of texts) {
    if (KANA.test(t)) return 'JP';
    hangul ||= HANGUL.test(t);
    han ||= HAN.test(t);
  }
  return hangul ? 'KR' : han ? 'SC' : null;
}

/** The document's variant: its locale's when that is a CJK language, else its text's, else SC (for the fallback order only). */
export function documentCjkVariant(locale: string | undefined, texts: () => Iterable<string>): CjkVariant {
  return cjkVariantOfLocale(locale) ?? cjkVariantOfText(texts()) ?? 'SC';
}

/** Complex scripts (Word's w:cs, ODF's -complex) and their bundled families, in order of precedence. */
const COMPLEX: Array<[RegExp, string]> = [
  [/\p{Script=Arabic}/u, 'Noto Sans Arabic'],
  [/\p{Script=Hebrew}/u, 'Noto Sans Hebrew'],
  [/\p{Script=Thai}/u, 'Noto Sans Thai'],
  [/\p{Script=Devanagari}/u, 'Noto Sans Devanagari'],
];

/**
 * The fonts an office document names for East Asian and complex-script text: its CJK variant's family when it is
 * in a CJK language or has CJK text, and the family of the complex script its text has (by COMPLEX's precedence:
 * Word gives every right-to-left run the w:cs font); null where it has
 * neither (the body font then serves, as before).
 */
export function officeScriptFonts(locale: string | undefined, texts: () => Iterable<string>): { asian: string | null; complex: string | null } {
  const fromLocale = cjkVariantOfLocale(locale);
  const variant = fromLocale ?? cjkVariantOfText(texts());
  const present = new Set<string>();
  for (const t of texts()) for (const [re, family] of COMPLEX) if (re.test(t)) present.add(family);
  const complex = COMPLEX.find(([, family]) => present.has(family))?.[1] ?? null;
  return { asian: variant ? CJK_FAMILIES[variant] : null, complex };
}

/** The four CJK families with the document's variant first (the others still draw what it lacks, e.g. hangul). */
export function cjkFamilies(variant: CjkVariant): string[] {
  return [CJK_FAMILIES[variant], ...(['SC', 'TC', 'JP', 'KR'] as const).filter((v) => v !== variant).map((v) => CJK_FAMILIES[v])];
}
