// Bad input never throws or hangs: unclosed constructs, deep nesting, huge lines and documents, and fuzzed Markdown all end in a result with positions.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDocument } from '../../../document/validator.js';
import { parseMarkdown, serializeMarkdown, type ParseResult } from '../../../document/markdown/index.js';
import * as arb from './arbitraries.js';
import { check } from './check.js';

/** The invariants of every result: no document with errors, a valid document otherwise, a position on every issue. */
function wellFormed(result: ParseResult): ParseResult {
  if (result.errors.length) assert.is(result.document, null);
  if (result.document) assert.ok(validateDocument(result.document).valid, 'the document validates');
  for (const issue of [...result.errors, ...result.warnings]) {
    assert.type(issue.path, 'string');
    assert.type(issue.code, 'string');
    assert.ok(Number.isInteger(issue.line) && issue.line! >= 1 && Number.isInteger(issue.column) && issue.column! >= 1, `${issue.code} at ${issue.path} has a position`);
  }
  return result;
}

function firstError(md: string): [string, number, number] {
  const result = wellFormed(parseMarkdown(md));
  const e = result.errors[0];
  assert.ok(e, 'an error is reported');
  return [e.code, e.line!, e.column!];
}

test('answers 10,000-deep block quotes and lists with LIMIT_EXCEEDED at the line where the nesting gets too deep', () => {
  assert.equal(firstError(`${'>'.repeat(10_000)} deep`), ['LIMIT_EXCEEDED', 1, 1]);
  assert.equal(firstError(`${'- '.repeat(10_000)}deep`)[0], 'LIMIT_EXCEEDED');
  assert.equal(firstError(Array.from({ length: 10_000 }, (_, i) => `${' '.repeat(i * 2)}- item`).join('\n').slice(0, 1_000_000))[0], 'LIMIT_EXCEEDED');
  assert.equal(firstError('Intro\n\n' + Array.from({ length: 10_000 }, (_, i) => `${'> '.repeat(i % 100)}x`).join('\n')).slice(0, 2), ['LIMIT_EXCEEDED', 68]);
  assert.equal(firstError(':::section\n'.repeat(10_000))[0], 'LIMIT_EXCEEDED');
});

test('answers emphasis, bracket, citation and footnote bombs without quadratic work', () => {
  for (const bomb of ['*a '.repeat(20_000) + ' b*'.repeat(20_000), '['.repeat(50_000), '^['.repeat(30_000), '@['.repeat(30_000), '**a** b '.repeat(10_000), '[a]('.repeat(20_000), '`'.repeat(50_000), '$a '.repeat(20_000)]) {
    wellFormed(parseMarkdown(bomb));
  }
  // Thousands of lists and quotes between paragraphs: linear, and over the element limit.
  const many = wellFormed(parseMarkdown('- a\n\nb\n\n> c\n\n'.repeat(1700)));
  assert.equal(many.errors.map((e) => e.code), ['LIMIT_EXCEEDED']);
});

test('answers a 1 MB line, 5,001 paragraphs and a source over 1 MiB with errors and positions', () => {
  const line = wellFormed(parseMarkdown('# Title\n\n' + 'x'.repeat(1_000_000 - 9)));
  assert.equal(line.errors.map((e) => [e.code, e.path, e.line]), [['LIMIT_EXCEEDED', 'sections[0].content[1].text', 3]]);
  const paragraphs = wellFormed(parseMarkdown('Some words in a paragraph.\n\n'.repeat(5001)));
  assert.equal(paragraphs.errors.map((e) => [e.code, e.path, e.line]), [['LIMIT_EXCEEDED', 'sections[0].content', 1]]);
  assert.equal(wellFormed(parseMarkdown('x'.repeat(1_048_577))).errors.map((e) => e.code), ['LIMIT_EXCEEDED']);
});

test('answers unclosed constructs: fences, math, footnotes, front matter, quotes in attributes', () => {
  for (const md of ['```js\nno end', '$$\nno end', 'a ^[never closed', 'a @[never closed', '---\ndocument: {', '![x](/image/a){caption="open', '::qr{value="open', '| a |\n|---|\n| {colspan=2 |', ':::page\n:::section\n']) {
    wellFormed(parseMarkdown(md));
  }
  assert.equal(firstError('---\ndocument: {\n---\n'), ['INVALID_FRONT_MATTER', 2, 12]);
});

test('never throws, and every document it returns validates, for random and mutated Markdown', () => {
  const mutated = fc.tuple(arb.document, fc.array(fc.record({ at: fc.nat(), cut: fc.nat({ max: 12 }), insert: fc.oneof(fc.constantFrom('', '\n', '\n\n', ':::', '::', '{', '}', '[', ']', '*', '`', '$$', '> ', '- ', '|', '---\n', '^[', '@['), fc.string({ maxLength: 5 })) }), { maxLength: 6 })).map(([doc, edits]) => {
    let md = serializeMarkdown(doc);
    for (const e of edits) {
      const at = md.length ? e.at % md.length : 0;
      md = md.slice(0, at) + e.insert + md.slice(at + e.cut);
    }
    return md;
  });
  const random = fc.string({ unit: 'binary', maxLength: 200 });
  const source = fc.oneof(mutated, arb.markdownSource, random);
  check(source, (md) => void wellFormed(parseMarkdown(md)), 150);
  check(source, (md) => void wellFormed(parseMarkdown(md, { strict: true })), 30);
});

test('returns an error, not an exception, for input that is not a string', () => {
  const result = parseMarkdown(42 as unknown as string);
  assert.equal(result.errors.map((e) => e.code), ['INVALID_MARKDOWN']);
});

test.run();
