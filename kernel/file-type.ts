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
  // HTML may be in a legacy single-byte charset its <meta charset> names, so it is recognised before the UTF-8 check.
  if (head.length > 0 && !head.includes(0) && looksLikeHtml(head.toString('latin1'))) return 'text/html';
  if (!looksLikeText(head, head.length < 4096)) return 'application/octet-stream';
  const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg'))) return 'image/svg+xml';
  if (/\.(md|markdown)$/i.test(nameHint)) return 'text/markdown';
  return 'text/plain';
}

/**
 * Elements an HTML document or fragment starts with (after comments). Inline ones (`<img>`, `<a>`) are left out:
 * a Markdown README often opens with them. SVG and other XML are not among them.
 */
const HTML_START = /^<(html|head|body|meta|title|base|link|style|script|div|p|h[1-6]|table|section|article|main|header|footer|nav|form|ul|ol|pre|hr|iframe|template)[\s>/]/;

function looksLikeHtml(head: string): boolean {
  // The UTF-8 BOM read as latin1; then whitespace and comments (a generator's banner) before the first element.
  const text = head.replace(/^\u00EF\u00BB\u00BF/, '').replace(/^(\s|<!--[\s\S]*?-->)+/, '').toLowerCase();
  return text.startsWith('<!doctype html') || HTML_START.test(text);
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
