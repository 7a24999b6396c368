// The document JSON contract: every element validates, every limit of the spec holds, semantic checks and reference scanning.
// Longer than 400 lines: one test per element type and per limit of the spec, sharing the builders at the top.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCUMENT_LIMITS, ELEMENT_TYPES, type DocumentJson, type Element, type ListItem } from '../../contracts/document-json.js';
import { MAX_REPORTED_ERRORS, scanReferences, validateDocument } from '../../document/validator.js';
import type { FieldError } from '../../contracts/errors.js';
import { readFileSync } from 'node:fs';

/** A document that uses every element type, both section kinds, every variable kind and every defaults group. */
function everything(): DocumentJson {
  return {
    document: {
      type: 'pdf',
      filename: 'annual-report_2024',
      title: 'Annual report {{year}}',
      author: 'Quire',
      subject: 'Results',
      keywords: ['report', 'finance'],
      size: 'Letter',
      orientation: 'landscape',
      marginTop: 2,
      marginRight: 2.5,
      marginBottom: 2,
      marginLeft: 0,
    },
    sections: [
      { type: 'page', id: 'cover', align: 'center', content: [{ type: 'h1', text: 'Annual report' }, { type: 'image', src: '/image/logo-1', alt: 'Logo', width: '40%' }] },
      { type: 'page', startY: 12.5, content: [{ type: 'text', text: 'Prepared for ${customer}', align: 'right' }] },
      {
        type: 'flow',
        id: 'main',
        newPage: true,
        columns: { count: 2, space: 0.8, separate: true },
        content: [
          { type: 'toc', title: 'Contents', depth: 3 },
          { type: 'listOfFigures', title: 'Figures' },
          { type: 'listOfTables' },
          { type: 'h2', text: 'Introduction', id: 'intro', align: 'left' },
          { type: 'h3', text: 'Scope' },
          { type: 'h4', text: 'Four' },
          { type: 'h5', text: 'Five' },
          { type: 'h6', text: 'Six', id: 'six' },
          { type: 'text', text: 'See [the table](#sales), @[smith2020, p. 12] and ~API~.^[A footnote.] Total: {{total}}.', style: { bold: true, fontSize: 11, color: '#333', fontFamily: 'Quire Serif', italic: false } },
          { type: 'list', ordered: true, start: 3, items: ['one', { text: 'two', items: ['two a', { text: 'two b', items: ['deep'] }] }] },
          {
            type: 'table',
            id: 'sales',
            caption: 'Sales by region',
            headerRows: 1,
            columns: [{ width: '2fr', align: 'left' }, { width: 3 }, { width: '30%', align: 'right' }],
            rows: [
              ['Region', 'Q1', 'Q2'],
              ['North', 10, { text: '12', align: 'right' }],
              [{ text: 'South', rowspan: 2 }, { text: 'n/a', colspan: 2 }],
              { cells: [7, 8] },
            ],
            align: 'center',
          },
          { type: 'table', rowsFrom: 'lineItems', caption: 'Line items' },
          { type: 'image', src: 'https://example.com/chart.png', alt: 'A bar chart', width: 8, height: '20%', caption: 'Revenue', id: 'fig-revenue', align: 'center' },
          { type: 'image', src: '/temp-image/3f1c2a9e-0b1d-4c55-9a7e-2b4f6c8d0e11', alt: '' },
          { type: 'chart', chartType: 'bar', title: 'Revenue', data: { labels: ['Q1', 'Q2'], series: [{ name: '2024', values: [1, 2], color: '#0a84ff' }, { name: '2023', values: [0.5, 1.5] }] }, xLabel: 'Quarter', yLabel: 'EUR m', caption: 'Revenue by quarter', id: 'fig-chart', width: '100%', height: 6, legend: true },
          { type: 'chart', chartType: 'scatter', data: { series: [{ name: 'points', values: [{ x: 1, y: 2 }, { x: 2.5, y: -1 }] }] } },
          { type: 'chart', chartType: 'pie', data: { labels: ['a', 'b'], series: [{ name: 'share', values: [60, 40] }] } },
          { type: 'chart', chartType: 'line', data: { series: [{ name: 'l', values: [3, 1, 2] }] } },
          { type: 'chart', chartType: 'area', data: { series: [{ name: 'a', values: [] }] } },
          { type: 'qrCode', value: 'https://quire.example.com', size: 3, caption: 'Scan me', align: 'right' },
          { type: 'barcode', value: '4006381333931', format: 'ean13', showText: true, height: 2 },
          { type: 'barcode', value: 'QUIRE-128', format: 'code128' },
          { type: 'barcode', value: 'ABC 123', format: 'code39', showText: false },
          { type: 'barcode', value: '03600029145', format: 'upca' },
          { type: 'barcode', value: '9638507', format: 'ean8' },
          { type: 'barcode', value: '1540014128876', format: 'itf14' },
          { type: 'code', code: 'const a = `${b}`; // {{not a variable}}', language: 'typescript', caption: 'Example', lineNumbers: true, id: 'lst-1' },
          { type: 'math', latex: 'E = mc^2', display: true, caption: 'Energy', id: 'eq-energy' },
          { type: 'quote', text: 'Simplicity is prerequisite for reliability.', attribution: 'E. W. Dijkstra', align: 'justify' },
          { type: 'divider' },
          { type: 'spacer', height: 1.5 },
          { type: 'pageBreak' },
          { type: 'variableRef', name: 'signature' },
          { type: 'variableRef', name: 'steps' },
          { type: 'blockRef', blockId: 'b1e7c4d2', mode: 'linked', version: 2 },
          { type: 'blockRef', blockId: 'legal_footer', mode: 'snapshot' },
          { type: 'bibliography', title: 'References', style: 'ieee' },
        ],
      },
    ],
    variables: {
      year: 2024,
      total: '1,234 EUR',
      customer: 'ACME',
      signature: { type: 'image', src: '/image/sig', alt: 'Signature', width: 4 },
      steps: { type: 'list', items: ['first', 'second'], ordered: true },
      lineItems: { type: 'table', columns: ['item', 'price'], rows: [{ item: 'Pen', price: 2.5 }, { item: 'Ink', price: '4' }] },
    },
    abbreviations: { API: 'Application Programming Interface' },
    citations: [{ id: 'smith2020', type: 'book', title: 'On documents', author: [{ family: 'Smith', given: 'Ann' }], issued: { 'date-parts': [[2020]] }, publisher: 'Quire Press' }],
    defaults: {
      fonts: { family: 'Quire Sans', size: 10.5, color: '#111111' },
      headings: { h1: { size: 24, weight: 'bold', color: '#000', spacingBefore: 12, spacingAfter: 6 }, h6: { size: 10 } },
      paragraph: { spacingBefore: 0, spacingAfter: 6, lineHeight: 1.4 },
      colors: { primary: '#0a84ff', text: '#111', muted: '#666', accent: '#ff9500' },
      table: { headerBackground: '#eee', headerColor: '#000', borderColor: '#ccc', stripe: true, stripeColor: '#fafafa' },
      header: { text: '{{year}} report', align: 'right', skipFirstPage: true },
      footer: { text: 'Page {{page}} of {{pages}}', align: 'center' },
      citationStyle: 'chicago-author-date',
      locale: 'de-CH',
    },
  };
}

const minimal = (sections: unknown[] = []): Record<string, unknown> => ({ document: { type: 'pdf' }, sections });
const flow = (content: unknown[]) => ({ type: 'flow', content });
const repeat = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

function expectValid(doc: unknown): void {
  const r = validateDocument(doc);
  assert.equal(r.errors, [], 'expected no errors');
  assert.is(r.valid, true);
}

/** Exactly one error, at `path`, with `code`; returns it for message checks. */
function expectOneError(doc: unknown, path: string, code: string): FieldError {
  const r = validateDocument(doc);
  assert.is(r.valid, false);
  assert.is(r.document, undefined);
  assert.equal(r.errors.map((e) => `${e.path} ${e.code}`), [`${path} ${code}`]);
  return r.errors[0]!;
}

test('accepts a document that uses every element type, both section kinds, every variable kind and every defaults group', () => {
  const doc = everything();
  const used = new Set(doc.sections.flatMap((s) => s.content.map((e) => e.type)));
  assert.equal([...ELEMENT_TYPES].filter((t) => !used.has(t)), [], 'the fixture misses element types');
  expectValid(doc);
});

test('returns a copy with defaults filled in and leaves the input unchanged', () => {
  const input = minimal([{ type: 'flow', columns: { count: 2 }, content: [{ type: 'list', items: ['a'] }] }, { type: 'page', content: [] }]);
  const before = JSON.stringify(input);
  const r = validateDocument(input);
  assert.is(JSON.stringify(input), before);
  const doc = r.document!;
  assert.is(doc.document.size, 'A4');
  assert.is(doc.document.orientation, 'portrait');
  const [f, p] = doc.sections;
  assert.ok(f?.type === 'flow' && p?.type === 'page');
  if (f?.type !== 'flow' || p?.type !== 'page') return;
  assert.equal(f.columns, { count: 2, space: 1.27, separate: false });
  assert.is(f.newPage, true);
  assert.is(p.align, 'top');
  const list = f.content[0] as Extract<Element, { type: 'list' }>;
  assert.is(list.ordered, false);
});

test('accepts zero sections and 500 sections, and rejects 501 with LIMIT_EXCEEDED at sections', () => {
  expectValid(minimal());
  expectValid(minimal(repeat(500, () => flow([]))));
  const e = expectOneError(minimal(repeat(501, () => flow([]))), 'sections', 'LIMIT_EXCEEDED');
  assert.is(e.message, 'must have at most 500 sections');
});

test('accepts 5000 elements in a flow section and rejects 5001 at sections[n].content', () => {
  expectValid(minimal([flow([]), flow(repeat(5000, () => ({ type: 'divider' })))]));
  const e = expectOneError(minimal([flow([]), flow(repeat(5001, () => ({ type: 'divider' })))]), 'sections[1].content', 'LIMIT_EXCEEDED');
  assert.is(e.message, 'must have at most 5000 elements');
});

test('accepts 200 elements in a page section and rejects 201', () => {
  const page = (n: number) => ({ type: 'page', content: repeat(n, (i) => ({ type: 'text', text: `line ${i}` })) });
  expectValid(minimal([page(200)]));
  const e = expectOneError(minimal([flow([]), page(201)]), 'sections[1].content', 'LIMIT_EXCEEDED');
  assert.is(e.message, 'must have at most 200 elements');
});

test('accepts 1000 citations and rejects 1001 at citations', () => {
  const cites = (n: number) => ({ ...minimal(), citations: repeat(n, (i) => ({ id: `c${i}`, type: 'article-journal', title: `Paper ${i}` })) });
  expectValid(cites(1000));
  const e = expectOneError(cites(1001), 'citations', 'LIMIT_EXCEEDED');
  assert.is(e.message, 'must have at most 1000 citations');
});

const withDocument = (fields: Record<string, unknown>) => ({ document: { type: 'pdf', ...fields }, sections: [] });

test('accepts a filename of letters, digits, _ and - up to 100 chars and rejects other characters or 101 chars', () => {
  expectValid(withDocument({ filename: 'Invoice_2024-05' }));
  expectValid(withDocument({ filename: 'a'.repeat(100) }));
  assert.is(expectOneError(withDocument({ filename: 'a'.repeat(101) }), 'document.filename', 'LIMIT_EXCEEDED').message, 'must be at most 100 characters long');
  for (const bad of ['report.pdf', 'my report', 'ü', 'a/b', '']) {
    expectOneError(withDocument({ filename: bad }), 'document.filename', 'INVALID_FIELD');
  }
  assert.match(expectOneError(withDocument({ filename: 'x.pdf' }), 'document.filename', 'INVALID_FIELD').message, 'a-z A-Z 0-9 _ -');
});

for (const [field, limit] of [['title', 200], ['author', 100], ['subject', 200]] as const) {
  test(`accepts a ${field} of ${limit} chars and rejects ${limit + 1} with LIMIT_EXCEEDED at document.${field}`, () => {
    expectValid(withDocument({ [field]: 'x'.repeat(limit) }));
    expectOneError(withDocument({ [field]: 'x'.repeat(limit + 1) }), `document.${field}`, 'LIMIT_EXCEEDED');
  });
}

test('accepts 10 keywords of 50 chars and rejects an 11th keyword or a 51-char keyword', () => {
  expectValid(withDocument({ keywords: repeat(10, () => 'k'.repeat(50)) }));
  assert.is(expectOneError(withDocument({ keywords: repeat(11, () => 'k') }), 'document.keywords', 'LIMIT_EXCEEDED').message, 'must have at most 10 keywords');
  expectOneError(withDocument({ keywords: ['ok', 'k'.repeat(51)] }), 'document.keywords[1]', 'LIMIT_EXCEEDED');
});

test('requires document.type and names the allowed page sizes, orientations and formats', () => {
  expectOneError({ document: {}, sections: [] }, 'document.type', 'INVALID_FIELD');
  assert.is(expectOneError(withDocument({ size: 'B5' }), 'document.size', 'INVALID_FIELD').message, 'must be one of A4, A3, A5, Letter, Legal');
  assert.is(expectOneError(withDocument({ orientation: 'sideways' }), 'document.orientation', 'INVALID_FIELD').message, 'must be one of portrait, landscape');
  assert.is(expectOneError({ document: { type: 'html' }, sections: [] }, 'document.type', 'INVALID_FIELD').message, 'must be one of pdf, docx, odt');
  assert.is(expectOneError(withDocument({ pages: 3 }), 'document.pages', 'INVALID_FIELD').message.startsWith('is not an allowed field'), true);
});

for (const side of ['marginTop', 'marginRight', 'marginBottom', 'marginLeft']) {
  test(`accepts ${side} from 0 to 10 cm and rejects -0.1 and 10.1 with LIMIT_EXCEEDED`, () => {
    expectValid(withDocument({ [side]: 0 }));
    expectValid(withDocument({ [side]: 10 }));
    for (const bad of [-0.1, 10.1]) {
      assert.is(expectOneError(withDocument({ [side]: bad }), `document.${side}`, 'LIMIT_EXCEEDED').message, 'must be between 0 and 10 (cm)');
    }
  });
}

test('accepts 1 to 4 columns and rejects 0 and 5 at sections[n].columns.count', () => {
  for (const count of [1, 2, 3, 4]) expectValid(minimal([{ type: 'flow', columns: { count }, content: [] }]));
  for (const count of [0, 5]) {
    assert.is(expectOneError(minimal([{ type: 'flow', columns: { count }, content: [] }]), 'sections[0].columns.count', 'LIMIT_EXCEEDED').message, 'must be between 1 and 4');
  }
  expectOneError(minimal([{ type: 'flow', columns: { count: 2.5 }, content: [] }]), 'sections[0].columns.count', 'INVALID_FIELD');
  expectOneError(minimal([{ type: 'flow', columns: { space: 1 }, content: [] }]), 'sections[0].columns.count', 'INVALID_FIELD');
});

test('accepts a column space from 0 to 5 cm and rejects -0.5 and 5.01', () => {
  for (const space of [0, 5]) expectValid(minimal([{ type: 'flow', columns: { count: 2, space }, content: [] }]));
  for (const space of [-0.5, 5.01]) expectOneError(minimal([{ type: 'flow', columns: { count: 2, space }, content: [] }]), 'sections[0].columns.space', 'LIMIT_EXCEEDED');
});

test('accepts startY from 0 to 100 cm and rejects -1 and 100.5 at sections[n].startY', () => {
  for (const startY of [0, 100]) expectValid(minimal([{ type: 'page', startY, content: [] }]));
  for (const startY of [-1, 100.5]) expectOneError(minimal([flow([]), { type: 'page', startY, content: [] }]), 'sections[1].startY', 'LIMIT_EXCEEDED');
});

test('rejects a section id over 100 chars and a section of unknown type naming flow and page', () => {
  expectValid(minimal([{ type: 'flow', id: 'a'.repeat(100), content: [] }]));
  expectOneError(minimal([{ type: 'flow', id: 'a'.repeat(101), content: [] }]), 'sections[0].id', 'LIMIT_EXCEEDED');
  assert.is(expectOneError(minimal([{ type: 'column', content: [] }]), 'sections[0].type', 'INVALID_FIELD').message, 'must be one of flow, page');
});

test('reports a field error deep inside an element with its full path', () => {
  const doc = minimal([flow([]), flow([{ type: 'divider' }, { type: 'text', text: 'x'.repeat(DOCUMENT_LIMITS.textLength + 1) }])]);
  expectOneError(doc, 'sections[1].content[1].text', 'LIMIT_EXCEEDED');
  expectOneError(minimal([flow([{ type: 'math', latex: 'x'.repeat(10_001) }])]), 'sections[0].content[0].latex', 'LIMIT_EXCEEDED');
  expectOneError(minimal([flow([{ type: 'qrCode', value: 'x'.repeat(2001) }])]), 'sections[0].content[0].value', 'LIMIT_EXCEEDED');
  expectOneError(minimal([flow([{ type: 'spacer', height: 101 }])]), 'sections[0].content[0].height', 'LIMIT_EXCEEDED');
  expectOneError(minimal([flow([{ type: 'toc', depth: 7 }])]), 'sections[0].content[0].depth', 'LIMIT_EXCEEDED');
  expectOneError(minimal([flow([{ type: 'text', text: 'a', colour: 'red' }])]), 'sections[0].content[0].colour', 'INVALID_FIELD');
});

test('rejects an unknown element type at its type field and lists every allowed type', () => {
  const e = expectOneError(minimal([flow([{ type: 'text', text: 'ok' }, { type: 'paragraph', text: 'x' }])]), 'sections[0].content[1].type', 'INVALID_FIELD');
  assert.is(e.message, `must be one of ${ELEMENT_TYPES.join(', ')}`);
  const missing = expectOneError(minimal([flow([{ text: 'x' }])]), 'sections[0].content[0].type', 'INVALID_FIELD');
  assert.match(missing.message, 'is required; one of h1, h2');
});

test('reports only the errors of the element type that was named, not of every other type', () => {
  const r = validateDocument(minimal([flow([{ type: 'image', src: 'ftp://example.com/a.png' }])]));
  assert.equal(
    r.errors.map((e) => `${e.path} ${e.code}`).sort(),
    ['sections[0].content[0].alt INVALID_FIELD', 'sections[0].content[0].src INVALID_FIELD'],
  );
  assert.is(r.errors.find((e) => e.path.endsWith('.src'))!.message, 'must be /temp-image/<id>, /image/<id> or an https:// URL');
});

test('accepts image sources /temp-image/<id>, /image/<id> and https:// and rejects http://, data: and relative paths', () => {
  for (const src of ['/temp-image/abc-123', '/image/7d3c', 'https://cdn.example.com/a.png?x=1']) expectValid(minimal([flow([{ type: 'image', src, alt: 'a' }])]));
  for (const src of ['http://example.com/a.png', 'data:image/png;base64,AAAA', 'images/a.png', '/temp-image/../etc', 'https://']) {
    expectOneError(minimal([flow([{ type: 'image', src, alt: 'a' }])]), 'sections[0].content[0].src', 'INVALID_FIELD');
  }
});

test('reports a duplicate anchor id with DUPLICATE_ANCHOR at the second occurrence, across sections and element kinds', () => {
  const doc = minimal([
    { type: 'flow', id: 'intro', content: [{ type: 'h1', text: 'A', id: 'a' }, { type: 'table', id: 'a', rows: [['x']] }] },
    flow([{ type: 'image', src: '/image/x', alt: '', id: 'intro' }, { type: 'math', latex: 'x', id: 'a' }, { type: 'code', code: '', id: 'unique' }]),
  ]);
  const r = validateDocument(doc);
  assert.equal(
    r.errors.map((e) => `${e.path} ${e.code}`),
    ['sections[0].content[1].id DUPLICATE_ANCHOR', 'sections[1].content[0].id DUPLICATE_ANCHOR', 'sections[1].content[1].id DUPLICATE_ANCHOR'],
  );
  assert.match(r.errors[1]!.message, '"intro" first used at sections[0].id');
});

test('reports duplicate anchors together with schema errors elsewhere in the same answer', () => {
  const r = validateDocument({ document: { type: 'pdf', size: 'B5' }, sections: [flow([{ type: 'h1', text: 'a', id: 'x' }, { type: 'h2', text: 'b', id: 'x' }])] });
  assert.equal(r.errors.map((e) => e.code).sort(), ['DUPLICATE_ANCHOR', 'INVALID_FIELD']);
});

test('accepts lists nested 6 levels deep and rejects a 7th level with LIMIT_EXCEEDED', () => {
  const nest = (levels: number): ListItem[] => (levels === 1 ? ['leaf'] : [{ text: `level`, items: nest(levels - 1) }]);
  expectValid(minimal([flow([{ type: 'list', items: nest(6) }])]));
  const e = expectOneError(minimal([flow([{ type: 'list', items: nest(7) }])]), 'sections[0].content[0]' + '.items[0]'.repeat(6) + '.items', 'LIMIT_EXCEEDED');
  assert.is(e.message, 'lists nest at most 6 levels deep');
});

test('reports a variableRef to an undefined variable with UNKNOWN_VARIABLE at its name', () => {
  expectValid({ ...minimal([flow([{ type: 'variableRef', name: 'x' }])]), variables: { x: 'value' } });
  expectOneError(minimal([flow([{ type: 'variableRef', name: 'missing' }])]), 'sections[0].content[0].name', 'UNKNOWN_VARIABLE');
});

test('reports rowsFrom naming an undefined or non-table variable with UNKNOWN_VARIABLE', () => {
  const variables = { items: { type: 'table', rows: [{ a: 1 }] }, note: 'text', steps: { type: 'list', items: ['a'] } };
  expectValid({ ...minimal([flow([{ type: 'table', rowsFrom: 'items' }])]), variables });
  expectOneError({ ...minimal([flow([{ type: 'table', rowsFrom: 'nope' }])]), variables }, 'sections[0].content[0].rowsFrom', 'UNKNOWN_VARIABLE');
  assert.match(expectOneError({ ...minimal([flow([{ type: 'table', rowsFrom: 'note' }])]), variables }, 'sections[0].content[0].rowsFrom', 'UNKNOWN_VARIABLE').message, 'a text variable');
  assert.match(expectOneError({ ...minimal([flow([{ type: 'table', rowsFrom: 'steps' }])]), variables }, 'sections[0].content[0].rowsFrom', 'UNKNOWN_VARIABLE').message, 'a list variable');
});

test('reports table rows whose cells, counting colspans and rowspans, do not fill the columns with INVALID_TABLE', () => {
  const table = (rows: unknown[], extra: Record<string, unknown> = {}) => minimal([flow([{ type: 'table', rows, ...extra }])]);
  expectValid(table([['a', 'b', 'c'], [{ text: 'ab', colspan: 2 }, 'c'], [{ text: 'tall', rowspan: 2 }, 'b', 'c'], ['b', 'c']]));
  expectValid(table([['a', 'b']], { columns: [{}, {}] }));
  assert.match(expectOneError(table([['a', 'b', 'c'], ['a', 'b']]), 'sections[0].content[0].rows[1]', 'INVALID_TABLE').message, 'fills 2 columns');
  expectOneError(table([['a', 'b'], [{ text: 'x', colspan: 2 }, 'c']]), 'sections[0].content[0].rows[1]', 'INVALID_TABLE');
  expectOneError(table([['a', 'b', 'c']], { columns: [{}, {}] }), 'sections[0].content[0].rows[0]', 'INVALID_TABLE');
  expectOneError(table([[{ text: 'tall', rowspan: 2 }, 'b'], ['a', 'b']]), 'sections[0].content[0].rows[1]', 'INVALID_TABLE');
  expectOneError(table([['a', { text: 'b', rowspan: 3 }], ['a']]), 'sections[0].content[0].rows[0][1].rowspan', 'INVALID_TABLE');
  expectOneError(table([['a'], { cells: ['h'], header: true }]), 'sections[0].content[0].rows[1].header', 'INVALID_TABLE');
  expectOneError(table([['a']], { headerRows: 2 }), 'sections[0].content[0].headerRows', 'INVALID_TABLE');
  expectOneError(minimal([flow([{ type: 'table', caption: 'none' }])]), 'sections[0].content[0]', 'INVALID_TABLE');
});

test('rejects a barcode value that does not fit its format or has a wrong check digit', () => {
  const barcode = (value: string, format: string) => minimal([flow([{ type: 'barcode', value, format }])]);
  expectValid(barcode('400638133393', 'ean13'));
  expectValid(barcode('{{sku}}', 'ean13'));
  assert.match(expectOneError(barcode('4006381333932', 'ean13'), 'sections[0].content[0].value', 'INVALID_FIELD').message, 'must be 1');
  expectOneError(barcode('12345', 'ean8'), 'sections[0].content[0].value', 'INVALID_FIELD');
  expectOneError(barcode('abc', 'code39'), 'sections[0].content[0].value', 'INVALID_FIELD');
  assert.match(expectOneError(barcode('x', 'qr'), 'sections[0].content[0].format', 'INVALID_FIELD').message, 'code128, ean13');
});

test('rejects invalid variable names, variable kinds and abbreviation keys', () => {
  expectOneError({ ...minimal(), variables: { '1st': 'x' } }, 'variables.1st', 'INVALID_FIELD');
  expectOneError({ ...minimal(), variables: { v: { type: 'chart' } } }, 'variables.v.type', 'INVALID_FIELD');
  assert.is(expectOneError({ ...minimal(), variables: { v: true } }, 'variables.v', 'INVALID_FIELD').message, 'must be a string, a number or an object');
  expectOneError({ ...minimal(), variables: Object.fromEntries(repeat(501, (i) => [`v${i}`, i])) }, 'variables', 'LIMIT_EXCEEDED');
  expectOneError({ ...minimal(), abbreviations: { 'NO SPACE': 'x' } }, 'abbreviations.NO SPACE', 'INVALID_FIELD');
  expectOneError({ ...minimal(), abbreviations: { API: 'x'.repeat(501) } }, 'abbreviations.API', 'LIMIT_EXCEEDED');
  expectOneError({ ...minimal(), citations: [{ id: 'a' }] }, 'citations[0].type', 'INVALID_FIELD');
  expectValid({ ...minimal(), citations: [{ id: 'a', type: 'webpage', URL: 'https://x', 'container-title': 'Site' }] });
});

test('rejects defaults with a bad color, citation style or locale', () => {
  expectOneError({ ...minimal(), defaults: { colors: { primary: 'blue' } } }, 'defaults.colors.primary', 'INVALID_FIELD');
  expectOneError({ ...minimal(), defaults: { citationStyle: 'mla' } }, 'defaults.citationStyle', 'INVALID_FIELD');
  expectOneError({ ...minimal(), defaults: { locale: 'english please' } }, 'defaults.locale', 'INVALID_FIELD');
  expectOneError({ ...minimal(), defaults: { headings: { h7: {} } } }, 'defaults.headings.h7', 'INVALID_FIELD');
});

test('lists at most the first 500 errors and ends with TOO_MANY_ERRORS', () => {
  const r = validateDocument(minimal([flow(repeat(600, () => ({ type: 'text' })))]));
  assert.is(r.errors.length, MAX_REPORTED_ERRORS + 1);
  assert.is(r.errors[MAX_REPORTED_ERRORS]!.code, 'TOO_MANY_ERRORS');
});

test('rejects a body that is not a document object', () => {
  for (const bad of [null, 'x', [], 42]) assert.is(validateDocument(bad).valid, false);
  assert.equal(validateDocument({}).errors.map((e) => e.path).sort(), ['document', 'sections']);
});

// ---------------------------------------------------------------- references

test('finds no broken references, citations, abbreviations or variables in a consistent document', () => {
  const doc = validateDocument(everything()).document!;
  assert.equal(scanReferences(doc), { brokenReferences: [], undefinedCitations: [], undefinedAbbreviations: [], unknownVariables: [], unknownVariableNames: [] });
});

test('reports broken anchors, undefined citations, undefined abbreviations and unknown variables with their paths', () => {
  const doc = everything();
  const main = doc.sections[2]!;
  main.content.push(
    { type: 'text', text: 'See [missing](#nowhere) and [ok](#intro) and [cover](#cover), @[smith2020; jones2019, p. 4] and @[doe], ~API~ ~XYZ~, {{nope}} ${alsoNope} {{ total }}' },
    { type: 'list', items: ['a', { text: 'b', items: ['[x](#deep-missing)'] }] },
    { type: 'table', rows: [['ok', { text: '~TLA~' }]] },
    { type: 'image', src: '/image/a', alt: 'Logo of {{company}}', caption: 'See @[ghost]' },
  );
  doc.defaults!.footer = { text: 'Page {{page}} of {{pages}} — {{brand}}' };
  const base = `sections[2].content[${main.content.length - 4}]`;
  const r = scanReferences(doc);
  const at = (list: FieldError[]) => list.map((e) => `${e.path} ${e.code}`);
  assert.equal(at(r.brokenReferences), [`${base}.text BROKEN_REFERENCE`, `sections[2].content[${main.content.length - 3}].items[1].items[0] BROKEN_REFERENCE`]);
  assert.match(r.brokenReferences[0]!.message, '#nowhere');
  assert.equal(at(r.undefinedCitations), [`${base}.text UNDEFINED_CITATION`, `${base}.text UNDEFINED_CITATION`, `sections[2].content[${main.content.length - 1}].caption UNDEFINED_CITATION`]);
  assert.equal(r.undefinedCitations.map((e) => /"(.+?)"/.exec(e.message)![1]), ['jones2019', 'doe', 'ghost']);
  assert.equal(at(r.undefinedAbbreviations), [`${base}.text UNDEFINED_ABBREVIATION`, `sections[2].content[${main.content.length - 2}].rows[0][1].text UNDEFINED_ABBREVIATION`]);
  assert.equal(at(r.unknownVariables), [
    `${base}.text UNKNOWN_VARIABLE`,
    `${base}.text UNKNOWN_VARIABLE`,
    `sections[2].content[${main.content.length - 1}].alt UNKNOWN_VARIABLE`,
    'defaults.footer.text UNKNOWN_VARIABLE',
  ]);
  assert.match(r.unknownVariables[1]!.message, '${alsoNope}');
});

test('ignores references inside code spans, math spans, escapes and code elements', () => {
  const doc = validateDocument(
    minimal([
      flow([
        { type: 'text', text: 'Literal `@[nocite] ~NOPE~ {{nope}} [x](#none)` and \\~ESC~ and $a~b~c$ and \\{{esc}}' },
        { type: 'code', code: 'echo ${HOME} {{x}} ~A~ @[b]' },
        { type: 'math', latex: '\\text{~X~}' },
      ]),
    ]),
  ).document!;
  assert.equal(scanReferences(doc), { brokenReferences: [], undefinedCitations: [], undefinedAbbreviations: [], unknownVariables: [], unknownVariableNames: [] });
});

test('reports a reference once per field even when it repeats', () => {
  const doc = validateDocument(minimal([flow([{ type: 'text', text: '~A~ ~A~ {{v}} {{v}} ${v}' }])])).document!;
  const r = scanReferences(doc);
  assert.is(r.undefinedAbbreviations.length, 1);
  assert.is(r.unknownVariables.length, 1);
});

// ---------------------------------------------------------------- docs

test('docs/document-json.md has a section with fields and an example for every element type', () => {
  const doc = readFileSync(new URL('../../../docs/document-json.md', import.meta.url), 'utf8');
  const sections = doc.split(/^### /m).slice(1);
  for (const type of ELEMENT_TYPES) {
    const heading = /^h[1-6]$/.test(type) ? '`h1` … `h6`' : `\`${type}\``;
    const section = sections.find((s) => s.startsWith(`${heading}\n`));
    assert.ok(section, `no "### ${heading}" section`);
    assert.ok(section!.includes(`"type": "${/^h[1-6]$/.test(type) ? 'h2' : type}"`), `no JSON example for ${type}`);
  }
});

test.run();
