// The resolve layer of the DOCX and ODT targets, through resolveDocument: CSL citations in the five styles,
// variables and abbreviations as the PDF prints them, pictures sized and fitted (PNG headers read back),
// highlighted code, Temml's MathML converted by mathml2omml (checked as XML), hostile text kept as text,
// and every problem reported by its path.
// Longer than 400 lines: the resolve layer answers many format-independent questions (citations in five styles, numbering, variables, geometry), one short test each.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';
import jsQR from 'jsqr';
import { XMLValidator } from 'fast-xml-parser';
import { mml2omml } from 'mathml2omml';
import type { DocumentJson } from '../../contracts/document-json.js';
import { resolveDocument } from '../../engines/office/resolve.js';
import { plainText } from '../../engines/office/resolve-inline.js';
import type { Block, OfficeDocument, OInline, Picture } from '../../engines/office/model.js';
import { RenderInputError, type LoadedImage } from '../../engines/render-input.js';
import { HOSTILE_STRINGS } from '../fixtures/documents.js';

type Json = Record<string, any>;
const OPTIONS = { createdAt: '2026-03-01T10:00:00.000Z' };

function resolve(doc: Json, images: Map<string, LoadedImage> = new Map()): Promise<OfficeDocument> {
  return resolveDocument(doc as DocumentJson, images, OPTIONS);
}

/** A document with one flow section holding `content`. */
const flow = (content: Json[], extra: Json = {}): Json => ({ document: { type: 'docx' }, sections: [{ type: 'flow', content }], ...extra });

const blocks = (out: OfficeDocument, section = 0): Block[] => out.sections[section]!.content;
const textOf = (b: Block | undefined): string => {
  assert.ok(b && 'c' in b, 'a block with inline content');
  return plainText((b as { c: OInline[] }).c);
};

/** Width and height from a PNG's IHDR chunk (bytes 16–23), after checking the signature. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(bytes);
  assert.equal([...b.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.is(b.toString('latin1', 12, 16), 'IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function approx(actual: number, expected: number, what: string, tolerance = 0.01): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} ≈ ${expected}`);
}

function raster(width: number, height: number, color = '#2e86ab'): Canvas {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = color;
  g.fillRect(0, 0, width, height);
  return canvas;
}

// ---------------------------------------------------------------- citations

const SMITH = { id: 'smith2020', type: 'book', title: 'On documents', author: [{ family: 'Smith', given: 'Ann' }], issued: { 'date-parts': [[2020]] }, publisher: 'Quire Press' };
const JONES = { id: 'jones2019', type: 'article-journal', title: 'Rendering at scale', author: [{ family: 'Jones', given: 'Bo' }], issued: { 'date-parts': [[2019]] }, 'container-title': 'Journal of Documents', volume: '3', page: '1-9' };

async function cite(style: string, locale = 'en-US'): Promise<{ cites: string[]; bibliography: Extract<Block, { t: 'bibliography' }> }> {
  const out = await resolve(
    flow([{ type: 'text', text: 'A @[smith2020, p. 12] B @[jones2019] C @[smith2020; jones2019] D @[smith2020, ch. 3].' }], { citations: [SMITH, JONES], defaults: { citationStyle: style, locale } }),
  );
  const par = blocks(out)[0] as Extract<Block, { t: 'par' }>;
  const cites = par.c.filter((n): n is Extract<OInline, { t: 'cite' }> => n.t === 'cite').map((n) => plainText(n.c));
  const bibliography = blocks(out).at(-1) as Extract<Block, { t: 'bibliography' }>;
  assert.is(bibliography.t, 'bibliography', 'a document that cites gets a bibliography at the end');
  return { cites, bibliography };
}

test('apa: author-date citations with locators, alphabetical bibliography with italics', async () => {
  const { cites, bibliography } = await cite('apa');
  assert.equal(cites, ['(Smith, 2020, p. 12)', '(Jones, 2019)', '(Jones, 2019; Smith, 2020)', '(Smith, 2020, Chapter 3)']);
  assert.is(bibliography.title, 'References');
  assert.equal(bibliography.entries.map(plainText), ['Jones, B. (2019). Rendering at scale. Journal of Documents, 3, 1–9.', 'Smith, A. (2020). On documents. Quire Press.']);
  const italic = bibliography.entries[1]!.find((n) => n.t === 'emph');
  assert.ok(italic && plainText([italic]) === 'On documents', 'the book title is emphasised');
});

test('ieee: numbers in order of first citation, locators inside the brackets', async () => {
  const { cites, bibliography } = await cite('ieee');
  assert.equal(cites, ['[1, p. 12]', '[2]', '[1], [2]', '[1, Ch. 3]']);
  assert.equal(bibliography.entries.map(plainText), ['[1] A. Smith, On documents. Quire Press, 2020.', '[2] B. Jones, “Rendering at scale,” Journal of Documents, vol. 3, pp. 1–9, 2019.']);
});

test('chicago-author-date, harvard and vancouver', async () => {
  const chicago = await cite('chicago-author-date');
  assert.equal(chicago.cites, ['(Smith 2020, 12)', '(Jones 2019)', '(Smith 2020; Jones 2019)', '(Smith 2020, chap. 3)']);
  assert.equal(chicago.bibliography.entries.map(plainText), ['Jones, Bo. 2019. “Rendering at Scale.” Journal of Documents 3: 1–9.', 'Smith, Ann. 2020. On Documents. Quire Press.']);
  const harvard = await cite('harvard');
  assert.equal(harvard.cites, ['(Smith, 2020, p. 12)', '(Jones, 2019)', '(Jones, 2019; Smith, 2020)', '(Smith, 2020, chap. 3)']);
  assert.equal(harvard.bibliography.entries.map(plainText), ['Jones, B. (2019) “Rendering at scale,” Journal of Documents, 3, pp. 1–9.', 'Smith, A. (2020) On documents. Quire Press.']);
  const vancouver = await cite('vancouver');
  assert.equal(vancouver.cites, ['(1)', '(2)', '(1,2)', '(1)']);
  assert.equal(vancouver.bibliography.entries.map(plainText), ['1. Smith A. On documents. Quire Press; 2020.', '2. Jones B. Rendering at scale. Journal of Documents. 2019;3:1–9.']);
});

test('numeric styles number by first citation across the document, footnotes and captions included', async () => {
  const c = (n: number) => ({ id: `k${n}`, type: 'book', title: `Book ${n}`, author: [{ family: `Author${n}`, given: 'A' }], issued: { 'date-parts': [[2000 + n]] } });
  const out = await resolve({
    document: { type: 'docx' },
    sections: [
      { type: 'flow', content: [{ type: 'text', text: 'first @[k3] then^[in a note @[k1]]' }, { type: 'table', caption: 'see @[k2]', rows: [['@[k3]']] }] },
      { type: 'flow', content: [{ type: 'bibliography', title: 'Works' }, { type: 'text', text: 'late @[k2]' }] },
    ],
    citations: [c(1), c(2), c(3)],
    defaults: { citationStyle: 'ieee' },
  });
  const found: string[] = [];
  const walk = (nodes: OInline[]) => {
    for (const n of nodes) {
      if (n.t === 'cite') found.push(plainText(n.c));
      else if ('c' in n && Array.isArray(n.c)) walk(n.c);
    }
  };
  const first = blocks(out, 0);
  walk((first[0] as Extract<Block, { t: 'par' }>).c);
  const table = first[1] as Extract<Block, { t: 'table' }>;
  walk(table.rows[0]![0]!.c);
  walk(table.caption!.c);
  walk((blocks(out, 1)[1] as Extract<Block, { t: 'par' }>).c);
  // Document order: paragraph (k3, then k1 in its footnote), the table's cells, then its caption (k2).
  assert.equal(found, ['[1]', '[2]', '[1]', '[3]', '[3]']);
  const bib = blocks(out, 1)[0] as Extract<Block, { t: 'bibliography' }>;
  assert.is(bib.title, 'Works');
  assert.equal(bib.entries.map((e) => plainText(e).slice(0, 14)), ['[1] A. Author3', '[2] A. Author1', '[3] A. Author2']);
  assert.is(blocks(out, 1).length, 2, 'no second bibliography is appended');
});

test('German locale: CSL terms, bibliography and list titles, caption labels', async () => {
  const { cites, bibliography } = await cite('apa', 'de-DE');
  assert.equal(cites, ['(Smith, 2020, S. 12)', '(Jones, 2019)', '(Jones, 2019; Smith, 2020)', '(Smith, 2020, Kapitel 3)']);
  assert.is(bibliography.title, 'Literatur');
  const out = await resolve(
    flow([{ type: 'toc' }, { type: 'listOfFigures' }, { type: 'listOfTables' }, { type: 'h1', text: 'Einleitung' }, { type: 'table', caption: 'Werte', rows: [['a']] }, { type: 'code', code: 'x', caption: 'Code' }, { type: 'math', latex: 'x', caption: 'Formel' }], { defaults: { locale: 'de' } }),
  );
  const [toc, lof, lot, , table, code, math] = blocks(out) as any[];
  assert.is(toc.title, 'Inhaltsverzeichnis');
  assert.is(lof.title, 'Abbildungsverzeichnis');
  assert.is(lot.title, 'Tabellenverzeichnis');
  assert.equal([table.caption.label, code.caption.label, math.caption.label], ['Tabelle', 'Listing', 'Gleichung']);
  assert.equal(lot.entries, [{ text: 'Tabelle 1: Werte', id: table.id }]);
  assert.is(out.locale, 'de');
});

test('a reused citeproc engine forgets the previous document’s items', async () => {
  const first = await resolve(flow([{ type: 'text', text: '@[smith2020]' }], { citations: [SMITH] }));
  const second = await resolve(flow([{ type: 'text', text: '@[smith2020]' }], { citations: [{ ...SMITH, title: 'A different book', author: [{ family: 'Other', given: 'O' }] }] }));
  assert.match(plainText((blocks(first).at(-1) as any).entries[0]), 'On documents');
  assert.is(textOf(blocks(second)[0]), '(Other, 2020)');
  assert.match(plainText((blocks(second).at(-1) as any).entries[0]), 'A different book');
});

// ---------------------------------------------------------------- text

test('variables, abbreviations, broken references and unknown citation keys print as the PDF prints them', async () => {
  const out = await resolve({
    document: { type: 'docx', title: 'Report for {{client}}', author: '${author}', subject: 'S {{missing}}', keywords: ['{{client}}', 'plain'] },
    sections: [
      {
        type: 'flow',
        id: 'start',
        content: [
          { type: 'h1', text: 'Hello {{client}}', id: 'top' },
          { type: 'text', text: 'Use ~API~ and ~API~ and ~XYZ~; {{count}} items, ${client}, {{missing}}, {{tags}}.' },
          { type: 'text', text: 'Go [up](#top), [to start](#start), [nowhere](#nope) and [out](https://example.com); cite @[ghost] and @[smith2020, p. 2; ghost2].' },
          { type: 'variableRef', name: 'client' },
          { type: 'variableRef', name: 'tags' },
          { type: 'variableRef', name: 'rows' },
          { type: 'table', rowsFrom: 'rows', caption: 'From {{client}}' },
        ],
      },
    ],
    variables: { client: 'ACME', author: 'Ann', count: 3, tags: { type: 'list', items: ['x', 'y'], ordered: true }, rows: { type: 'table', columns: ['name', 'qty'], rows: [{ name: 'Pen', qty: 2 }, { name: 'Ink' }] } },
    abbreviations: { API: 'Application Programming Interface' },
    citations: [SMITH],
    defaults: { header: { text: '{{client}} – page {{page}} of ${pages}', align: 'right', skipFirstPage: true } },
  });
  assert.equal(out.meta, { title: 'Report for ACME', author: 'Ann', subject: 'S {{missing}}', keywords: ['ACME', 'plain'], description: null, created: OPTIONS.createdAt });
  assert.equal(out.header, { parts: [{ t: 'text', v: 'ACME – page ' }, { t: 'page' }, { t: 'text', v: ' of ' }, { t: 'pages' }], align: 'right', skipFirstPage: true });
  assert.is(out.footer, null);
  const [h1, p1, p2, v1, v2, v3, t] = blocks(out) as any[];
  assert.is(textOf(h1), 'Hello ACME');
  assert.is(h1.id, 'top');
  assert.is(textOf(p1), 'Use Application Programming Interface (API) and API and XYZ; 3 items, ACME, {{missing}}, x, y.');
  assert.is(textOf(p2), 'Go up, to start, nowhere and out; cite [ghost] and [ghost2](Smith, 2020, p. 2).');
  const kinds = p2.c.filter((n: OInline) => n.t !== 'text').map((n: OInline) => (n.t === 'ref' ? `ref:${n.id}` : n.t === 'link' ? `link:${n.url}` : n.t));
  assert.equal(kinds, ['ref:top', 'ref:start', 'link:https://example.com', 'cite']);
  assert.equal([v1.t, textOf(v1)], ['par', 'ACME']);
  assert.equal([v2.t, v2.ordered, v2.items.map((i: any) => plainText(i.c))], ['list', true, ['x', 'y']]);
  for (const table of [v3, t]) {
    assert.is(table.t, 'table');
    assert.is(table.header, 1);
    assert.equal(table.rows.map((r: any[]) => r.map((c) => plainText(c.c))), [['name', 'qty'], ['Pen', '2'], ['Ink', '']]);
  }
  assert.is(plainText(t.caption.c), 'From ACME');
});

test('styles, page geometry and sections mirror the PDF defaults', async () => {
  const out = await resolve({
    document: { type: 'docx', size: 'A5', orientation: 'landscape', marginTop: 1 },
    sections: [
      { type: 'page', align: 'center', startY: 3, id: 'cover', content: [{ type: 'h2', text: 'Cover', align: 'center' }] },
      { type: 'flow', newPage: false, columns: { count: 2, space: 0.8, separate: true }, content: [{ type: 'text', text: 'x', style: { bold: true, fontFamily: 'serif', fontSize: 12 } }, { type: 'spacer', height: 1.5 }, { type: 'divider' }, { type: 'pageBreak' }, { type: 'quote', text: 'Q', attribution: 'A', align: 'right' }] },
      { type: 'flow', columns: { count: 1 }, content: [] },
    ],
    defaults: { fonts: { family: 'Noto Serif', size: 11, color: '#222222' }, headings: { h2: { color: '#FF0000', size: 15, weight: 'normal' } }, paragraph: { spacingBefore: 10, spacingAfter: 4, lineHeight: 1.5 }, table: { stripe: true } },
  });
  assert.equal(out.page, { widthCm: 21, heightCm: 14.8, landscape: true, margins: { topCm: 1, rightCm: (2.5 / 21) * 14.8, bottomCm: (2.5 / 21) * 14.8, leftCm: (2.5 / 21) * 14.8 } });
  assert.is(out.locale, 'en-US');
  assert.equal([out.styles.bodyFont, out.styles.monoFont, out.styles.fontSize, out.styles.lineHeight, out.styles.spaceBefore, out.styles.spaceAfter], ['Noto Serif', 'JetBrains Mono', 11, 1.5, 0, 10]);
  assert.equal(out.styles.colors, { primary: '#1F3A5F', text: '#222222', muted: '#5F6B7A', accent: '#2E86AB' });
  assert.equal(out.styles.headings[0], { size: 22, bold: true, color: '#1F3A5F', spaceBefore: 18, spaceAfter: 10 });
  assert.equal(out.styles.headings[1], { size: 15, bold: false, color: '#FF0000', spaceBefore: 16, spaceAfter: 8 });
  assert.equal(out.styles.table, { headerBackground: '#EEF1F5', headerColor: null, borderColor: '#C5CCD6', stripe: true, stripeColor: '#F6F8FA' });
  const [cover, body, last] = out.sections;
  assert.equal({ ...cover!, content: [] }, { kind: 'page', id: 'cover', align: 'center', startY: 3, content: [] });
  assert.equal({ ...body!, content: [] }, { kind: 'flow', id: null, newPage: false, columns: { count: 2, spaceCm: 0.8, separate: true }, content: [] });
  assert.is((last as any).columns, null, 'one column is no columns');
  assert.equal(body!.content.map((b) => b.t), ['par', 'spacer', 'divider', 'pagebreak', 'quote']);
  assert.equal((body!.content[0] as any).style, { bold: true, fontFamily: 'Noto Serif', fontSize: 12 });
  assert.is((body!.content[1] as any).heightCm, 1.5);
  assert.equal([(body!.content[4] as any).align, plainText((body!.content[4] as any).attribution)], ['right', 'A']);
});

test('headings get bookmark ids that never collide; toc, lof and lot list them with their numbers', async () => {
  const out = await resolve(
    flow([
      { type: 'toc', depth: 2 },
      { type: 'listOfFigures', title: 'Pictures' },
      { type: 'listOfTables' },
      { type: 'h1', text: 'One' },
      { type: 'h2', text: 'Two *b* ^[note]', id: '_h1' },
      { type: 'h3', text: 'Three' },
      { type: 'table', caption: 'First', rows: [['a']] },
      { type: 'chart', chartType: 'pie', caption: 'Pie', data: { labels: ['a', 'b'], series: [{ name: 's', values: [1, 2] }] } },
      { type: 'table', rows: [['uncaptioned']] },
      { type: 'qrCode', value: 'x', caption: 'QR' },
      { type: 'table', caption: 'Second', id: 'tab-2', rows: [['b']] },
      { type: 'code', code: 'x', caption: 'L' },
      { type: 'code', code: 'y', caption: 'M', id: 'lst' },
    ]),
  );
  const b = blocks(out) as any[];
  assert.equal(b[0], { t: 'toc', title: 'Contents', depth: 2, entries: [{ level: 1, text: 'One', id: '_h2' }, { level: 2, text: 'Two b ', id: '_h1' }] });
  assert.equal(b[1], { t: 'lof', title: 'Pictures', entries: [{ text: 'Figure 1: Pie', id: '_fig1' }, { text: 'Figure 2: QR', id: '_fig2' }] });
  assert.equal(b[2], { t: 'lot', title: 'List of Tables', entries: [{ text: 'Table 1: First', id: '_tab1' }, { text: 'Table 2: Second', id: 'tab-2' }] });
  assert.is(b[5].id, '_h3');
  assert.equal([b[8].caption, b[8].id], [null, null]);
  assert.equal([b[11].caption.label, b[11].caption.number, b[11].id, b[12].caption.number, b[12].id], ['Listing', 1, null, 2, 'lst']);
});

test('the bibliography title is a toc entry with its own bookmark, wherever the bibliography stands', async () => {
  const explicit = blocks(await resolve(flow([{ type: 'toc' }, { type: 'h1', text: 'Intro' }, { type: 'text', text: 'See @[smith2020].' }, { type: 'bibliography', title: 'Works' }, { type: 'h1', text: 'Appendix' }], { citations: [SMITH] }))) as any[];
  assert.equal(explicit[0].entries.map((e: { text: string }) => e.text), ['Intro', 'Works', 'Appendix']);
  assert.is(explicit[0].entries[1].id, explicit[3].id);
  const appended = blocks(await resolve(flow([{ type: 'toc' }, { type: 'h1', text: '_bib1' , id: '_bib1' }, { type: 'text', text: '@[smith2020]' }], { citations: [SMITH] }))) as any[];
  const bib = appended.at(-1);
  assert.equal([bib.t, bib.title], ['bibliography', 'References']);
  assert.equal(appended[0].entries.at(-1), { level: 1, text: 'References', id: bib.id });
  assert.is.not(bib.id, '_bib1', 'a generated id never takes a document id');
});

test('table columns become fractions of the available width', async () => {
  const out = await resolve(
    flow([
      { type: 'table', columns: [{ width: '3fr' }, { width: '1fr', align: 'right' }], rows: [['a', 'b']] },
      { type: 'table', columns: [{ width: 4 }, { width: 4 }], rows: [['a', 'b']], align: 'right' },
      { type: 'table', columns: [{ width: '25%' }, { width: 'auto' }, { width: '1fr' }], rows: [['a', 'b', 'c']] },
      { type: 'table', rows: [['a', { text: 'b', colspan: 2 }], { cells: ['h', 'i', 'j'], header: true }], headerRows: 0 },
      { type: 'table', columns: [{ width: 40 }, { width: 40 }], rows: [['a', 'b']] },
    ]),
  );
  const [fr, cm, mixed, auto, wide] = blocks(out) as any[];
  assert.equal(fr.widths, [0.75, 0.25]);
  assert.equal(fr.aligns, [null, 'right']);
  assert.equal(cm.widths, [0.25, 0.25]);
  assert.is(cm.align, 'right');
  assert.equal(mixed.widths, [0.25, 0.375, 0.375]);
  assert.equal(auto.widths, [null, null, null]);
  assert.is(auto.header, 1, 'rows marked header count as header rows');
  assert.equal(wide.widths, [0.5, 0.5]);
});

// ---------------------------------------------------------------- pictures

test('images keep their bytes or become PNG, sized from the element and fitted to the text width or column', async () => {
  const png = raster(400, 200).toBuffer('image/png');
  const jpeg = raster(400, 200).toBuffer('image/jpeg', 90);
  const gif = raster(40, 20).toBuffer('image/gif');
  const webp = raster(100, 50).toBuffer('image/webp', 90);
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#e4572e"/></svg>');
  const images = new Map<string, LoadedImage>([
    ['/temp-image/png', { bytes: png, mimeType: 'image/png' }],
    ['/temp-image/jpeg', { bytes: jpeg, mimeType: 'image/jpeg' }],
    ['/temp-image/gif', { bytes: gif, mimeType: 'image/gif' }],
    ['/temp-image/webp', { bytes: webp, mimeType: 'image/webp' }],
    ['/temp-image/svg', { bytes: svg, mimeType: 'image/svg+xml' }],
    ['/temp-image/tall', { bytes: raster(100, 1000).toBuffer('image/png'), mimeType: 'image/png' }],
  ]);
  const img = (src: string, extra: Json = {}) => ({ type: 'image', src: `/temp-image/${src}`, alt: `alt ${src}`, ...extra });
  const out = await resolve(
    {
      document: { type: 'docx' },
      sections: [
        { type: 'flow', content: [img('png'), img('png', { width: '50%' }), img('png', { width: 30 }), img('png', { height: 2 }), img('jpeg', { width: 5, align: 'right' }), img('gif'), img('webp'), img('svg'), img('png', { width: 4, height: 4 }), img('png', { alt: '', caption: 'The *caption*' }), { type: 'variableRef', name: 'logo' }, img('tall')] },
        { type: 'flow', columns: { count: 2, space: 1 }, content: [img('png', { width: 30 })] },
      ],
      variables: { logo: { type: 'image', src: '/temp-image/png', alt: 'Logo', width: 3 } },
    },
    images,
  );
  const pics = blocks(out).map((b) => (b as Extract<Block, { t: 'image' }>).picture);
  const size = (p: Picture) => [p.widthCm, p.heightCm];
  const natural = (400 / 96) * 2.54;
  approx(pics[0]!.widthCm, natural, 'natural width at 96 dpi');
  approx(pics[0]!.heightCm, natural / 2, 'natural height');
  assert.equal(size(pics[1]!), [8, 4], '50% of the 16 cm text width');
  assert.equal(size(pics[2]!), [16, 8], '30 cm scaled down to the text width');
  assert.equal(size(pics[3]!), [4, 2], 'width from the height and the aspect ratio');
  assert.equal([pics[4]!.mimeType, Buffer.compare(Buffer.from(pics[4]!.bytes), jpeg), pics[4]!.pixelWidth, pics[4]!.pixelHeight, ...size(pics[4]!)], ['image/jpeg', 0, 400, 200, 5, 2.5]);
  assert.is((blocks(out)[4] as any).align, 'right');
  assert.equal([pics[5]!.mimeType, pics[5]!.pixelWidth], ['image/gif', 40]);
  assert.is(pics[6]!.mimeType, 'image/png', 'WebP becomes PNG');
  assert.equal(pngSize(pics[6]!.bytes), { width: 100, height: 50 });
  assert.equal([pics[6]!.pixelWidth, pics[6]!.pixelHeight], [100, 50]);
  assert.is(pics[7]!.mimeType, 'image/png', 'SVG becomes PNG');
  approx(pics[7]!.widthCm, (200 / 96) * 2.54, 'SVG natural width');
  assert.equal(pngSize(pics[7]!.bytes), { width: 417, height: 208 }, 'rasterised at 200 dpi for its size');
  assert.equal([pics[7]!.pixelWidth, pics[7]!.pixelHeight], [417, 208]);
  const drawn = await loadImage(Buffer.from(pics[7]!.bytes));
  const probe = createCanvas(417, 208).getContext('2d');
  probe.drawImage(drawn, 0, 0);
  assert.equal([...probe.getImageData(200, 100, 1, 1).data], [0xe4, 0x57, 0x2e, 255], 'the SVG is drawn');
  assert.equal(size(pics[8]!), [4, 2], 'width and height given: the largest picture inside that box');
  assert.equal([pics[0]!.alt, pics[9]!.alt], ['alt png', 'The caption'], 'a captioned image without alt text is described by its caption');
  const captioned = blocks(out)[9] as Extract<Block, { t: 'image' }>;
  assert.equal([captioned.caption!.label, captioned.caption!.number, captioned.align], ['Figure', 1, 'center']);
  assert.equal([pics[10]!.alt, ...size(pics[10]!), (blocks(out)[10] as any).align], ['Logo', 3, 1.5, 'left']);
  approx(pics[11]!.heightCm, 29.7 - 5, 'a tall picture is scaled down to the text height');
  approx(pics[11]!.widthCm, (29.7 - 5) / 10, 'keeping its aspect ratio');
  assert.equal(size(blocks(out, 1)[0]!.t === 'image' ? (blocks(out, 1)[0] as any).picture : null), [7.5, 3.75], 'fitted to one of two columns');
});

test('charts, QR codes and barcodes are rasterised from the PDF’s SVG at 200 dpi for their size', async () => {
  const chart = { type: 'chart', chartType: 'bar', title: 'Revenue', data: { labels: ['Q1', 'Q2'], series: [{ name: '2025', values: [1, 2] }] } };
  const out = await resolve(flow([chart, { ...chart, width: '50%', align: 'left', caption: 'Half' }, { type: 'qrCode', value: 'https://quire.example.com/x', size: 2.5 }, { type: 'barcode', value: '400638133393', format: 'ean13', height: 1 }]));
  const [full, half, qr, bar] = blocks(out) as Array<Extract<Block, { t: 'image' }>>;
  assert.equal([full!.picture.widthCm, full!.align], [16, 'center']);
  approx(full!.picture.heightCm, 16 * 0.56, 'chart height: the PDF’s aspect ratio', 1e-9);
  assert.equal(pngSize(full!.picture.bytes), { width: 1260, height: 706 });
  assert.equal([full!.picture.pixelWidth, full!.picture.pixelHeight], [1260, 706]);
  assert.match(full!.picture.alt, /^Bar chart/);
  assert.match(full!.picture.alt, 'Revenue');
  assert.equal(pngSize(half!.picture.bytes), { width: 630, height: 353 });
  assert.equal([half!.align, half!.caption!.number, half!.id], ['left', 1, '_fig1']);
  // The QR code: whole pixels per module, and it decodes (jsQR) to the value.
  assert.equal([qr!.picture.widthCm, qr!.picture.heightCm, qr!.align, qr!.picture.alt], [2.5, 2.5, 'left', 'QR code: https://quire.example.com/x']);
  const q = pngSize(qr!.picture.bytes);
  assert.is(q.width, q.height);
  assert.ok(Math.abs(q.width - (2.5 / 2.54) * 200) < 40, `about 200 dpi (${q.width} px)`);
  const qrImage = await loadImage(Buffer.from(qr!.picture.bytes));
  const g = createCanvas(q.width, q.height).getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, q.width, q.height);
  g.drawImage(qrImage, 0, 0);
  assert.is(jsQR.default(g.getImageData(0, 0, q.width, q.height).data, q.width, q.height)?.data, 'https://quire.example.com/x');
  const b = pngSize(bar!.picture.bytes);
  assert.equal([b.width, b.height], [bar!.picture.pixelWidth, bar!.picture.pixelHeight]);
  approx(b.width / b.height, bar!.picture.widthCm / bar!.picture.heightCm, 'barcode aspect ratio', 0.02);
  assert.ok(bar!.picture.heightCm > 1, 'bars of 1 cm plus the text');
  assert.is(bar!.picture.alt, 'Barcode (ean13): 400638133393');
});

// ---------------------------------------------------------------- code and math

test('code is highlighted with the GitHub light colors; unknown languages stay plain', async () => {
  const out = await resolve(flow([
    { type: 'code', language: 'python', code: 'def hello():\n    print("hi {{x}}")  # done\n', lineNumbers: true, caption: 'Py', id: 'lst-py' },
    { type: 'code', language: 'no-such-language', code: 'a <b> & c\n\nd' },
    { type: 'code', language: 'C#', code: 'public class A {}' },
  ]));
  const [py, plain, cs] = blocks(out) as Array<Extract<Block, { t: 'code' }>>;
  assert.equal([py!.lang, py!.lineNumbers, py!.id, py!.caption!.label], ['python', true, 'lst-py', 'Listing']);
  assert.is(py!.lines.length, 3);
  assert.equal(py!.lines[0]![0], { v: 'def', color: '#d73a49', bold: false, italic: false });
  assert.ok(py!.lines[0]!.some((t) => t.v === 'hello' && t.color === '#6f42c1'), 'the function name');
  assert.ok(py!.lines[1]!.some((t) => t.v === '"hi {{x}}"' && t.color === '#032f62'), 'the string, variables not substituted');
  assert.ok(py!.lines[1]!.some((t) => t.v === '# done' && t.color === '#6a737d'), 'the comment');
  assert.is(py!.lines[1]!.map((t) => t.v).join(''), '    print("hi {{x}}")  # done');
  assert.equal(py!.lines[2], []);
  assert.equal(plain!.lines, [[{ v: 'a <b> & c', color: null, bold: false, italic: false }], [], [{ v: 'd', color: null, bold: false, italic: false }]]);
  assert.ok(cs!.lines[0]!.some((t) => t.v === 'public' && t.color === '#d73a49'), 'C# by its alias');
});

const FORMULAS: Array<{ latex: string; omml: RegExp[] }> = [
  { latex: '\\frac{a+b}{2}', omml: [/<m:f>/, /<m:num>/, /<m:den>/] },
  { latex: '\\sum_{i=1}^{n} i^2', omml: [/<m:nary>/, /<m:chr m:val="∑"\/>/, /<m:sub>.*i.*=.*1.*<\/m:sub>/, /<m:sup>.*n.*<\/m:sup>/] },
  { latex: '\\sqrt{x^2+1} + \\sqrt[3]{y}', omml: [/<m:rad>/, /<m:deg>.*3.*<\/m:deg>/, /<m:sSup>/] },
  { latex: '\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', omml: [/<m:m>/, /<m:mr>/] },
  { latex: '\\alpha + \\beta = \\Gamma', omml: [/α/, /β/, /Γ/] },
  { latex: '\\int_0^1 x^2 \\, dx = \\frac{1}{3}', omml: [/<m:nary>/, /<m:chr m:val="∫"\/>/, /<m:f>/] },
];

test('LaTeX becomes a standalone MathML element that mathml2omml converts to well-formed OMML', async () => {
  const out = await resolve(flow([...FORMULAS.map((f, i) => ({ type: 'math', latex: f.latex, ...(i === 0 ? { caption: 'Half', id: 'eq-half' } : {}) })), { type: 'math', latex: 'x', display: false }, { type: 'text', text: 'inline $e^{i\\pi}$ here' }]));
  const maths = blocks(out).slice(0, FORMULAS.length) as Array<Extract<Block, { t: 'math' }>>;
  maths.forEach((m, i) => {
    assert.match(m.mathml, /^<math xmlns="http:\/\/www\.w3\.org\/1998\/Math\/MathML" display="block"[^>]*>.*<\/math>$/s);
    assert.is(XMLValidator.validate(m.mathml), true, `MathML of ${FORMULAS[i]!.latex} is XML`);
    const omml = mml2omml(m.mathml);
    assert.is(XMLValidator.validate(omml), true, `OMML of ${FORMULAS[i]!.latex} is XML`);
    assert.match(omml, /^<m:oMath[\s>]/);
    for (const re of FORMULAS[i]!.omml) assert.match(omml, re, `${FORMULAS[i]!.latex}: ${re}`);
  });
  assert.equal([maths[0]!.caption!.label, maths[0]!.caption!.number, maths[0]!.id, maths[0]!.display, maths[0]!.latex], ['Equation', 1, 'eq-half', true, '\\frac{a+b}{2}']);
  assert.equal(maths.map((m) => m.number), [1, undefined, undefined, undefined, undefined, undefined], 'only display equations with an id are numbered');
  const inlineBlock = blocks(out)[FORMULAS.length] as Extract<Block, { t: 'math' }>;
  assert.is(inlineBlock.display, false);
  assert.not.match(inlineBlock.mathml, /display="block"/);
  const par = blocks(out)[FORMULAS.length + 1] as Extract<Block, { t: 'par' }>;
  const math = par.c.find((n) => n.t === 'math') as Extract<OInline, { t: 'math' }>;
  assert.is(math.latex, 'e^{i\\pi}');
  assert.match(mml2omml(math.mathml), /<m:sSup>/);
  assert.equal(out.warnings, []);
});

test('display equations with an id are numbered in order, as the PDF numbers them', async () => {
  const out = await resolve(flow([{ type: 'math', latex: 'a', id: 'e1' }, { type: 'math', latex: 'b' }, { type: 'math', latex: 'c', id: 'e-inline', display: false }, { type: 'math', latex: 'd', id: 'e2', caption: 'D' }]));
  assert.equal(blocks(out).map((b) => (b as Extract<Block, { t: 'math' }>).number), [1, undefined, undefined, 2]);
  assert.equal((blocks(out)[3] as Extract<Block, { t: 'math' }>).caption?.number, 1);
});

test('inline math Temml cannot read is shown as its source and warned about', async () => {
  const out = await resolve(flow([{ type: 'text', text: 'bad $\\frac{1}{$ and $\\notacommand x$' }]));
  const par = blocks(out)[0] as Extract<Block, { t: 'par' }>;
  assert.equal(par.c.filter((n) => n.t === 'code'), [{ t: 'code', v: '\\frac{1}{' }, { t: 'code', v: '\\notacommand x' }]);
  assert.equal(out.warnings.map((w) => [w.path, w.code]), [['config.sections[0].content[0].text', 'MATH_NOT_CONVERTED'], ['config.sections[0].content[0].text', 'MATH_NOT_CONVERTED']]);
});

// ---------------------------------------------------------------- hostile text and errors

const escapeMarkup = (s: string) => s.replace(/[\\`*$[\]~@^{}_]/g, (c) => `\\${c}`);
const mark = (code: string, value: string) => `${code}start ${value} end${code}`;

/** Every text a block shows, captions and footnotes included, one string per node with text. */
function texts(out: OfficeDocument): string[] {
  const found: string[] = [];
  const inl = (nodes: OInline[]) => {
    found.push(plainText(nodes));
    for (const n of nodes) if (n.t === 'footnote') inl(n.c);
  };
  const block = (b: Block) => {
    if ('c' in b) inl(b.c);
    if ('caption' in b && b.caption) inl(b.caption.c);
    if ('title' in b) found.push(b.title);
    if (b.t === 'quote' && b.attribution) inl(b.attribution);
    if (b.t === 'list') for (const it of b.items) (inl(it.c), it.items?.forEach((sub) => inl(sub.c)));
    if (b.t === 'table') for (const r of b.rows) for (const c of r) inl(c.c);
    if (b.t === 'code') for (const l of b.lines) found.push(l.map((t) => t.v).join(''));
    if (b.t === 'image') found.push(b.picture.alt);
  };
  for (const s of out.sections) s.content.forEach(block);
  for (const f of [out.header, out.footer]) if (f) found.push(f.parts.map((p) => (p.t === 'text' ? p.v : '#')).join(''));
  return found;
}

test('hostile strings stay plain text in every field', async () => {
  for (const s of HOSTILE_STRINGS) {
    const v = (code: string) => mark(code, '{{v}}');
    const out = await resolve({
      document: { type: 'docx', title: s, author: s, subject: s, keywords: [s] },
      sections: [
        {
          type: 'flow',
          content: [
            { type: 'toc', title: `TOCTITLE ${s}` },
            { type: 'h1', text: v('HD') },
            { type: 'text', text: `${v('PA')}^[${v('NO')}] ~AB~` },
            { type: 'text', text: mark('DI', escapeMarkup(s)) },
            { type: 'list', items: [v('IT'), { text: 'x', items: [v('NE')] }] },
            { type: 'table', caption: v('TC'), rows: [[v('CE')]] },
            { type: 'table', rowsFrom: 'rows' },
            { type: 'variableRef', name: 'items' },
            { type: 'chart', chartType: 'bar', width: 2, title: `CHARTTITLE ${s}`, caption: v('CC'), data: { labels: ['a'], series: [{ name: 's', values: [1] }] } },
            { type: 'code', code: `CO ${s} {{v}}`, caption: v('KC') },
            { type: 'math', latex: 'x', caption: v('MC') },
            { type: 'quote', text: v('QT'), attribution: v('QA') },
            { type: 'text', text: `[${v('LL')}](https://example.com)` },
            { type: 'qrCode', value: s, caption: v('RC') },
            { type: 'bibliography', title: `BIBTITLE ${s}` },
          ],
        },
      ],
      variables: { v: s, rows: { type: 'table', columns: ['c'], rows: [{ c: mark('RF', s) }] }, items: { type: 'list', items: [mark('LV', s)] } },
      abbreviations: { AB: mark('AB', s) },
      defaults: { header: { text: v('HR') }, footer: { text: `${v('FR')} {{page}}` } },
    });
    const found = texts(out);
    const has = (expected: string, where: string) => assert.ok(found.some((t) => t.includes(expected)), `${JSON.stringify(s)} in ${where}`);
    for (const code of ['HD', 'PA', 'NO', 'DI', 'IT', 'NE', 'TC', 'CE', 'RF', 'LV', 'CC', 'KC', 'MC', 'QT', 'QA', 'LL', 'RC', 'HR', 'FR']) has(mark(code, s), code);
    has(`${mark('AB', s)} (AB)`, 'abbreviation');
    has(`CO ${s} {{v}}`, 'code');
    for (const prefix of ['TOCTITLE', 'BIBTITLE']) has(`${prefix} ${s}`, prefix);
    has(`QR code: ${s}`, 'QR alt text');
    assert.match(found.join('\n'), 'CHARTTITLE', 'the chart title is in its alt text');
    assert.equal([out.meta.title, out.meta.author, out.meta.subject, out.meta.keywords], [s, s, s, [s]]);
  }
});

test('hostile strings in CSL items print as text (citeproc only curls straight quotes and moves punctuation into them)', async () => {
  const citations = HOSTILE_STRINGS.map((s, i) => ({ id: `h${i}`, type: 'book', title: s, author: [{ family: s, given: 'A' }], issued: { 'date-parts': [[2020]] } }));
  const out = await resolve(flow([{ type: 'text', text: HOSTILE_STRINGS.map((_, i) => `@[h${i}]`).join(' ') }], { citations, defaults: { citationStyle: 'apa' } }));
  const entries = (blocks(out).at(-1) as Extract<Block, { t: 'bibliography' }>).entries.map(plainText);
  // US English puts a following period or comma inside the closing quote (CSL's punctuation-in-quote).
  const quotes = (t: string) => t.replace(/[“”„]/g, '"').replace(/[‘’]/g, "'").replace(/[.,]"/g, '"');
  for (const s of HOSTILE_STRINGS) assert.ok(entries.some((e) => quotes(e).includes(s)), `${JSON.stringify(s)} in the bibliography`);
});

test('problems are collected with their paths and thrown together', async () => {
  const doc = {
    document: { type: 'docx' },
    sections: [
      { type: 'flow', content: [{ type: 'text', text: 'fine' }, { type: 'blockRef', blockId: 'b1', mode: 'linked' }, { type: 'image', src: '/temp-image/none', alt: '' }, { type: 'math', latex: '\\frac{1}{' }] },
      { type: 'flow', content: [{ type: 'variableRef', name: 'nope' }, { type: 'bibliography' }, { type: 'bibliography' }, { type: 'table', rowsFrom: 'notTable' }, { type: 'image', src: '/temp-image/pdf', alt: 'x' }, { type: 'image', src: '/temp-image/broken', alt: 'x' }] },
    ],
    variables: { notTable: 'text', pic: { type: 'image', src: '/temp-image/gone' } },
  };
  const images = new Map<string, LoadedImage>([
    ['/temp-image/pdf', { bytes: Buffer.from('%PDF-1.7'), mimeType: 'application/pdf' }],
    ['/temp-image/broken', { bytes: Buffer.from('not a png at all'), mimeType: 'image/png' }],
  ]);
  const err = await resolve(doc, images).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, RenderInputError);
  const problems = (err as RenderInputError).problems;
  assert.equal(
    problems.map((p) => p.path),
    [
      'config.sections[0].content[1]',
      'config.sections[0].content[2].src',
      'config.sections[0].content[3].latex',
      'config.sections[1].content[0].name',
      'config.sections[1].content[2]',
      'config.sections[1].content[3].rowsFrom',
      'config.sections[1].content[4].src',
      'config.sections[1].content[5].src',
    ],
  );
  assert.match(problems[0]!.message, 'reusable block "b1" was not inserted');
  assert.match(problems[1]!.message, 'image /temp-image/none was not loaded');
  assert.match(problems[2]!.message, /^LaTeX could not be converted: .*expected '\}'/);
  assert.match(problems[3]!.message, '"nope" is not defined in variables');
  assert.match(problems[4]!.message, 'a document can hold one bibliography');
  assert.match(problems[5]!.message, '"notTable" is not a table variable');
  assert.match(problems[6]!.message, 'images must be PNG, JPEG, GIF, WebP or SVG');
  assert.match(problems[7]!.message, 'cannot be read');
  assert.match((err as Error).message, /^The document cannot be rendered: config\.sections\[0\]\.content\[1\]: /);
  assert.is((err as RenderInputError).code, 'INVALID_DOCUMENT');
});

test.run();
