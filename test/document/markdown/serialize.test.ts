// Document JSON → Extended Markdown: front matter, directives, escapes; fixtures and hostile strings come back unchanged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DocumentJson } from '../../../contracts/document-json.js';
import { canonicalMarkup } from '../../../document/markdown/json-markup.js';
import { normalizeDocument, parseMarkdown, serializeMarkdown } from '../../../document/markdown/index.js';
import { cutPoints, markdownTree } from '../../../document/markdown/tree.js';
import { allElementsDocument, HOSTILE_STRINGS, invoiceDocument, reportDocument } from '../../fixtures/documents.js';
import * as arb from './arbitraries.js';
import { check } from './check.js';
import fc from 'fast-check';

function roundTrip(doc: DocumentJson): string {
  const md = serializeMarkdown(doc);
  const result = parseMarkdown(md);
  assert.ok(result.document, `parses back: ${JSON.stringify(result.errors)}`);
  assert.equal(normalizeDocument(result.document!), normalizeDocument(doc));
  assert.is(serializeMarkdown(result.document!), md, 'a second pass writes the same Markdown');
  return md;
}

test('writes settings, variables, abbreviations, citations and defaults as YAML front matter', () => {
  const md = serializeMarkdown({
    document: { type: 'pdf', title: 'Report: 2024', size: 'A4' },
    sections: [{ type: 'flow', content: [{ type: 'text', text: 'Hello {{name}}' }] }],
    variables: { name: 'World', n: '42' },
    abbreviations: { API: 'Application Programming Interface' },
    citations: [{ id: 'smith2020', type: 'book', title: 'On documents' }],
    defaults: { citationStyle: 'apa' },
  });
  assert.is(md, `---
document:
  type: pdf
  title: "Report: 2024"
  size: A4
variables:
  name: World
  n: "42"
abbreviations:
  API: Application Programming Interface
citations:
  - id: smith2020
    type: book
    title: On documents
defaults:
  citationStyle: apa
---

Hello {{name}}
`);
  assert.is(serializeMarkdown({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'divider' }] }] }), '***\n');
});

test('reads back the element catalogue, the invoice and the long report unchanged', () => {
  const md = roundTrip(allElementsDocument({ png: '/temp-image/red-square' }) as unknown as DocumentJson);
  assert.match(md, '| {rowspan=2} South | {colspan=2} SpanBoth |  |');
  assert.match(md, '{#tbl-sales caption="Sales by region" widths="2fr 1fr 1fr"}');
  assert.match(md, '```python {caption="Hello in Python" #lst-hello lineNumbers}');
  assert.match(md, ':::section{newPage=false columns=2 space=1 separate}');
  roundTrip(invoiceDocument(7) as unknown as DocumentJson);
  roundTrip(reportDocument() as unknown as DocumentJson);
});

test('keeps hostile strings literal in paragraphs, headings, cells, list items, quotes and captions', () => {
  for (const s of HOSTILE_STRINGS) {
    const doc = {
      document: { type: 'pdf' },
      sections: [{ type: 'flow', content: [
        { type: 'h2', text: `H ${s}` },
        { type: 'text', text: s },
        { type: 'list', items: [s, { text: s, items: [s] }] },
        { type: 'table', rows: [[s, `x ${s}`]] },
        { type: 'quote', text: s, attribution: s },
        { type: 'image', src: '/image/a', alt: s, caption: s },
      ] }],
    } as unknown as DocumentJson;
    roundTrip(doc);
  }
});

test('escapes Markdown syntax in text so that it stays text', () => {
  const md = serializeMarkdown({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: [
    { type: 'text', text: '# not a heading\n- not a list\n1. not a list\n> not a quote\n::toc not a directive\n{align=center}' },
    { type: 'text', text: 'a_b *c* \\* <b> &amp; https://example.com www.example.com a@b.co' },
  ] }] });
  assert.is(md, '\\# not a heading\\\n\\- not a list\\\n1\\. not a list\\\n\\> not a quote\\\n\\::toc not a directive\\\n\\{align=center}\n\na\\_b *c* \\* \\<b> \\&amp; https\\://example.com www\\.example.com a\\@b.co\n');
});

test('keeps two lists of the same kind apart with another marker', () => {
  const md = serializeMarkdown({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: [
    { type: 'list', items: ['a'] }, { type: 'list', items: ['b'] }, { type: 'list', ordered: true, items: ['c'] }, { type: 'list', ordered: true, items: ['d'] },
  ] }] });
  assert.is(md, '- a\n\n* b\n\n1. c\n\n1) d\n');
});

test('lengthens fences so that content cannot close them', () => {
  const md = roundTrip({ document: { type: 'pdf' }, sections: [{ type: 'page', content: [{ type: 'code', code: '```\n:::\n````', language: 'md' }, { type: 'math', latex: 'a\n$$\nb' }] }] });
  assert.match(md, /^::::page\n\n`````md\n```\n:::\n````\n`````\n\n\$\$\$\na\n\$\$\nb\n\$\$\$\n\n::::\n$/);
});

test('gives every markup string one canonical spelling', () => {
  check(arb.markup(16), (s) => {
    const once = canonicalMarkup(s);
    assert.is(canonicalMarkup(once), once, `canonical form of ${JSON.stringify(s)}`);
  }, 400);
});

test('parses a long document in chunks to the same tree, positions included, as in one piece', () => {
  check(fc.array(arb.document, { minLength: 20, maxLength: 30 }), (docs) => {
    // Flow content only (a ::: container is never cut), so that the source has many cut points.
    const md = docs.map((d) => serializeMarkdown({ document: { type: 'pdf' }, sections: d.sections.map((s) => ({ type: 'flow', content: s.content })) })).join('\n');
    assert.ok(cutPoints(md).length > 0 || md.length < 2048);
    assert.equal(markdownTree(md), markdownTree(md, { chunked: false }));
  }, 4);
});

test('resolves link and footnote labels defined in another chunk, and keeps an unclosed fence at the end intact', () => {
  const body = '- item\n\nSee [the site][site] and a note[^n].\n\n> quote\n\n'.repeat(120);
  const md = `Intro [again][site].\n\n${body}[site]: https://example.com\n[^n]: The note.\n\n\`\`\`\nunclosed [x]: y\n`;
  assert.ok(cutPoints(md).length > 2);
  assert.equal(markdownTree(md), markdownTree(md, { chunked: false }));
  const text = parseMarkdown(md).document!.sections[0]!.content.map((e) => ('text' in e ? e.text : ''));
  assert.ok(text.includes('See [the site](https://example.com) and a note^[The note.].'));
});

test.run();
