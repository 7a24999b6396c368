// What a file is, from its bytes (never its name): file-type for binary formats, a text sniff for the rest.
import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';

/** Types an upload may have; anything else is refused with 415. */
export const ACCEPTED_UPLOAD_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/bmp',
  'image/svg+xml',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.oasis.opendocument.text',
  'text/html',
  'text/markdown',
  'text/plain',
] as const;

const EXTENSION_OF: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/bmp': 'bmp',
  'image/svg+xml': 'svg',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.oasis.opendocument.text': 'odt',
  'text/html': 'html',
  'text/markdown': 'md',
  'text/plain': 'txt',
  'application/zip': 'zip',
};

export function extensionOf(mimeType: string): string {
  return EXTENSION_OF[mimeType] ?? 'bin';
}

/** Detects the type of a file on disk; `nameHint` only tells Markdown from plain text, which no bytes can. */
export async function detectFileType(file: string, nameHint: string): Promise<string> {
  const found = await fileTypeFromFile(file);
  if (found) return found.mime;
  const head = await readHead(file, 4096);
  if (!looksLikeText(head, head.length < 4096)) return 'application/octet-stream';
  const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg'))) return 'image/svg+xml';
  if (text.startsWith('<!doctype html') || text.startsWith('<html') || /^<(head|body|meta|title|div|p|h1|table)[\s>]/.test(text)) return 'text/html';
  if (/\.(md|markdown)$/i.test(nameHint)) return 'text/markdown';
  return 'text/plain';
}

async function readHead(file: string, n: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function looksLikeText(head: Buffer, whole: boolean): boolean {
  if (head.length === 0) return false;
  if (head.includes(0)) return false;
  // Valid UTF-8; a sample (not the whole file) may end inside a multi-byte sequence.
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(whole ? head : head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}
