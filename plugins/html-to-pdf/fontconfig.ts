// Chromium's fonts: Quire's bundled set plus the operator's font folders, nothing from the machine.
//
// Chromium finds fonts through fontconfig, which reads FONTCONFIG_FILE. The server process sets that variable to
// an empty configuration for Typst (render-pdf), and Chromium would inherit it and draw no text at all; it gets
// this file instead. Same HTML, same fonts, on every machine (DESIGN §2).
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { escapeXml } from '../../engines/xml-escape.js';
import { bundledFontFiles } from '../../engines/fonts/bundled-fonts.js';

/** Scripts the main families lack come from these, in order. */
const FALLBACKS = ['Noto Sans Hebrew', 'Noto Sans Arabic', 'Noto Emoji'];

/** CSS generic families and the common names pages ask for, mapped onto the bundled families. */
const FAMILY_MAP: Record<string, string[]> = {
  'sans-serif': ['Noto Sans'],
  serif: ['Noto Serif'],
  monospace: ['JetBrains Mono', 'Noto Sans Mono'],
  'system-ui': ['Noto Sans'],
  Arial: ['Noto Sans'],
  Helvetica: ['Noto Sans'],
  'Helvetica Neue': ['Noto Sans'],
  Verdana: ['Noto Sans'],
  'Times New Roman': ['Noto Serif'],
  Times: ['Noto Serif'],
  Georgia: ['Noto Serif'],
  'Courier New': ['JetBrains Mono'],
  Courier: ['JetBrains Mono'],
};

export function fontConfigXml(fontDirs: string[]): string {
  const dirs = [...new Set([...bundledFontFiles().map((f) => path.dirname(f)), ...fontDirs.map((d) => path.resolve(d))])];
  const aliases = Object.entries(FAMILY_MAP).map(
    ([family, prefer]) => `  <alias binding="same"><family>${escapeXml(family)}</family><prefer>${[...prefer, ...FALLBACKS].map((f) => `<family>${escapeXml(f)}</family>`).join('')}</prefer></alias>`,
  );
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    '<fontconfig>',
    ...dirs.map((d) => `  <dir>${escapeXml(d)}</dir>`),
    `  <cachedir>${escapeXml(path.join(tmpdir(), 'quire-fontconfig-cache'))}</cachedir>`,
    ...aliases,
    // A family nobody has falls back to sans-serif (what the usual 49-sansserif.conf does).
    '  <match target="pattern">',
    '    <test qual="all" name="family" compare="not_eq"><string>sans-serif</string></test>',
    '    <test qual="all" name="family" compare="not_eq"><string>serif</string></test>',
    '    <test qual="all" name="family" compare="not_eq"><string>monospace</string></test>',
    '    <edit name="family" mode="append_last"><string>sans-serif</string></edit>',
    '  </match>',
    '</fontconfig>',
    '',
  ].join('\n');
}

/** Writes the configuration into `dir` (the browser's profile) and returns its path for FONTCONFIG_FILE. */
export async function writeFontConfig(dir: string, fontDirs: string[]): Promise<string> {
  const file = path.join(dir, 'fonts.conf');
  await writeFile(file, fontConfigXml(fontDirs));
  return file;
}
