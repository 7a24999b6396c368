// Poppler's command-line readers for tests: page sizes (pdfinfo), text (pdftotext), fonts (pdffonts), embedded images (pdfimages -list), a page drawn grey (pdftoppm).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readPgm, type Pixels } from './image-readers.js';

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 64 << 20, timeout: 120_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} failed: ${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

async function withPdf<T>(bytes: Uint8Array, fn: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-poppler-'));
  try {
    const file = path.join(dir, 'input.pdf');
    await writeFile(file, bytes);
    return await fn(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The standard output of a poppler reader run on the PDF (`pdftotext` writes to it: `-` is added). */
export function popplerOutput(cmd: 'pdftotext' | 'pdfinfo' | 'pdfimages' | 'pdffonts', args: string[], bytes: Uint8Array): Promise<string> {
  return withPdf(bytes, (file) => run(cmd, cmd === 'pdftotext' ? [...args, file, '-'] : [...args, file]));
}

/** Width and height in points of every page, as `pdfinfo -f 1 -l <n>` reports them. */
export function pdfinfoPageSizes(bytes: Uint8Array): Promise<Array<{ width: number; height: number }>> {
  return withPdf(bytes, async (file) => {
    const out = await run('pdfinfo', ['-f', '1', '-l', '100000', file]);
    return [...out.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => ({ width: Number(m[1]), height: Number(m[2]) }));
  });
}

/** The text of every page, as `pdftotext -layout` lays it out. */
export function pdftotextLayout(bytes: Uint8Array): Promise<string> {
  return popplerOutput('pdftotext', ['-layout'], bytes);
}

/** `pdffonts`' table of the fonts the PDF uses (one row a font: name, type, embedded, …). */
export function pdffontsTable(bytes: Uint8Array): Promise<string> {
  return popplerOutput('pdffonts', [], bytes);
}

export interface ListedImage {
  page: number;
  type: string;
  width: number;
  height: number;
  color: string;
  enc: string;
}

/** The images `pdfimages -list` finds, one row per drawn image (page, pixel size, colour space, encoding). */
export function pdfimagesList(bytes: Uint8Array): Promise<ListedImage[]> {
  return withPdf(bytes, async (file) => {
    const out = await run('pdfimages', ['-list', file]);
    return out
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => l.trim().split(/\s+/))
      .map((c) => ({ page: Number(c[0]), type: c[2]!, width: Number(c[3]), height: Number(c[4]), color: c[5]!, enc: c[8]! }));
  });
}

/** One page drawn by `pdftoppm -gray` at `dpi`. */
export function pdfPageGrey(bytes: Uint8Array, page: number, dpi = 20): Promise<Pixels> {
  return withPdf(bytes, async (file, dir) => {
    await run('pdftoppm', ['-gray', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', file, path.join(dir, 'page')]);
    return readPgm(await readFile(path.join(dir, 'page.pgm')));
  });
}
