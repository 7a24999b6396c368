// A saved document as Extended Markdown, and whether the Markdown says all of it: written, read back, and
// compared with the document in normal form (what a round trip may change without changing the meaning).
import type { DocumentJson } from '../../contracts/document-json.js';
import { parseMarkdown } from './parse.js';
import { serializeMarkdown } from './serialize.js';
import { normalizeDocument } from './normalize.js';

export interface MarkdownOf {
  markdown: string;
  /** The first JSON path whose value the Markdown does not carry, with what is there; null when it carries everything. */
  lost: { path: string; what: string } | null;
}

/**
 * With `check: false` the Markdown is only written: for a document that Extended Markdown parsed to, which reads
 * back as itself (the parse–write–parse fixed point the round-trip tests hold).
 */
export function markdownOf(doc: DocumentJson, options: { check?: boolean } = {}): MarkdownOf {
  let markdown: string;
  try {
    markdown = serializeMarkdown(doc);
  } catch (e) {
    return { markdown: '', lost: { path: '(document)', what: `it could not be written (${(e as Error).message})` } };
  }
  if (options.check === false) return { markdown, lost: null };
  const back = parseMarkdown(markdown);
  if (!back.document) {
    const first = back.errors[0];
    return { markdown, lost: { path: first?.path ?? '(document)', what: `the Markdown written for it does not read back (${first?.message ?? 'unknown error'})` } };
  }
  const path = firstDifference(normalizeDocument(back.document), normalizeDocument(doc), '');
  return { markdown, lost: path === null ? null : { path: path || '(document)', what: describe(doc, path) } };
}

/** The path of the first value that differs (objects key by key, arrays item by item), or null when equal. */
function firstDifference(a: unknown, b: unknown, at: string): string | null {
  if (Object.is(a, b)) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return at;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    const d = firstDifference(ao[key], bo[key], at ? `${at}.${key}` : key);
    if (d !== null) return d;
  }
  return null;
}

/** "an element of type table" for a path inside an element, else the value's key. */
function describe(doc: DocumentJson, path: string): string {
  const m = /^sections\[(\d+)\]\.content\[(\d+)\]/.exec(path);
  const el = m ? doc.sections[Number(m[1])]?.content[Number(m[2])] : undefined;
  return el ? `an element of type ${el.type} is not expressed exactly in Extended Markdown` : 'this value is not expressed exactly in Extended Markdown';
}
