// The bundled fonts of the scripts LibreOffice's system lacks, linked into the folder its fontconfig reads from the private instance's XDG data folder.
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { coreFontFiles, scriptFontFiles } from '../fonts/bundled-fonts.js';

/**
 * Quire's own Noto files (Latin, Greek, Cyrillic, Hebrew, Arabic, emoji, Thai, Devanagari), so that the font
 * names DOCX and ODT give (w:cs, style:font-name-complex, the body's Noto Sans) are found, as in the PDF renderer,
 * without a system font package (Debian's fonts-noto-core would also reach the canvas that draws office pictures,
 * whose "Noto Sans" must stay the bundled one). Chinese, Japanese and Korean come from the system's fonts-noto-cjk
 * (setup installs it): linking the 60 MB of bundled CJK files would have fontconfig scan them at every start.
 * Links, not copies: nothing is read until fontconfig scans the folder as soffice starts.
 */
export async function linkBundledFonts(xdgDataHome: string): Promise<void> {
  const dir = path.join(xdgDataHome, 'fonts');
  await mkdir(dir, { recursive: true });
  const files = [...coreFontFiles(), ...scriptFontFiles(['noto-sans-thai', 'noto-sans-devanagari'])];
  await Promise.all(files.map((file) => symlink(file, path.join(dir, path.basename(file)))));
}
