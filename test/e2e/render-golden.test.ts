// Golden renders: one small document per element family goes through POST /render; its first page,
// rasterised by poppler, must match a stored PNG, and poppler (text) and qpdf (outline, links) read it back.
// Golden images: test/helpers/golden.ts.
// Longer than 400 lines: one case per element family, each a small document and its reading; a table of cases would hide which family failed.
// test-stores: once (the renderer's output pixels; the store keeps only its jobs, as render.test's).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { startServer, OWNER_KEY, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { compareWithGolden, firstPagePng, greyPixels, run } from '../helpers/golden.js';

type Json = Record<string, any>;

let server: RunningServer;
let api: ApiClient;
let work: string;
let png: string;
let photo: string;

test.before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'quire-golden-'));
  server = await startServer();
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  png = await uploadImage(picture(240, 160, '#1f3a5f', '#f6b93b'), 'picture.png');
  photo = await uploadImage(picture(120, 120, '#7e5ba6', '#ffffff'), 'avatar.png');
});

test.after(async () => {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------- the public surface

function picture(width: number, height: number, back: string, front: string): Buffer {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = back;
  g.fillRect(0, 0, width, height);
  g.fillStyle = front;
  g.beginPath();
  g.arc(width / 2, height / 2, Math.min(width, height) / 3, 0, Math.PI * 2);
  g.fill();
  g.fillRect(8, 8, width / 4, height / 6);
  return canvas.toBuffer('image/png');
}

async function uploadImage(bytes: Buffer, filename: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  const res = await fetch(`${api.baseUrl}/api/v1/dev/images/upload`, { method: 'POST', headers: { 'X-API-Key': OWNER_KEY }, body: form });
  const body = (await res.json()) as Json;
  assert.is(res.status, 201, JSON.stringify(body));
  return body.path as string;
}

/** Renders strictly (a broken reference in a golden document is a mistake in the test) and downloads the PDF. */
async function render(config: Json): Promise<{ job: Json; pdf: Buffer }> {
  const created = await api.post('/api/v1/dev/render?strict=true', { config, pdfProfile: 'standard' });
  assert.is(created.status, 202, created.bytes.toString());
  const deadline = Date.now() + 60_000;
  let job: Json;
  for (;;) {
    job = (await api.get(`/api/v1/dev/render/${created.body.jobId}`)).body;
    if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
    if (Date.now() > deadline) throw new Error(`render ${job.jobId} still ${job.status} after 60 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  assert.equal(job.warnings, []);
  const download = await api.download(job.downloadUrl);
  assert.is(download.status, 200);
  return { job, pdf: download.bytes };
}

// ---------------------------------------------------------------- independent readers

/** pdftotext of one page (or all), whitespace collapsed. */
async function pdfText(file: string, page?: number, layout = false): Promise<string> {
  const range = page ? ['-f', String(page), '-l', String(page)] : [];
  return (await run('pdftotext', ['-enc', 'UTF-8', ...(layout ? ['-layout'] : []), ...range, file, '-'])).toString('utf8').replace(/\s+/g, ' ');
}

async function pageCount(file: string): Promise<number> {
  return Number(/^Pages:\s+(\d+)/m.exec((await run('pdfinfo', [file])).toString())![1]);
}

interface Destination {
  page: number;
  y: number | null;
}
interface PdfNavigation {
  outline: Array<{ title: string; depth: number } & Destination>;
  links: Array<{ uri: string | null; dest: Destination | null }>;
}

/** Bookmarks and link annotations as qpdf sees them, destinations resolved to page numbers (named ones too). */
async function navigation(file: string): Promise<PdfNavigation> {
  const json = JSON.parse((await run('qpdf', ['--json', file])).toString('utf8')) as Json;
  const objects = json.qpdf[1] as Record<string, { value?: unknown }>;
  const deref = (v: unknown): any => (typeof v === 'string' && /^\d+ \d+ R$/.test(v) ? objects[`obj:${v}`]?.value : v);
  const str = (v: unknown) => (typeof v === 'string' ? v.replace(/^u:/, '') : '');
  const pageOf = new Map<string, number>((json.pages as Json[]).map((p) => [p.object as string, p.pageposfrom1 as number]));
  const named = new Map<string, unknown>();
  const walkNames = (node: any): void => {
    node = deref(node);
    if (!node) return;
    const pairs = (deref(node['/Names']) ?? []) as unknown[];
    for (let i = 0; i + 1 < pairs.length; i += 2) named.set(str(pairs[i]), pairs[i + 1]);
    for (const kid of (deref(node['/Kids']) ?? []) as unknown[]) walkNames(kid);
  };
  const catalog = deref((objects.trailer?.value as Json | undefined)?.['/Root']);
  walkNames(deref(catalog?.['/Names'])?.['/Dests']);
  const resolve = (d: unknown): Destination | null => {
    let v = deref(d);
    if (typeof v === 'string' && v.startsWith('u:')) v = deref(named.get(str(v)));
    if (v && !Array.isArray(v) && v['/D']) v = deref(v['/D']);
    if (!Array.isArray(v)) return null;
    const page = pageOf.get(v[0] as string);
    return page ? { page, y: v[1] === '/XYZ' && typeof v[3] === 'number' ? v[3] : null } : null;
  };
  const outline: PdfNavigation['outline'] = [];
  const walkOutline = (items: Json[], depth: number) => {
    for (const it of items) {
      const dest = resolve(it.dest);
      outline.push({ title: it.title as string, depth, page: dest?.page ?? 0, y: dest?.y ?? null });
      walkOutline(it.kids ?? [], depth + 1);
    }
  };
  walkOutline(json.outlines ?? [], 1);
  const links: PdfNavigation['links'] = [];
  for (const o of Object.values(objects)) {
    const v = o.value as Json | undefined;
    if (!v || typeof v !== 'object' || v['/Subtype'] !== '/Link') continue;
    const action = deref(v['/A']) as Json | undefined;
    if (action?.['/S'] === '/URI') links.push({ uri: str(action['/URI']), dest: null });
    else links.push({ uri: null, dest: resolve(v['/Dest'] ?? action?.['/D']) });
  }
  return { outline, links };
}

// ---------------------------------------------------------------- the cases

interface GoldenCase {
  name: string;
  title: string;
  config: () => Json;
  pages?: number;
  /** Read with `pdftotext -layout`, which keeps table rows on one line (the default order reads tables by column). */
  layout?: boolean;
  /** Texts pdftotext must find (whitespace collapsed), on page 1 unless `page` says otherwise. */
  texts: Array<string | { text: string; page?: number; absent?: boolean }>;
  /** Bookmark titles in order, with their nesting depth. */
  outline?: Array<[string, number]>;
  /** External URIs the page must link to. */
  uris?: string[];
  /** Extra checks on the navigation structure. */
  check?: (nav: PdfNavigation) => void;
  /** Checks on the rasterised first page, for thin details the golden tolerance would let pass. */
  raster?: (page: { width: number; height: number; grey: Uint8Array }) => void;
}

const doc = (name: string, sections: Json[], extra: Json = {}): Json => ({
  document: { type: 'pdf', filename: `golden-${name}`, title: `Golden ${name}`, author: 'Quire tests', ...(extra.document ?? {}) },
  sections,
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'document')),
});
const flow = (content: Json[], more: Json = {}): Json => ({ type: 'flow', content, ...more });

/** An internal link lands where the bookmark of its target points. */
function linksTo(nav: PdfNavigation, title: string): void {
  const target = nav.outline.find((o) => o.title === title);
  assert.ok(target, `no bookmark "${title}"`);
  const hit = nav.links.find((l) => l.dest && l.dest.page === target!.page && l.dest.y !== null && Math.abs(l.dest.y - target!.y!) < 1);
  assert.ok(hit, `no link annotation with a destination at bookmark "${title}" (page ${target!.page}, y ${target!.y})`);
}

const CITATIONS = [
  { id: 'knuth1984', type: 'article-journal', title: 'Literate programming', author: [{ family: 'Knuth', given: 'Donald E.' }], issued: { 'date-parts': [[1984]] }, 'container-title': 'The Computer Journal', volume: '27', page: '97-111' },
  { id: 'lamport1994', type: 'book', title: 'LaTeX: a document preparation system', author: [{ family: 'Lamport', given: 'Leslie' }], issued: { 'date-parts': [[1994]] }, publisher: 'Addison-Wesley' },
];

const CASES: GoldenCase[] = [
  {
    name: 'headings',
    title: 'h1 to h6 with anchors and alignment make nested bookmarks and linkable targets',
    config: () =>
      doc('headings', [
        flow([
          { type: 'h1', text: 'Heading level one', id: 'h-one' },
          { type: 'text', text: 'Body text under the first heading. Jump to [level five](#h-five).' },
          { type: 'h2', text: 'Heading level two', id: 'h-two' },
          { type: 'h3', text: 'Heading level three' },
          { type: 'h4', text: 'Heading level four' },
          { type: 'h5', text: 'Heading level five', id: 'h-five' },
          { type: 'h6', text: 'Heading level six' },
          { type: 'h2', text: 'A centred heading', align: 'center' },
          { type: 'h3', text: 'A right-aligned heading', align: 'right' },
        ]),
      ]),
    texts: ['Heading level one', 'Heading level two', 'Heading level three', 'Heading level four', 'Heading level five', 'Heading level six', 'A centred heading', 'A right-aligned heading'],
    outline: [
      ['Heading level one', 1],
      ['Heading level two', 2],
      ['Heading level three', 3],
      ['Heading level four', 4],
      ['Heading level five', 5],
      ['Heading level six', 6],
      ['A centred heading', 2],
      ['A right-aligned heading', 3],
    ],
    check: (nav) => linksTo(nav, 'Heading level five'),
  },
  {
    name: 'inline-markup',
    title: 'text draws every inline markup: emphasis, code, links, citations, abbreviations, footnotes, math, variables, escapes, styles',
    config: () =>
      doc(
        'inline-markup',
        [
          flow([
            { type: 'h1', text: 'Inline markup', id: 'inline-top' },
            { type: 'text', text: 'Plain, **bold**, *italic*, ***bold italic***, `inline code`, an [external link](https://example.com/docs) and a [jump to the top](#inline-top).' },
            { type: 'text', text: 'A citation @[knuth1984, p. 12], two at once @[knuth1984; lamport1994], an abbreviation ~PDF~ and ~PDF~ again, a footnote^[The footnote says *more*.] and math $E = mc^2$.' },
            { type: 'text', text: 'Variables: {{customer}} owes ${amount} EUR.\nEscapes: \\*not italic\\*, \\@[not a citation], \\{{not a variable}}.' },
            { type: 'text', text: 'A justified paragraph that is long enough to wrap over more than one line, so that the spaces between its words stretch to fill the measure from the left margin to the right one.', align: 'justify' },
            { type: 'text', text: 'Centred, large, bold, italic, red and serif.', align: 'center', style: { bold: true, italic: true, fontSize: 14, color: '#a01010', fontFamily: 'serif' } },
            { type: 'text', text: 'Right-aligned text.', align: 'right' },
          ]),
        ],
        { variables: { customer: 'ACME Ltd', amount: 1234.5 }, abbreviations: { PDF: 'Portable Document Format' }, citations: CITATIONS, defaults: { citationStyle: 'apa' } },
      ),
    texts: [
      // The inline code box's padding reads as a space.
      'Plain, bold, italic, bold italic, inline code , an external link and a jump to the top.',
      'Portable Document Format (PDF) and PDF again',
      'The footnote says more.',
      'Variables: ACME Ltd owes 1234.5 EUR.',
      'Escapes: *not italic*, @[not a citation], {{not a variable}}.',
      'Centred, large, bold, italic, red and serif.',
      'Right-aligned text.',
      'Knuth',
      'Lamport',
      'References',
    ],
    outline: [
      ['Inline markup', 1],
      ['References', 1],
    ],
    uris: ['https://example.com/docs'],
    check: (nav) => linksTo(nav, 'Inline markup'),
  },
  {
    name: 'lists',
    title: 'lists nest bullets and numbers, and an ordered list starts at its start',
    config: () =>
      doc('lists', [
        flow([
          { type: 'h2', text: 'Bullets' },
          { type: 'list', items: ['First bullet', { text: 'Second bullet with **markup**', items: ['Nested bullet one', { text: 'Nested bullet two', items: ['Third level'] }] }, 'Third bullet'] },
          { type: 'h2', text: 'Numbers from seven' },
          { type: 'list', ordered: true, start: 7, items: ['Seventh step', { text: 'Eighth step', items: ['Sub-step a', 'Sub-step b'] }, 'Ninth step'] },
          { type: 'h2', text: 'Numbers from one' },
          { type: 'list', ordered: true, items: ['Alpha', 'Beta'] },
        ]),
      ]),
    texts: ['First bullet', 'Second bullet with markup', 'Nested bullet one', 'Third level', '7. Seventh step', '8. Eighth step', '9. Ninth step', 'Sub-step b', '1. Alpha', '2. Beta'],
  },
  {
    name: 'tables',
    layout: true,
    title: 'tables draw header rows, widths, alignments, spans, captions, stripes and rows from a variable',
    config: () =>
      doc(
        'tables',
        [
          flow([
            {
              type: 'table',
              id: 'tbl-sales',
              caption: 'Quarterly sales by region',
              headerRows: 1,
              columns: [{ width: 3 }, { width: '2fr', align: 'right' }, { width: '20%', align: 'center' }, { width: 'auto', align: 'right' }],
              rows: [
                ['Region', 'Q1', 'Q2', 'Total'],
                ['North', 10, 12, 22],
                [{ text: 'South', rowspan: 2 }, { text: 'SpanTwoColumns', colspan: 2, align: 'center' }, 15],
                [7, 8, 15],
                [{ text: 'All regions', colspan: 3, align: 'right' }, '**52**'],
              ],
            },
            { type: 'text', text: 'See [the sales table](#tbl-sales).' },
            { type: 'table', rowsFrom: 'stock', caption: 'Stock from a variable' },
            {
              type: 'table',
              align: 'center',
              columns: [{ width: 4 }, { width: 4 }],
              rows: [{ cells: ['Marked header A', 'Marked header B'], header: true }, ['plain a1', 'plain b1'], ['plain a2', 'plain b2'], ['plain a3', 'plain b3']],
            },
          ]),
        ],
        { variables: { stock: { type: 'table', columns: ['item', 'count'], rows: [{ item: 'Pens', count: 40 }, { item: 'Ink', count: 7 }] } }, defaults: { table: { stripe: true, headerBackground: '#d8e0ea' } } },
      ),
    texts: ['Region Q1 Q2 Total', 'SpanTwoColumns', 'All regions', 'Table 1: Quarterly sales by region', 'Table 2: Stock from a variable', 'item count', 'Pens 40', 'Marked header A', 'plain b3'],
  },
  {
    name: 'image',
    title: 'uploaded images draw captioned, sized and aligned, with their alt text',
    config: () =>
      doc('image', [
        flow([
          { type: 'h2', text: 'Images' },
          { type: 'image', src: png, alt: 'Generated picture: a yellow disc on blue', caption: 'A generated picture', id: 'fig-pic', width: 8, align: 'center' },
          { type: 'image', src: photo, alt: '', width: '25%', align: 'right' },
          { type: 'image', src: png, alt: 'Same picture, small, left', height: 2, align: 'left' },
          { type: 'text', text: 'See [the picture](#fig-pic).' },
        ]),
      ]),
    texts: ['Images', 'Figure 1: A generated picture', 'See the picture.'],
  },
  {
    name: 'charts-bar-line-pie',
    title: 'bar, line and pie charts draw as vector figures with titles, axis labels and legends',
    config: () =>
      doc('charts-bar-line-pie', [
        flow([
          { type: 'chart', chartType: 'bar', title: 'Revenue', xLabel: 'Quarter', yLabel: 'EUR m', width: 9, caption: 'Bar chart', data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], series: [{ name: 'North', values: [1.2, 1.5, 1.1, 1.9] }, { name: 'South', values: [0.8, 1.0, 1.4, 1.2] }] } },
          { type: 'chart', chartType: 'line', title: 'Visits', width: 9, caption: 'Line chart', legend: true, data: { labels: ['Jan', 'Feb', 'Mar', 'Apr'], series: [{ name: 'Web', values: [3, 5, 4, 6], color: '#444444' }] } },
          { type: 'chart', chartType: 'pie', title: 'Share', width: 7, caption: 'Pie chart', data: { labels: ['Alpha', 'Beta', 'Gamma'], series: [{ name: 'Share', values: [50, 30, 20] }] } },
        ]),
      ]),
    texts: ['Revenue', 'Quarter', 'North', 'South', 'Figure 1: Bar chart', 'Visits', 'Figure 2: Line chart', 'Share', 'Alpha', 'Figure 3: Pie chart'],
  },
  {
    name: 'charts-area-scatter',
    title: 'area and scatter charts draw, the scatter from x/y points',
    config: () =>
      doc('charts-area-scatter', [
        flow([
          { type: 'chart', chartType: 'area', title: 'Load', xLabel: 'Hour', width: 10, caption: 'Area chart', data: { labels: ['0h', '6h', '12h', '18h'], series: [{ name: 'CPU', values: [1, 3, 5, 2] }, { name: 'IO', values: [2, 1, 2, 3] }] } },
          { type: 'chart', chartType: 'scatter', title: 'Points', xLabel: 'x', yLabel: 'y', width: 10, caption: 'Scatter chart', data: { series: [{ name: 'Sample', values: [{ x: 1, y: 2 }, { x: 2, y: 3.5 }, { x: 3, y: 1 }, { x: 4.5, y: 4 }] }] } },
        ]),
      ]),
    texts: ['Load', 'Hour', 'CPU', 'Figure 1: Area chart', 'Points', 'Figure 2: Scatter chart'],
  },
  {
    name: 'qr-barcodes',
    title: 'QR codes and barcodes draw at their size, with the barcode text under the bars',
    config: () =>
      doc('qr-barcodes', [
        flow([
          { type: 'qrCode', value: 'https://quire.example.com/invoice/42', size: 3, caption: 'Scan me', align: 'center' },
          { type: 'qrCode', value: 'small', size: 1.5, align: 'right' },
          { type: 'barcode', value: '400638133393', format: 'ean13' },
          { type: 'barcode', value: 'QUIRE-128', format: 'code128', height: 1, align: 'center' },
          { type: 'barcode', value: 'CODE39 TEST', format: 'code39', showText: false, align: 'right' },
          { type: 'barcode', value: '9638507', format: 'ean8' },
          { type: 'barcode', value: '03600029145', format: 'upca' },
          { type: 'barcode', value: '1540014128876', format: 'itf14' },
        ]),
      ]),
    texts: ['Figure 1: Scan me', '4 006381 333931', 'QUIRE-128', '9638 5074', '15400141288763', { text: 'CODE39 TEST', absent: true }],
  },
  {
    name: 'code-math',
    title: 'code blocks number their lines and captions, equations draw display, inline and numbered',
    config: () =>
      doc('code-math', [
        flow([
          { type: 'code', language: 'python', lineNumbers: true, caption: 'Hello in Python', id: 'lst-hello', code: 'def hello(name):\n    # {{not a variable}}\n    return f"hello {name}"\n\nprint(hello("world"))' },
          { type: 'code', code: 'plain code, no language\n  indented line' },
          { type: 'math', latex: '\\int_0^1 x^2 \\, dx = \\frac{1}{3}', id: 'eq-integral' },
          { type: 'math', latex: '\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}', caption: 'Gauss', id: 'eq-gauss' },
          { type: 'math', latex: 'a^2 + b^2 = c^2', display: false },
          { type: 'text', text: 'Inline $\\sqrt{2} \\approx 1.414$ in text; see [the integral](#eq-integral) and [the listing](#lst-hello).' },
        ]),
      ]),
    texts: ['def hello(name):', '# {{not a variable}}', 'Listing 1: Hello in Python', 'plain code, no language', 'see the integral and the listing'],
    check: (nav) => assert.ok(nav.links.filter((l) => l.dest?.page === 1).length >= 2, 'links to the equation and the listing'),
  },
  {
    name: 'blocks',
    title: 'quote, divider, spacer and page break lay out, the break starting a second page',
    pages: 2,
    config: () =>
      doc('blocks', [
        flow([
          { type: 'text', text: 'Before the quote.' },
          { type: 'quote', text: 'Simplicity is prerequisite for reliability.', attribution: 'Edsger W. Dijkstra' },
          { type: 'divider' },
          { type: 'text', text: 'Between the divider and the spacer.' },
          { type: 'spacer', height: 4 },
          { type: 'quote', text: 'A right-aligned quote without attribution.', align: 'right' },
          { type: 'divider' },
          { type: 'pageBreak' },
          { type: 'text', text: 'After the page break.' },
        ]),
      ]),
    texts: ['Simplicity is prerequisite for reliability.', 'Dijkstra', 'Between the divider and the spacer.', { text: 'After the page break.', absent: true }, { text: 'After the page break.', page: 2 }],
  },
  {
    name: 'navigation',
    title: 'toc, lists of figures and tables and the bibliography are drawn, their entries linked to their targets',
    config: () =>
      doc(
        'navigation',
        [
          flow([
            { type: 'toc', title: 'Contents', depth: 2 },
            { type: 'listOfFigures', title: 'Figures' },
            { type: 'listOfTables', title: 'Tables' },
            { type: 'h1', text: 'Chapter one', id: 'ch1' },
            { type: 'text', text: 'As shown by Knuth @[knuth1984] and Lamport @[lamport1994, ch. 3].' },
            { type: 'h2', text: 'Section one point one' },
            { type: 'h3', text: 'Deep section left out of the contents' },
            { type: 'table', caption: 'Small table', rows: [['a', 'b']] },
            { type: 'qrCode', value: 'figure', size: 1.2, caption: 'Small QR figure' },
            { type: 'bibliography', title: 'Works cited', style: 'ieee' },
          ]),
        ],
        { citations: CITATIONS },
      ),
    texts: ['Contents', 'Chapter one', 'Section one point one', 'Figures', 'Figure 1 Small QR figure', 'Tables', 'Table 1 Small table', 'Works cited', 'Literate programming', '[1]', '[2, ch. 3]'],
    // The titles of the contents and of the lists are headings Typst leaves out of the outline.
    outline: [
      ['Chapter one', 1],
      ['Section one point one', 2],
      ['Deep section left out of the contents', 3],
      ['Works cited', 1],
    ],
    check: (nav) => {
      linksTo(nav, 'Chapter one');
      linksTo(nav, 'Section one point one');
      linksTo(nav, 'Works cited');
      // The TOC, both lists and the two citations link inside the page.
      assert.ok(nav.links.filter((l) => l.dest?.page === 1).length >= 7, `internal links: ${JSON.stringify(nav.links)}`);
    },
  },
  {
    name: 'variables',
    layout: true,
    title: 'variableRef draws each kind of variable: text, number, image, list and table',
    config: () =>
      doc(
        'variables',
        [
          flow([
            { type: 'h2', text: 'Dear {{customer}}' },
            { type: 'variableRef', name: 'greeting' },
            { type: 'variableRef', name: 'total' },
            { type: 'variableRef', name: 'logo' },
            { type: 'variableRef', name: 'steps' },
            { type: 'variableRef', name: 'bullets' },
            { type: 'variableRef', name: 'lineItems' },
          ]),
        ],
        {
          variables: {
            customer: 'ACME Ltd',
            greeting: 'Thank you for your order.',
            total: 1234.5,
            logo: { type: 'image', src: photo, alt: 'ACME logo', width: 2 },
            steps: { type: 'list', items: ['Sign the form', 'Return it'], ordered: true },
            bullets: { type: 'list', items: ['Unordered one', 'Unordered two'] },
            lineItems: { type: 'table', columns: ['item', 'price'], rows: [{ item: 'Pen', price: 2.5 }, { item: 'Ink', price: 4 }] },
          },
        },
      ),
    texts: ['Dear ACME Ltd', 'Thank you for your order.', '1234.5', '1. Sign the form', '2. Return it', 'Unordered two', 'item price', 'Pen 2.5', 'Ink 4'],
  },
  ...(['top', 'center', 'bottom'] as const).map(
    (align): GoldenCase => ({
      name: `page-${align}`,
      title: `a page section aligned ${align} places its content at the ${align}`,
      config: () => doc(`page-${align}`, [{ type: 'page', align, content: [{ type: 'h1', text: `Aligned ${align}` }, { type: 'text', text: 'A cover page, one page long.', align: 'center' }] }]),
      texts: [`Aligned ${align}`, 'A cover page, one page long.'],
    }),
  ),
  {
    name: 'page-start-y',
    title: 'a page section with startY starts that far down, on A5 landscape with custom margins',
    config: () =>
      doc('page-start-y', [{ type: 'page', align: 'bottom', startY: 5, content: [{ type: 'h1', text: 'Starts 5 cm down' }, { type: 'text', text: 'startY overrides align.' }] }], {
        document: { size: 'A5', orientation: 'landscape', marginTop: 1.5, marginLeft: 3, marginRight: 1, marginBottom: 1 },
      }),
    texts: ['Starts 5 cm down', 'startY overrides align.'],
  },
  {
    name: 'columns',
    title: 'a flow section in two columns with a rule between them',
    config: () =>
      doc('columns', [
        flow(
          [
            { type: 'h2', text: 'Two columns' },
            { type: 'text', text: 'Column text that flows from the first column into the second one. '.repeat(44), align: 'justify' },
            { type: 'list', items: ['A list inside columns', 'Second item'] },
          ],
          { columns: { count: 2, space: 1, separate: true } },
        ),
      ]),
    texts: ['Two columns', 'A list inside columns'],
    raster: ({ width, height, grey }) => {
      // The rule is thinner than a pixel at 40 dpi: look for a long faint vertical line in the middle gutter.
      const darkRows = (x: number) => Array.from({ length: height }, (_, y) => grey[y * width + x]!).filter((v) => v < 250).length;
      const best = Math.max(...[-2, -1, 0, 1, 2].map((dx) => darkRows(Math.round(width / 2) + dx)));
      assert.ok(best > height * 0.6, `a rule between the columns (darkest middle column has ${best} of ${height} dark pixels)`);
    },
  },
  {
    name: 'header-footer',
    title: 'header and footer print page tokens, and skipFirstPage leaves the first page without the footer',
    pages: 2,
    config: () =>
      doc('header-footer', [flow([{ type: 'h1', text: 'Page furniture' }, { type: 'text', text: 'First page body.' }, { type: 'pageBreak' }, { type: 'text', text: 'Second page body.' }])], {
        variables: { org: 'Quire Golden Ltd' },
        defaults: { header: { text: '{{org}} · page {{page}} of {{pages}}', align: 'right' }, footer: { text: 'Footer ${page}/${pages}', align: 'center', skipFirstPage: true } },
      }),
    texts: [
      'Quire Golden Ltd · page 1 of 2',
      { text: 'Footer', absent: true },
      { text: 'Quire Golden Ltd · page 2 of 2', page: 2 },
      { text: 'Footer 2/2', page: 2 },
    ],
  },
  {
    name: 'defaults',
    title: 'defaults set the body font, size and colour, each heading level, paragraph spacing, line height, muted captions and a German locale',
    config: () =>
      doc(
        'defaults',
        [
          flow([
            { type: 'toc' },
            { type: 'h1', text: 'Große Überschrift', id: 'gross' },
            { type: 'text', text: 'Ein Absatz mit "Anführungszeichen" in der Grundschrift: Noto Serif, 13 pt, dunkelblau, mit anderthalbfachem Zeilenabstand und viel Abstand nach jedem Absatz, so dass der Abstand zwischen den Absätzen gut zu sehen ist.' },
            { type: 'text', text: 'Ein zweiter Absatz zeigt den Abstand davor.' },
            { type: 'h2', text: 'Zweite Ebene in normaler Stärke' },
            { type: 'image', src: png, alt: 'Bild', caption: 'Eine gedämpfte Bildunterschrift', width: 4 },
            { type: 'listOfFigures' },
          ]),
        ],
        {
          defaults: {
            fonts: { family: 'Noto Serif', size: 13, color: '#1a2a6c' },
            headings: { h1: { size: 30, weight: 'bold', color: '#8b0000', spacingBefore: 28, spacingAfter: 20 }, h2: { size: 18, weight: 'normal', color: '#006400', spacingBefore: 24 } },
            paragraph: { spacingBefore: 4, spacingAfter: 18, lineHeight: 1.5 },
            colors: { primary: '#8b0000', muted: '#999999' },
            locale: 'de-DE',
          },
        },
      ),
    // Quotes print as typed: user text is data, so the locale does not turn them into „…“.
    texts: ['Inhaltsverzeichnis', 'Große Überschrift', 'Ein Absatz mit "Anführungszeichen"', 'Abbildung 1: Eine gedämpfte Bildunterschrift', 'Abbildungsverzeichnis'],
    outline: [
      ['Große Überschrift', 1],
      ['Zweite Ebene in normaler Stärke', 2],
    ],
  },
];

for (const c of CASES) {
  test(`${c.name}: ${c.title}`, async () => {
    const { job, pdf } = await render(c.config());
    const file = path.join(work, `${c.name}.pdf`);
    writeFileSync(file, pdf);
    const pages = await pageCount(file);
    assert.is(pages, c.pages ?? 1, `${c.name} renders to ${pages} pages`);
    assert.is(job.pageCount, pages);

    const texts = new Map<number, string>();
    for (const t of c.texts) {
      const { text, page = 1, absent = false } = typeof t === 'string' ? { text: t } : t;
      if (!texts.has(page)) texts.set(page, await pdfText(file, page, c.layout));
      const found = texts.get(page)!.includes(text);
      assert.ok(found !== absent, `page ${page} of ${c.name} ${absent ? 'shows' : 'lacks'} "${text}":\n${texts.get(page)}`);
    }

    const nav = await navigation(file);
    if (c.outline) assert.equal(nav.outline.map((o) => [o.title, o.depth]), c.outline);
    for (const o of nav.outline) assert.ok(o.page >= 1, `bookmark "${o.title}" has a destination`);
    for (const uri of c.uris ?? []) assert.ok(nav.links.some((l) => l.uri === uri), `a link annotation to ${uri}`);
    for (const l of nav.links) assert.ok(l.uri !== null || l.dest !== null, `every link annotation has a URI or a resolvable destination: ${JSON.stringify(nav.links)}`);
    c.check?.(nav);

    const raster = await firstPagePng(file);
    c.raster?.(await greyPixels(raster));
    await compareWithGolden(c.name, raster);
  });
}

test('renders the same document to the same first page twice', async () => {
  const c = CASES.find((x) => x.name === 'navigation')!;
  const [a, b] = [await render(c.config()), await render(c.config())];
  writeFileSync(path.join(work, 'twice-a.pdf'), a.pdf);
  writeFileSync(path.join(work, 'twice-b.pdf'), b.pdf);
  const [pa, pb] = [await firstPagePng(path.join(work, 'twice-a.pdf')), await firstPagePng(path.join(work, 'twice-b.pdf'))];
  assert.ok(pa.equals(pb), 'two renders of one document rasterise identically');
});

test.run();
