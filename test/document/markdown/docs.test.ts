// The language reference is honest: every Markdown example in docs/extended-markdown.md parses without errors, and every code the parser emits is documented there.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizeDocument, parseMarkdown, serializeMarkdown } from '../../../document/markdown/index.js';

const ROOT = new URL('../../../../', import.meta.url);
const doc = readFileSync(new URL('docs/extended-markdown.md', ROOT), 'utf8');

/** The bodies of ```markdown and ````markdown fences. */
function examples(): string[] {
  const out: string[] = [];
  for (const m of doc.matchAll(/^(`{3,})markdown\n([\s\S]*?)\n\1$/gm)) out.push(m[2]!);
  return out;
}

test('every Markdown example in the reference parses without errors and round-trips', () => {
  const list = examples();
  assert.ok(list.length >= 20, `found ${list.length} examples`);
  for (const md of list) {
    const result = parseMarkdown(md);
    assert.equal(result.errors, [], md);
    const again = parseMarkdown(serializeMarkdown(result.document!));
    assert.equal(normalizeDocument(again.document!), normalizeDocument(result.document!), md);
  }
});

test('every issue code the parser emits is in the reference', () => {
  const dir = new URL('document/markdown/', ROOT).pathname;
  const codes = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(path.join(dir, file), 'utf8');
    for (const m of source.matchAll(/\b(?:error|warn|fail)\('([A-Z_]+)'/g)) codes.add(m[1]!);
    for (const m of source.matchAll(/code: (?:[^'\n]*\? )?'([A-Z_]+)'(?: : '([A-Z_]+)')?/g)) [m[1], m[2]].forEach((c) => c && codes.add(c));
  }
  assert.ok(codes.size >= 8, [...codes].join(', '));
  for (const code of codes) assert.ok(doc.includes(`\`${code}\``), `${code} is documented`);
  for (const code of ['DUPLICATE_ANCHOR', 'BROKEN_REFERENCE', 'UNDEFINED_CITATION', 'UNDEFINED_ABBREVIATION', 'UNKNOWN_VARIABLE', 'INVALID_FIELD']) assert.ok(doc.includes(`\`${code}\``), code);
});

test.run();
