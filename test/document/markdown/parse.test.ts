// Extended Markdown → document JSON: every construct of docs/extended-markdown.md, and errors and warnings placed in the source.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DocumentJson, Element } from '../../../contracts/document-json.js';
import { validateDocument } from '../../../document/validator.js';
import { parseMarkdown, serializeMarkdown, type Issue } from '../../../document/markdown/index.js';
import { reportDocument } from '../../fixtures/documents.js';

function parse(md: string): DocumentJson {
  const result = parseMarkdown(md);
  if (!result.document) throw new Error(`expected a document, got ${JSON.stringify(result.errors)}`);
  assert.ok(validateDocument(result.document).valid);
  return result.document;
}

/** The elements of the first section. */
const content = (md: string): Element[] => parse(md).sections[0]?.content ?? [];
const first = (md: string) => content(md)[0] as Record<string, unknown>;
const only = (issues: Issue[], code: string) => issues.filter((i) => i.code === code);

test('defaults document.type to pdf and reads the front matter settings', () => {
  assert.equal(parse('# Hi').document, { type: 'pdf' });
  const doc = parse('---\ndocument:\n  type: docx\n  title: Report\n  keywords: [a, b]\nvariables:\n  name: World\nabbreviations:\n  API: Application Programming Interface\ncitations:\n  - {"id": "smith2020", "type": "book", "title": "On documents"}\ndefaults:\n  fonts: {size: 11}\n  citationStyle: apa\n---\n\nHello {{name}}');
  assert.equal(doc.document, { type: 'docx', title: 'Report', keywords: ['a', 'b'] });
  assert.equal(doc.variables, { name: 'World' });
  assert.equal(doc.abbreviations, { API: 'Application Programming Interface' });
  assert.equal(doc.citations, [{ id: 'smith2020', type: 'book', title: 'On documents' }]);
  assert.equal(doc.defaults, { fonts: { size: 11 }, citationStyle: 'apa' });
});

test('reads the Pandoc, Jekyll, Hugo and Obsidian keys title, subtitle, author, date, abstract, keywords and lang as settings', () => {
  const doc = parse('---\ntitle: Notes\nsubtitle: Spring\nauthor:\n  - Ada\n  - name: Alan\ndate: 2024-05-01\nabstract: Short.\nkeywords: a, b ,, c\nlang: de-CH\ndocument:\n  size: A5\n---\n\nText');
  assert.equal(doc.document, { type: 'pdf', size: 'A5', title: 'Notes', subtitle: 'Spring', author: 'Ada, Alan', date: '2024-05-01', abstract: 'Short.', keywords: ['a', 'b', 'c'] });
  assert.equal(doc.defaults, { locale: 'de-CH' });
  // YAML numbers are the text they were written as (a year as the date, a numeric title).
  assert.equal(parse('---\ntitle: 1984\ndate: 2024\nkeywords: [7, x]\n---\n').document, { type: 'pdf', title: '1984', date: '2024', keywords: ['7', 'x'] });
  assert.equal(parse('---\nauthor: Ada Lovelace\n---\n').document.author, 'Ada Lovelace');
  // `document:` and `defaults:` with nothing after them (YAML null) take the aliases.
  const empty = parse('---\ntitle: T\nlang: fr\ndocument:\ndefaults:\n---\n');
  assert.equal([empty.document, empty.defaults], [{ type: 'pdf', title: 'T' }, { locale: 'fr' }]);
});

test('an alias and its setting with different values are an error naming both lines; the same value twice is accepted', () => {
  assert.equal(errors('---\ntitle: A\ndocument:\n  title: B\n---\n'), [['INVALID_FRONT_MATTER', '(front matter)', 2, 1]]);
  assert.match(parseMarkdown('---\ndocument:\n  author: X\nauthor: [Y, Z]\n---\n').errors[0]!.message, /author \(line 4\) and document\.author \(line 3\)/);
  assert.equal(errors('---\nlang: de\ndefaults:\n  locale: fr\n---\n'), [['INVALID_FRONT_MATTER', '(front matter)', 2, 1]]);
  assert.equal(parse('---\nauthor: [A, B]\ndocument:\n  author: A, B\n---\n').document.author, 'A, B');
  // Errors about an alias's value point at the alias.
  assert.equal(errors('---\nkeywords: [a, {b: 1}]\n---\n'), [['INVALID_FIELD', 'document.keywords[1]', 2, 15]]);
  assert.equal(errors('---\nauthor: [A, [B]]\n---\n').map((e) => [e[1], e[2]]), [['document.author', 2]]);
});

test('reads ATX and setext headings with ids and alignment', () => {
  assert.equal(content('# Title {#top}\n\n## Second {#s2 align=center}\n\nThird\n-----\n\n###### Six'), [
    { type: 'h1', text: 'Title', id: 'top' },
    { type: 'h2', text: 'Second', id: 's2', align: 'center' },
    { type: 'h2', text: 'Third' },
    { type: 'h6', text: 'Six' },
  ]);
  assert.is(first('# Not an id \\{#x}').text, 'Not an id {#x}');
});

test('writes Markdown inline markup as the inline markup of document JSON', () => {
  assert.is(first('*a* _b_ **c** __d__ `e` [f](https://x.example) [g](#top) $x^2$').text, '*a* *b* **c** **d** `e` [f](https://x.example) [g](#top) $x^2$');
  assert.is(first('Cite @[smith2020, p. 12] and @[a; b, ch. 3], ~API~, {{ name }}, ${total} and a note^[with *emphasis*].').text, 'Cite @[smith2020, p. 12] and @[a; b, ch. 3], ~API~, {{name}}, {{total}} and a note^[with *emphasis*].');
  assert.is(first('line one  \nline two\\\nline three\nsoft').text, 'line one\nline two\nline three soft');
  assert.is(first('***both***').text, '***both***');
});

test('escapes what is literal in Markdown but would be markup in document JSON', () => {
  assert.is(first('\\@[key] \\~API~ \\{{name}} \\$x$ \\^[no] \\*star\\* a_b_c').text, '\\@\\[key] \\~API~ \\{{name}} \\$x$ \\^\\[no] \\*star\\* a_b_c');
  assert.is(first('`{{name}}` and `@[key]`').text, '`{{name}}` and `@[key]`');
  assert.is(first('Price: 5 $ or more').text, 'Price: 5 $ or more');
});

test('turns GFM footnotes into inline footnotes and warns about unused ones', () => {
  const result = parseMarkdown('Text[^1] and more[^n].\n\n[^1]: First *note*.\n[^n]: Second.\n[^x]: Unused.');
  assert.is((result.document!.sections[0]!.content[0] as { text: string }).text, 'Text^[First *note*.] and more^[Second.].');
  assert.equal(only(result.warnings, 'UNUSED_FOOTNOTE').map((w) => w.line), [5]);
});

test('writes a footnote that refers to itself as its label the second time', () => {
  assert.is(first('Loop[^a].\n\n[^a]: See[^a].').text, 'Loop^[See\\[^a\\].].');
});

test('keeps strikethrough text and raw HTML as text, with warnings that point at them', () => {
  const result = parseMarkdown('Line one\n\nA ~~gone~~ and <b>bold</b> word.\n\n<div>\nblock\n</div>');
  assert.equal(result.document!.sections[0]!.content.slice(1), [{ type: 'text', text: 'A gone and <b>bold</b> word.' }, { type: 'text', text: '<div> block </div>' }]);
  assert.equal(only(result.warnings, 'UNSUPPORTED_MARKDOWN').map((w) => [w.line, w.column]), [[3, 3]]);
  assert.equal(only(result.warnings, 'RAW_HTML_IGNORED').map((w) => [w.path, w.line, w.column]), [
    ['sections[0].content[1]', 3, 16],
    ['sections[0].content[1]', 3, 23],
    ['sections[0].content[2]', 5, 1],
  ]);
});

test('reads nested, ordered and task lists', () => {
  assert.equal(content('- one\n- two\n  - nested\n    - deeper\n- [ ] open\n- [x] done\n\n3. c\n4. d'), [
    { type: 'list', items: ['one', { text: 'two', items: [{ text: 'nested', items: ['deeper'] }] }, '☐ open', '☑ done'] },
    { type: 'list', ordered: true, start: 3, items: ['c', 'd'] },
  ]);
});

test('reads a GFM table with alignment, spans and the attribute paragraph after it', () => {
  const md = '| Region | Q1 | Q2 |\n|:--|--:|:-:|\n| North | 10 | 12 |\n| {rowspan=2} South | {colspan=2} n/a | |\n| | 7 | 8 |\n\n{#sales caption="Sales *by* region" widths="2fr 1fr 1fr" align=center}';
  assert.equal(first(md), {
    type: 'table',
    id: 'sales',
    caption: 'Sales *by* region',
    align: 'center',
    columns: [{ width: '2fr', align: 'left' }, { width: '1fr', align: 'right' }, { width: '1fr', align: 'center' }],
    headerRows: 1,
    rows: [['Region', 'Q1', 'Q2'], ['North', '10', '12'], [{ text: 'South', rowspan: 2 }, { text: 'n/a', colspan: 2 }], ['7', '8']],
  });
  assert.equal(first('| a |\n|---|\n| b |\n\n{headerRows=0}'), { type: 'table', rows: [['a'], ['b']] });
  assert.equal(first('---\nvariables: {lineItems: {type: table, rows: [{a: 1, b: 2}]}}\n---\n::table{rowsFrom=lineItems caption="Items" aligns="left right"}'), { type: 'table', caption: 'Items', columns: [{ align: 'left' }, { align: 'right' }], rowsFrom: 'lineItems' });
});

test('reads images with their attributes, one element per image', () => {
  assert.equal(content('![Team photo](/image/team-1){width=60% caption="The team" #fig-team align=center}\n![Logo](https://example.com/logo.png){height=2}'), [
    { type: 'image', src: '/image/team-1', alt: 'Team photo', width: '60%', caption: 'The team', id: 'fig-team', align: 'center' },
    { type: 'image', src: 'https://example.com/logo.png', alt: 'Logo', height: 2 },
  ]);
});

test('reads code blocks, chart blocks and display math with their fence attributes', () => {
  assert.equal(content('```python {caption="Hello" #lst-1 lineNumbers}\nprint("{{x}}")\n```\n\n```\nplain\n```'), [
    { type: 'code', code: 'print("{{x}}")', language: 'python', caption: 'Hello', id: 'lst-1', lineNumbers: true },
    { type: 'code', code: 'plain' },
  ]);
  assert.equal(first('```chart {#fig-r}\nchartType: bar\ndata:\n  labels: [Q1, Q2]\n  series: [{name: "2024", values: [1.2, 1.5]}]\n```'), {
    type: 'chart',
    chartType: 'bar',
    data: { labels: ['Q1', 'Q2'], series: [{ name: '2024', values: [1.2, 1.5] }] },
    id: 'fig-r',
  });
  assert.equal(first('$$ {#eq-1 caption="An integral" display=false}\n\\int_0^1 x\\,dx\n$$'), { type: 'math', latex: '\\int_0^1 x\\,dx', id: 'eq-1', caption: 'An integral', display: false });
});

test('reads a block quote with its attribution line and alignment', () => {
  assert.equal(first('> Simplicity is prerequisite\n> for reliability.\n> — Edsger W. Dijkstra\n> {align=right}'), { type: 'quote', text: 'Simplicity is prerequisite for reliability.', attribution: 'Edsger W. Dijkstra', align: 'right' });
  assert.equal(first('> First paragraph.\n>\n> &#8212; not an attribution'), { type: 'quote', text: 'First paragraph.\n\n— not an attribution' });
});

test('reads paragraph attributes on the last line of a paragraph', () => {
  assert.equal(first('Some text\n{align=justify bold fontSize=12 color=#333333}'), { type: 'text', text: 'Some text', align: 'justify', style: { bold: true, fontSize: 12, color: '#333333' } });
});

test('reads every leaf directive', () => {
  const md = [
    '::toc{depth=2 title="Contents"}', '::lof', '::lot[Tables]', '::bibliography{style=apa}', '::pagebreak', '::spacer{height=2}', '::qr{value="https://quire.example.com" size=3 caption="Scan"}',
    '::barcode{value=400638133393 format=ean13 showText=false}', '::divider', '---', '::var{name=name}', '::block{#legal-footer mode=snapshot version=2}',
  ].join('\n\n');
  assert.equal(content(`---\nvariables: {name: x}\n---\n\n${md}`), [
    { type: 'toc', depth: 2, title: 'Contents' },
    { type: 'listOfFigures' },
    { type: 'listOfTables', title: 'Tables' },
    { type: 'bibliography', style: 'apa' },
    { type: 'pageBreak' },
    { type: 'spacer', height: 2 },
    { type: 'qrCode', value: 'https://quire.example.com', size: 3, caption: 'Scan' },
    { type: 'barcode', value: '400638133393', format: 'ean13', showText: false },
    { type: 'divider' },
    { type: 'divider' },
    { type: 'variableRef', name: 'name' },
    { type: 'blockRef', blockId: 'legal-footer', mode: 'snapshot', version: 2 },
  ]);
});

test('reads page and flow sections; content outside them forms flow sections of its own', () => {
  const doc = parse(':::page{align=center #cover}\n# Cover\n:::\n\nBody text.\n\n:::section{columns=2 space=1 separate newPage=false #two}\nTwo columns.\n:::\n\nAfter.');
  assert.equal(doc.sections, [
    { type: 'page', align: 'center', id: 'cover', content: [{ type: 'h1', text: 'Cover' }] },
    { type: 'flow', content: [{ type: 'text', text: 'Body text.' }] },
    { type: 'flow', newPage: false, id: 'two', columns: { count: 2, space: 1, separate: true }, content: [{ type: 'text', text: 'Two columns.' }] },
    { type: 'flow', content: [{ type: 'text', text: 'After.' }] },
  ]);
  assert.equal(parse('').sections, []);
});

// ---------------------------------------------------------------- errors with positions

function errors(md: string, options = {}): Array<[string, string, number | undefined, number | undefined]> {
  const result = parseMarkdown(md, options);
  assert.is(result.document, null);
  return result.errors.map((e) => [e.code, e.path, e.line, e.column]);
}

test('reports unknown directives, bad directive attributes and unclosed containers where they are', () => {
  assert.equal(errors('Intro\n\n::frobnicate{x=1}'), [['INVALID_DIRECTIVE', 'sections[0].content[1]', 3, 1]]);
  assert.equal(errors('::spacer{height=tall}'), [['INVALID_DIRECTIVE', 'sections[0].content[0]', 1, 1]]);
  assert.equal(errors('::qr{size=3}')[0]!.slice(0, 1), ['INVALID_DIRECTIVE']);
  assert.equal(errors('# A\n\n:::page{align=center}\ntext'), [['INVALID_DIRECTIVE', 'sections[1]', 3, 1]]);
  assert.equal(errors(':::section\n:::page\nx\n:::\n:::').map((e) => e[0]), ['INVALID_DIRECTIVE']);
  assert.match(parseMarkdown('::page').errors[0]!.message, /container/);
});

test('reports malformed, unknown and unclosed front matter with lines', () => {
  assert.equal(errors('---\ndocument:\n  title: [unclosed\n---\n\nText'), [['INVALID_FRONT_MATTER', '(front matter)', 3, 19]]);
  assert.equal(errors('---\ndocument: {type: pdf}\ntitel: typo\n---\n'), [['INVALID_FRONT_MATTER', '(front matter)', 3, 1]]);
  assert.equal(errors('---\ndocument:\n  title: x\n'), [['INVALID_FRONT_MATTER', '(front matter)', 1, 1]]);
});

test('reads YAML the same on the fast path (js-yaml) as on the yaml library\'s path an alias forces', () => {
  // The same citations, once alone and once followed by one that uses an alias: the second text is read by the
  // yaml library (aliases expand there, bounded), the first by js-yaml. Both must give the same data.
  const citations = [
    '  - id: a',
    '    type: book',
    '    title: "Tab\\there, \\u00e9, \'quotes\' and # not a comment"',
    "    publisher: 'It''s plain: yes, no, on, off, ~ stay text'",
    '    volume: 0x1F',
    '    issue: 012',
    '    number: 1_000',
    '    page: 12-15',
    '    note: |',
    '      two',
    '      lines',
    '    abstract: >',
    '      folded',
    '      text',
    '    issued: {date-parts: [[2020, 1, 2]]}',
    '    accessed: 2024-02-30',
    '    author: [{family: "O\'Brien", given: Ann}, {literal: "~ null? no"}]',
    '    keyword: !!str 12',
    '  - {id: b, type: article-journal, title: "Ünïcødé ✓ 👍", edition: 2.50, language: null}',
  ];
  const fast = parseMarkdown(`---\ncitations:\n${citations.join('\n')}\n---\n\nSee @[a] and @[b].`);
  const slow = parseMarkdown(`---\ncitations:\n${citations.join('\n')}\n  - {id: c, type: book, title: &t "Aliased"}\n  - {id: d, type: book, title: *t}\n---\n\nSee @[a] and @[b].`);
  assert.ok(fast.document && slow.document, JSON.stringify([fast.errors, slow.errors]));
  assert.equal(fast.document.citations, slow.document.citations!.slice(0, 2));
  assert.equal(slow.document.citations!.slice(2).map((c) => c.title), ['Aliased', 'Aliased']);
  const a = fast.document.citations![0] as Record<string, unknown>;
  assert.equal([a.volume, a.issue, a.number, a.accessed, a.keyword], [31, 12, '1_000', '2024-02-30', '12']);
  // A null key is "" for the yaml library and "null" for js-yaml: such a text is read by the yaml library.
  const nullKey = parseMarkdown('---\nabbreviations:\n  ~: Nothing\n---\n\nText');
  const nullKeyAliased = parseMarkdown('---\nabbreviations:\n  ~: Nothing\n  X: &x Something\n  Y: *x\n---\n\nText');
  assert.equal(nullKey.errors.map((e) => [e.code, e.path]), nullKeyAliased.errors.map((e) => [e.code, e.path]));
  assert.ok(nullKey.errors.some((e) => e.path === 'abbreviations.'), JSON.stringify(nullKey.errors));
});

test('maps validator errors back to the line of the element or front matter field', () => {
  assert.equal(errors('# One {#a}\n\nText\n\n## Two {#a}'), [['DUPLICATE_ANCHOR', 'sections[0].content[2].id', 5, 1]]);
  assert.equal(errors('Text\n\n::spacer{height=500}'), [['LIMIT_EXCEEDED', 'sections[0].content[1].height', 3, 1]]);
  assert.equal(errors('---\ndocument:\n  title: ok\n  size: B5\n---\n\nText'), [['INVALID_FIELD', 'document.size', 4, 9]]);
  assert.equal(errors('Text\n\n```chart\nchartType: pie\ndata:\n  labels: [a, b]\n  series:\n    - {name: s, values: [1, 2]}\n    - {name: t, values: [3, 4]}\n```'), [['INVALID_FIELD', 'sections[0].content[1].data.series', 8, 5]]);
  assert.equal(errors('| a | b |\n|---|---|\n| {colspan=3} x | |'), [['INVALID_TABLE', 'sections[0].content[0].rows[1]', 3, 1]]);
  assert.equal(errors('::var{name=missing}'), [['UNKNOWN_VARIABLE', 'sections[0].content[0].name', 1, 1]]);
});

test('places an issue inside a table cell at that cell, past the tenth element and row too', () => {
  const paragraphs = Array.from({ length: 11 }, (_, i) => `Paragraph ${i}.`).join('\n\n');
  const rows = Array.from({ length: 12 }, (_, i) => `| r${i} | ${i === 11 ? 'see [x](#nope)' : 'ok'} |`).join('\n');
  const result = parseMarkdown(`${paragraphs}\n\n| a | b |\n|---|---|\n${rows}\n\nLast [y](#gone).`);
  assert.equal(result.warnings.map((w) => [w.code, w.path, w.line, w.column]), [
    ['BROKEN_REFERENCE', 'sections[0].content[11].rows[12][1]', 36, 7],
    ['BROKEN_REFERENCE', 'sections[0].content[12].text', 38, 1],
  ]);
});

test('reports broken references as warnings, or as errors when strict', () => {
  const md = 'See [nowhere](#nope), @[ghost], ~XYZ~ and {{who}}.';
  const lenient = parseMarkdown(md);
  assert.ok(lenient.document);
  assert.equal(lenient.warnings.map((w) => [w.code, w.line]), [['BROKEN_REFERENCE', 1], ['UNDEFINED_CITATION', 1], ['UNDEFINED_ABBREVIATION', 1], ['UNKNOWN_VARIABLE', 1]]);
  assert.equal(errors(md, { strict: true }).map((e) => e[0]), ['BROKEN_REFERENCE', 'UNDEFINED_CITATION', 'UNDEFINED_ABBREVIATION', 'UNKNOWN_VARIABLE']);
});

test('rejects a source above maxBytes with LIMIT_EXCEEDED before reading it', () => {
  assert.equal(errors('x'.repeat(101), { maxBytes: 100 }), [['LIMIT_EXCEEDED', '(markdown)', 1, 1]]);
});

/**
 * A source of about `bytes`: the report fixture's Markdown, its body repeated with the anchors renamed,
 * each copy with a footnote and a link used before their definitions (which come in the next copy),
 * a table whose attribute paragraph follows it, an explicit section, and a broken reference.
 */
function largeMarkdown(bytes: number): string {
  const md = serializeMarkdown(reportDocument() as unknown as DocumentJson);
  const end = md.indexOf('\n---\n', 4) + 5;
  let out = md.slice(0, end);
  for (let copy = 0; Buffer.byteLength(out) < bytes; copy++) {
    out += `\n${md.slice(end).replace(/\{#ch(\d+)\}/g, `{#ch$1-${copy}}`).replace(/\(#ch(\d+)\)/g, `(#ch$1-${copy})`)}`;
    out += `\nCopy ${copy} has a note[^n${copy}] and [a link][l${copy}], and points at [nowhere](#missing-${copy}).\n\n`;
    out += `| a | b |\n|---|--:|\n| ${copy} | x |\n\n{headerRows=0}\n\n:::section{columns=2}\nIn a section of its own.\n:::\n\n`;
    if (copy > 0) out += `[^n${copy - 1}]: The note of copy ${copy - 1}.\n\n[l${copy - 1}]: https://example.com/${copy - 1}\n\n`;
  }
  return out;
}

test('gives a large source the same document, errors and warnings whether it is converted chunk by chunk or whole', () => {
  const md = largeMarkdown(300 * 1024);
  const chunked = parseMarkdown(md);
  const whole = parseMarkdown(md, { chunkedAbove: Infinity });
  assert.ok(chunked.document, JSON.stringify(chunked.errors.slice(0, 3)));
  assert.is(only(chunked.warnings, 'BROKEN_REFERENCE').length, md.match(/\(#missing-/g)!.length);
  assert.ok(JSON.stringify(chunked.document).includes('The note of copy 3.'));
  assert.ok(JSON.stringify(chunked.document).includes('https://example.com/3'));
  assert.is(JSON.stringify(chunked), JSON.stringify(whole));
  // A small source converted chunk by chunk too (a threshold of 0) gives its usual result, issues in place.
  const small = `${largeMarkdown(1)}\n\nEnd [^late] and {{undefined}}.\n\n[^late]: Defined last.\n`;
  assert.is(JSON.stringify(parseMarkdown(small, { chunkedAbove: 0, strict: true })), JSON.stringify(parseMarkdown(small, { strict: true })));
});

test.run();
