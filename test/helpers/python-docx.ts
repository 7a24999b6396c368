// An independent reader of DOCX output for tests: test/helpers/docx-read.py (python-docx) run on the bytes, its JSON parsed.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './quire-server.js';

const run = promisify(execFile);

/** What python-docx reads from the file: core properties, paragraphs, tables, sections, images (see docx-read.py). */
export async function pythonDocx(bytes: Uint8Array): Promise<Record<string, any>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-docx-test-'));
  try {
    const file = path.join(dir, 'out.docx');
    await writeFile(file, bytes);
    const { stdout } = await run('/usr/bin/python3', [path.join(ROOT, 'test/helpers/docx-read.py'), file], { maxBuffer: 64 << 20 });
    return JSON.parse(stdout) as Record<string, any>;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
