// fast-check arbitraries over the document model: markup strings full of characters that mean something in one grammar or the other, every element type, both section kinds.
import fc from 'fast-check';
import type { DocumentJson, Element, ListItem, Section, TableCell } from '../../../contracts/document-json.js';
import { validateDocument } from '../../../document/validator.js';

const word = fc.constantFrom('alpha', 'beta', 'Gamma', 'delta', 'x', 'A1', 'été', 'naïve', '数据', 'end.', 'foo_bar', '2024', 'snake_case_name', 'C#', 'a+b');
const special = fc.constantFrom(
  '*', '**', '_', '__', '\\', '[', ']', '(', ')', '$', '{', '}', '{{', '}}', '~', '~~', '@', '^', '`', '#', '|', '<', '>', '&', '&amp;', '—', ':', '::', '1.', '2)',
  '-', '+', '=', '!', '"', "'", 'www.example.com', 'https://example.com/a_b', 'a@b.co', '\t', '  ', '%', '\u00a0', '😀',
);
const construct = fc.constantFrom(
  '**bold**', '*it*', '`code`', '`` a`b ``', '[link](https://example.com/x?y=1)', '[see](#sec-1)', '@[smith2020]', '@[smith2020, p. 12]', '@[a; b, ch. 3]',
  '~API~', '{{name}}', '{{ name }}', '${total}', '$x^2$', '$\\frac{a}{b}$', '^[a note]', '^[note with *emph*]', '\n', '**bold *and it***', '*it **and bold***',
  '***both***', '[**bold link**](https://example.com)', '\\*', '\\@[x]', '\\~A~', '\\{{x}}',
);

/** A markup field: words, spaces, punctuation and reference syntax in any order (ill-formed markup included). */
export const markup = (maxLength = 12) =>
  fc
    .array(fc.oneof({ weight: 5, arbitrary: word }, { weight: 4, arbitrary: fc.constant(' ') }, { weight: 2, arbitrary: special }, { weight: 2, arbitrary: construct }), { minLength: 0, maxLength: maxLength })
    .map((parts) => parts.join(''));

/** Markup with at least one letter (headings must not be empty once trimmed). */
const nonBlankMarkup = fc.tuple(word, markup(6)).map(([w, m]) => `${w} ${m}`);

const plain = fc.oneof(word, fc.constantFrom('Plain title', 'A "quoted" title', 'Title: with colon', 'Ünïcödé', '{{name}} report', 'a # b', "it's"));
const anchor = fc.constantFrom('sec-1', 'fig.2', 'tab:3', '_x', 'A');
const textAlign = fc.constantFrom('left', 'center', 'right', 'justify');
const blockAlign = fc.constantFrom('left', 'center', 'right');
const length = fc.oneof(fc.constantFrom(1, 2.5, 10), fc.constantFrom('50%', '100%', '12.5%'));

const heading = fc.record(
  { type: fc.constantFrom('h1', 'h2', 'h3', 'h4', 'h5', 'h6'), text: nonBlankMarkup, id: anchor, align: textAlign },
  { requiredKeys: ['type', 'text'] },
);

const textElement = fc.record(
  {
    type: fc.constant('text'),
    text: markup(16),
    align: textAlign,
    style: fc.record({ bold: fc.boolean(), italic: fc.boolean(), fontSize: fc.constantFrom(9, 11.5, 24), fontFamily: fc.constantFrom('Quire Serif', 'Noto Sans'), color: fc.constantFrom('#333', '#1a2b3c') }, { requiredKeys: [] }),
  },
  { requiredKeys: ['type', 'text'] },
);

const listItems: fc.Arbitrary<ListItem[]> = fc.letrec<{ items: ListItem[]; item: ListItem }>((tie) => ({
  item: fc.oneof(
    { weight: 4, arbitrary: markup(6) },
    { weight: 1, arbitrary: fc.constantFrom('☐ buy milk', '☑ done', '[ ] literal box') },
    { weight: 1, arbitrary: fc.record({ text: markup(6), items: tie('items') }) },
  ),
  items: fc.array(tie('item'), { minLength: 1, maxLength: 4 }),
})).items as fc.Arbitrary<ListItem[]>;

const list = fc.record({ type: fc.constant('list'), ordered: fc.boolean(), start: fc.constantFrom(0, 1, 3, 10, 999), items: listItems }, { requiredKeys: ['type', 'items'] }).map((l) => {
  if (!l.ordered) delete (l as { start?: number }).start;
  return l;
});

const cell: fc.Arbitrary<TableCell> = fc.oneof(
  { weight: 4, arbitrary: markup(5) },
  { weight: 1, arbitrary: fc.constantFrom(10, 2.5, -3, 0) },
  { weight: 1, arbitrary: fc.record({ text: markup(4), align: textAlign }, { requiredKeys: ['text'] }) },
);

const table = fc
  .record(
    {
      width: fc.integer({ min: 1, max: 4 }),
      height: fc.integer({ min: 1, max: 4 }),
      cells: fc.array(cell, { minLength: 16, maxLength: 16 }),
      headerRows: fc.constantFrom(0, 1, 2),
      spans: fc.boolean(),
      columns: fc.option(fc.array(fc.record({ width: fc.constantFrom(2, '1fr', 'auto', '30%'), align: textAlign }, { requiredKeys: [] }), { minLength: 4, maxLength: 4 })),
      caption: fc.option(markup(5)),
      id: fc.option(anchor),
      align: fc.option(blockAlign),
    },
    { requiredKeys: ['width', 'height', 'cells', 'headerRows', 'spans', 'columns', 'caption', 'id', 'align'] },
  )
  .map(({ width, height, cells, headerRows, spans, columns, caption, id, align }) => {
    const rows: TableCell[][] = Array.from({ length: height }, (_, r) => cells.slice(r * width, r * width + width));
    // One colspan across the first row and one rowspan down the first column, when the grid allows.
    if (spans && width >= 2 && height >= 2) {
      const first = rows[0]!;
      const head = first[0];
      rows[0] = [{ text: typeof head === 'object' ? head.text : String(head ?? ''), colspan: 2 }, ...first.slice(2)];
      rows[1] = [{ text: 'down', rowspan: height - 1 }, ...rows[1]!.slice(1)];
      for (let r = 2; r < height; r++) rows[r] = rows[r]!.slice(1);
    }
    const el: Record<string, unknown> = { type: 'table', rows };
    if (headerRows && headerRows <= height) el.headerRows = headerRows;
    if (columns) el.columns = columns.slice(0, width);
    if (caption !== null) el.caption = caption;
    if (id !== null) el.id = id;
    if (align !== null) el.align = align;
    return el;
  });

const image = fc.record(
  { type: fc.constant('image'), src: fc.constantFrom('/temp-image/abc-123', '/image/logo_1', 'https://example.com/a(1).png', 'https://example.com/x?a=1&b=2'), alt: fc.oneof(plain, fc.constantFrom('', 'a *b* [c]', 'x & y')), width: length, height: length, caption: markup(5), id: anchor, align: blockAlign },
  { requiredKeys: ['type', 'src', 'alt'] },
);

const chart = fc.record(
  {
    type: fc.constant('chart'),
    chartType: fc.constantFrom('bar', 'line', 'area'),
    title: plain,
    data: fc.constant({ labels: ['Q1', 'Q2', 'Q3'], series: [{ name: '2024', values: [1.2, 1.5, -2] }, { name: 'yes', values: [0, 3, 4], color: '#ff0000' }] }),
    xLabel: plain,
    legend: fc.boolean(),
    caption: markup(4),
    id: anchor,
    width: length,
    align: blockAlign,
  },
  { requiredKeys: ['type', 'chartType', 'data'] },
);

const codeText = fc.array(fc.constantFrom('let x = 1;', '```', '~~~', ':::', '  indented', '\ttab', '', '$$', '<b>', '{{name}}', '# not a heading', '---'), { maxLength: 5 }).map((lines) => lines.join('\n'));

const otherElements = fc.oneof(
  fc.record({ type: fc.constant('code'), code: codeText, language: fc.constantFrom('python', 'c++', 'chart', 'ts'), caption: markup(4), lineNumbers: fc.boolean(), id: anchor }, { requiredKeys: ['type', 'code'] }),
  fc.record({ type: fc.constant('math'), latex: fc.constantFrom('x^2', '\\frac{a}{b}', 'a\n$$\nb', '\\sum_{i=1}^n i'), display: fc.boolean(), caption: markup(4), id: anchor }, { requiredKeys: ['type', 'latex'] }),
  fc.record({ type: fc.constant('quote'), text: markup(10), attribution: markup(4), align: textAlign }, { requiredKeys: ['type', 'text'] }),
  fc.record({ type: fc.constant('qrCode'), value: fc.constantFrom('https://quire.example.com/x?a=1', 'hello world', 'quote " and & amp'), size: fc.constantFrom(0.5, 3, 30), caption: markup(4), align: blockAlign }, { requiredKeys: ['type', 'value'] }),
  fc.record({ type: fc.constant('barcode'), value: fc.constantFrom('400638133393'), format: fc.constant('ean13'), showText: fc.boolean(), height: fc.constantFrom(0.5, 2), align: blockAlign }, { requiredKeys: ['type', 'value', 'format'] }),
  fc.record({ type: fc.constant('barcode'), value: fc.constantFrom('ABC-123', 'Hello {x}'), format: fc.constant('code128') }),
  fc.constant({ type: 'divider' }),
  fc.constant({ type: 'pageBreak' }),
  fc.record({ type: fc.constant('spacer'), height: fc.constantFrom(0, 1.5, 100) }),
  fc.record({ type: fc.constant('toc'), title: plain, depth: fc.integer({ min: 1, max: 6 }) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('listOfFigures'), title: plain }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('listOfTables'), title: plain }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('bibliography'), title: plain, style: fc.constantFrom('apa', 'ieee') }, { requiredKeys: ['type'] }),
  fc.constant({ type: 'variableRef', name: 'name' }),
  fc.record({ type: fc.constant('blockRef'), blockId: fc.constantFrom('legal-footer', 'b_2'), mode: fc.constantFrom('linked', 'snapshot'), version: fc.integer({ min: 1, max: 9 }) }, { requiredKeys: ['type', 'blockId', 'mode'] }),
  // A saved snapshot: the block's content in the element (`:::block{…}` … `:::`), a linked block inside it.
  fc.record(
    {
      type: fc.constant('blockRef'),
      blockId: fc.constantFrom('legal-footer', 'b_2'),
      mode: fc.constant('snapshot'),
      version: fc.integer({ min: 1, max: 9 }),
      content: fc.array(fc.oneof(heading, textElement, list, fc.constant({ type: 'blockRef', blockId: 'b_2', mode: 'linked' }), fc.constant({ type: 'divider' })), { maxLength: 3 }),
    },
    { requiredKeys: ['type', 'blockId', 'mode', 'content'] },
  ),
  fc.constant({ type: 'table', rowsFrom: 'lineItems', caption: 'Line items', columns: [{ align: 'left' }, { width: '2fr', align: 'right' }] }),
  fc.constant({ type: 'table', rows: [] }),
  table,
  image,
  chart,
);

export const element = fc.oneof({ weight: 3, arbitrary: heading }, { weight: 4, arbitrary: textElement }, { weight: 2, arbitrary: list }, { weight: 6, arbitrary: otherElements }) as fc.Arbitrary<Element>;

const section: fc.Arbitrary<Section> = fc.oneof(
  fc.record(
    {
      type: fc.constant('flow'),
      id: anchor,
      newPage: fc.boolean(),
      columns: fc.record({ count: fc.integer({ min: 1, max: 4 }), space: fc.constantFrom(0, 1.27, 2.5), separate: fc.boolean() }, { requiredKeys: ['count'] }),
      content: fc.array(element, { maxLength: 6 }),
    },
    { requiredKeys: ['type', 'content'] },
  ),
  fc.record({ type: fc.constant('page'), id: anchor, align: fc.constantFrom('top', 'center', 'bottom'), startY: fc.constantFrom(0, 3.5), content: fc.array(element, { maxLength: 4 }) }, { requiredKeys: ['type', 'content'] }),
) as fc.Arbitrary<Section>;

const settings = fc.record(
  { type: fc.constantFrom('pdf', 'docx', 'odt'), filename: fc.constantFrom('report', 'a-b_c'), title: plain, subtitle: plain, author: plain, date: fc.constantFrom('2024-05-01', '2024-05-01T10:30:00Z', 'Spring 2024', '2024'), abstract: plain, keywords: fc.array(plain, { maxLength: 3 }), size: fc.constantFrom('A4', 'Letter'), orientation: fc.constantFrom('portrait', 'landscape'), marginTop: fc.constantFrom(0, 2.5) },
  { requiredKeys: ['type'] },
);

/** Anchor ids made unique (the pool is small so that links find them; duplicates get a suffix). */
function uniqueAnchors(doc: DocumentJson): DocumentJson {
  const seen = new Set<string>();
  const claim = (o: { id?: string }) => {
    if (o.id === undefined) return;
    let id = o.id;
    for (let n = 2; seen.has(id); n++) id = `${o.id}-${n}`;
    seen.add(id);
    o.id = id;
  };
  for (const s of doc.sections) {
    claim(s);
    for (const el of s.content) if ('id' in el && (el.type as string) !== 'blockRef') claim(el as { id?: string });
  }
  return doc;
}

/** A valid document (checked with validateDocument) using every element type and both section kinds. */
export const document: fc.Arbitrary<DocumentJson> = fc
  .record(
    {
      document: settings,
      sections: fc.array(section, { maxLength: 4 }),
      variables: fc.constant({ name: 'World', total: 12.5, lineItems: { type: 'table', columns: ['item', 'price'], rows: [{ item: 'Pen', price: 2.5 }] }, logo: { type: 'image', src: '/image/logo', alt: 'Logo' } }),
      abbreviations: fc.constant({ API: 'Application Programming Interface', A: 'a: "quoted" — text' }),
      citations: fc.constant([{ id: 'smith2020', type: 'book', title: 'On documents', author: [{ family: 'Smith', given: 'Ann' }], issued: { 'date-parts': [[2020]] } }, { id: 'a', type: 'article-journal' }]),
      defaults: fc.record({ fonts: fc.constant({ family: 'Quire Serif', size: 11 }), footer: fc.constant({ text: 'Page {{page}} of {{pages}}', align: 'center' }), locale: fc.constantFrom('en', 'de-CH') }, { requiredKeys: [] }),
    },
    { requiredKeys: ['document', 'sections'] },
  )
  .map((d) => uniqueAnchors(d as unknown as DocumentJson))
  .filter((d) => validateDocument(d).valid);

/** Markdown made of the language's own pieces, then cut and spliced: for the fuzz test. */
export const markdownSource = fc
  .array(
    fc.oneof(
      markup(8),
      fc.constantFrom(
        '# Heading {#h1}\n', '## Two\n', '- item\n', '  - nested\n', '1. one\n', '> quote\n', '> — Someone\n', '| a | b |\n|---|---|\n| 1 | 2 |\n', '{#t caption="x"}\n', '```js {#c}\ncode\n```\n', '```chart\nchartType: bar\ndata: {series: [{name: a, values: [1]}]}\n```\n',
        '$$\nx\n$$\n', ':::page{align=center}\n', ':::section{columns=2}\n', ':::\n', '::toc{depth=2}\n', '::qr{value="x"}\n', '::barcode{value=1 format=ean13}\n', '::spacer{height=x}\n', '::unknown\n', '---\n', '***\n',
        '---\ndocument:\n  title: x\n---\n', '---\n: bad: yaml\n', '![alt](/image/x){width=50%}\n', '[^1]: footnote\n', 'text[^1]\n', '<div>html</div>\n', '\n', '\n\n', '    indented code\n', '[ref]: https://example.com\n', '[ref]\n',
      ),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''));
