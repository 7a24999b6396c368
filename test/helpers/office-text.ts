// An independent reader of DOCX/ODT output: LibreOffice (headless) converts the file to PDF, poppler's
// pdftotext extracts its text. Slow (about 1–3 s a file once LibreOffice is warm), so tests convert one rich
// document rather than many.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One LibreOffice profile per test process, created on first use; LibreOffice cannot share one between concurrent runs. */
let profile: Promise<string> | null = null;
/** Conversions are serialised: a second soffice on the same profile would hand its work to the first and exit. */
let queue: Promise<unknown> = Promise.resolve();

process.once('exit', () => {
  // Best effort: the profile directory is in the OS temp dir either way.
  void profile?.then((dir) => rm(dir, { recursive: true, force: true }));
});

/** The PDF LibreOffice makes of a DOCX or ODT file. */
export async function officeToPdf(bytes: Uint8Array, ext: 'docx' | 'odt'): Promise<Buffer> {
  profile ??= mkdtemp(path.join(os.tmpdir(), 'quire-lo-profile-'));
  const dir = await profile;
  const job = queue.then(async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'quire-lo-'));
    try {
      const input = path.join(work, `input.${ext}`);
      await writeFile(input, bytes);
      await run('soffice', [`-env:UserInstallation=file://${dir}`, '--headless', '--norestore', '--convert-to', 'pdf', '--outdir', work, input], { timeout: 120_000 });
      return await readFile(path.join(work, 'input.pdf'));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
  queue = job.catch(() => undefined);
  return job;
}

/** The text of the PDF LibreOffice makes of the file (pdftotext, reading order, UTF-8). */
export async function officeToPdfText(bytes: Uint8Array, ext: 'docx' | 'odt'): Promise<string> {
  const pdf = await officeToPdf(bytes, ext);
  const work = await mkdtemp(path.join(os.tmpdir(), 'quire-lo-text-'));
  try {
    const file = path.join(work, 'out.pdf');
    await writeFile(file, pdf);
    const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Text with every run of whitespace (line ends and page breaks included) as one space. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ');

/** How often `needle` occurs in `text`. */
export const countOf = (text: string, needle: string | RegExp): number => (typeof needle === 'string' ? text.split(needle).length - 1 : (text.match(new RegExp(needle, 'g')) ?? []).length);
