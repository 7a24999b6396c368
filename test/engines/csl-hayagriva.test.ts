// CSL-JSON → Hayagriva: every item type cites and lists in all five styles through real Typst (read back with pdftotext); hostile text stays text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import { CITATION_STYLES, type CslItem } from '../../contracts/document-json.js';
import { citationStyleName, cslToHayagriva } from '../../engines/typst/csl-hayagriva.js';

// A virtual project whose /etc/passwd holds a sentinel: any read that gets through shows up in the PDF text.
const ROOT = '/quire-bib-test';
const SENTINEL = 'root:x:0:0:QUIRE-SENTINEL';
const MAIN = `${ROOT}/main.typ`;
const compiler = NodeCompiler.create({ workspace: ROOT });
compiler.mapShadow(`${ROOT}/etc/passwd`, Buffer.from(SENTINEL));
compiler.addSource(
  MAIN,
  `#set page(width: 30cm, height: auto, margin: 1cm)
#let d = json("/data.json")
#for key in d.keys [#cite(label(key)) ]
#for key in d.pinpoint [#cite(label(key), supplement: [p. 4]) ]
#bibliography(bytes(d.yaml), style: d.style)
`,
);

/** Compiles a document citing `keys` (and `pinpoint` with a page) against the library, returning the PDF text or the error. */
function render(yaml: string, style: string, keys: string[], pinpoint: string[] = []): { text: string } | { error: string } {
  compiler.mapShadow(`${ROOT}/data.json`, Buffer.from(JSON.stringify({ yaml, style, keys, pinpoint })));
  try {
    const pdf = compiler.pdf({ mainFilePath: MAIN });
    return { text: execFileSync('pdftotext', ['-q', '-', '-'], { input: pdf, encoding: 'utf8' }) };
  } catch (err) {
    return { error: String((err as { code?: unknown }).code ?? err) };
  } finally {
    compiler.evictCache(10);
  }
}

function renderText(items: CslItem[], style: string, pinpoint: string[] = []): string {
  const out = render(cslToHayagriva(items), style, items.map((i) => i.id), pinpoint);
  if ('error' in out) throw new Error(`${style}: ${out.error}`);
  return out.text;
}

/** Whitespace collapsed, so words broken over lines still match. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ');

const name = (family: string, given: string) => ({ family, given });

/** One item per mapped CSL type, each with a distinctive family name, title word and year. */
const ITEMS: CslItem[] = [
  { id: 'journal', type: 'article-journal', title: 'Deep learning', author: [name('Lecunian', 'Yann'), name('Bengioso', 'Yoshua')], issued: { 'date-parts': [[2015, 5, 28]] }, 'container-title': 'Nature', volume: 521, issue: '7553', page: '436-444', DOI: 'https://doi.org/10.1038/nature14539', ISSN: '0028-0836' },
  { id: 'magazine', type: 'article-magazine', title: 'Magazine piece', author: [name('Magwriter', 'Mia')], issued: { 'date-parts': [[2011]] }, 'container-title': 'Wired' },
  { id: 'newspaper', type: 'article-newspaper', title: 'Newspaper report', author: [name('Reporterly', 'Rita')], issued: { 'date-parts': [[2012, 1, 2]] }, 'container-title': 'The Times' },
  { id: 'book', type: 'book', title: 'The TeXbook', author: [name('Knuthson', 'Donald E.')], issued: { 'date-parts': [['1984']] }, publisher: 'Addison-Wesley', 'publisher-place': 'Reading, MA', ISBN: '0-201-13447-0', edition: 2 },
  { id: 'chapter', type: 'chapter', title: 'Chapter title', author: [{ family: 'Gogh', given: 'Vincent', 'non-dropping-particle': 'van' } as { family: string }], editor: [name('Editorson', 'Ed')], 'container-title': 'Edited volume', issued: { 'date-parts': [[2001, 2]] }, page: '10–20', publisher: 'Springer' },
  { id: 'conference', type: 'paper-conference', title: 'Attention paper', author: [name('Vaswanian', 'Ashish')], 'container-title': 'Advances in NeurIPS', issued: { 'date-parts': [[2017]] }, page: '5998-6008' },
  { id: 'report', type: 'report', title: 'Technical report', author: [{ literal: 'World Health Organization' }], issued: { 'date-parts': [[1999]] }, number: 'TR-7', publisher: 'WHO', 'publisher-place': 'Geneva' },
  { id: 'thesis', type: 'thesis', title: 'Thesis title', genre: 'PhD thesis', author: [name('Studentov', 'Sam')], publisher: 'MIT', issued: { 'date-parts': [[2010]] } },
  { id: 'webpage', type: 'webpage', title: 'Web page title', author: [name('Webster', 'Wanda')], 'container-title': 'Example Site', URL: 'https://example.com/page', accessed: { 'date-parts': [[2024, 3, 1]] }, issued: { 'date-parts': [[2023, 7, 9]] } },
  { id: 'dataset', type: 'dataset', title: 'Dataset title', author: [name('Datason', 'Dan')], issued: { 'date-parts': [[2022]] }, DOI: '10.5281/zenodo.1' },
  { id: 'software', type: 'software', title: 'Software title', author: [name('Coder', 'Cat')], issued: { 'date-parts': [[2021]] }, URL: 'https://example.org/code' },
  { id: 'patent', type: 'patent', title: 'Patent title', author: [name('Inventorio', 'Ivy')], number: 'US1234567', issued: { 'date-parts': [[1998, 12, 31]] } },
  { id: 'manuscript', type: 'manuscript', title: 'Manuscript title', author: [name('Writerson', 'Will')], issued: { 'date-parts': [[1997]] } },
  { id: 'other', type: 'legal_case', title: 'Case title', author: [name('Lawson', 'Lee')], issued: { 'date-parts': [[1996]] } },
];

test('maps each Quire citation style to a Typst built-in style name', () => {
  assert.equal(CITATION_STYLES.map(citationStyleName), ['apa', 'ieee', 'chicago-author-date', 'harvard-cite-them-right', 'vancouver']);
});

for (const style of CITATION_STYLES) {
  test(`cites and lists every item type in ${style}, with a page supplement`, () => {
    const text = oneLine(renderText(ITEMS, citationStyleName(style), ['journal']));
    for (const family of ['Lecunian', 'Magwriter', 'Reporterly', 'Knuthson', 'Gogh', 'Vaswanian', 'World Health Organization', 'Studentov', 'Webster', 'Datason', 'Coder', 'Inventorio', 'Writerson', 'Lawson']) {
      assert.ok(text.includes(family), `${family} missing`);
    }
    for (const title of ['Deep', 'Magazine', 'Newspaper', 'TeXbook', 'Chapter', 'Attention', 'Technical', 'Thesis', 'Web page', 'Dataset', 'Software', 'Patent', 'Manuscript', 'Case']) {
      assert.match(text, new RegExp(title, 'i'), `${title} missing`);
    }
    // IEEE gives a web page its access date only.
    for (const year of ['2015', '2011', '2012', '1984', '2001', '2017', '1999', '2010', style === 'ieee' ? '2024' : '2023', '2022', '2021', '1998', '1997', '1996']) {
      assert.ok(text.includes(year), `${year} missing`);
    }
    // Vancouver cites by number alone; its citation layout has no locator.
    if (style !== 'vancouver') assert.match(text, /p\. 4/);
  });
}

test('puts container data on a parent of the right type and identifiers in serial-number', () => {
  const lib = JSON.parse(cslToHayagriva(ITEMS)) as Record<string, Record<string, any>>;
  assert.is(lib.journal!.type, 'article');
  assert.equal(lib.journal!.parent, { type: 'periodical', title: 'Nature', volume: '521', issue: '7553' });
  assert.is(lib.journal!['page-range'], '436-444');
  assert.equal(lib.journal!['serial-number'], { doi: '10.1038/nature14539', issn: '0028-0836' });
  assert.is(lib.newspaper!.parent.type, 'newspaper');
  assert.is(lib.conference!.parent.type, 'proceedings');
  assert.equal(lib.chapter!.parent, { type: 'book', editor: [{ name: 'Editorson', 'given-name': 'Ed' }], title: 'Edited volume', publisher: { name: 'Springer' } });
  assert.equal(lib.chapter!.author, [{ name: 'van Gogh', 'given-name': 'Vincent' }]);
  assert.is(lib.webpage!.parent.type, 'web');
  assert.equal(lib.webpage!.url, { value: 'https://example.com/page', date: '2024-03-01' });
  assert.equal(lib.book!.publisher, { name: 'Addison-Wesley', location: 'Reading, MA' });
  assert.is(lib.book!.edition, '2');
  assert.equal(lib.report!.author, [{ name: 'World Health Organization' }]);
  assert.is(lib.report!['serial-number'].serial, 'TR-7');
  assert.is(lib.thesis!.genre, 'PhD thesis');
  assert.is(lib.software!.type, 'repository');
  assert.is(lib.dataset!.type, 'misc');
  assert.is(lib.other!.type, 'misc');
});

test('converts dates: parts, literal, circa, and drops what is no calendar date', () => {
  const dateOf = (issued: unknown) => (JSON.parse(cslToHayagriva([{ id: 'x', type: 'book', issued } as CslItem])) as any).x.date;
  assert.is(dateOf({ 'date-parts': [[2020, 2, 29]] }), '2020-02-29');
  assert.is(dateOf({ 'date-parts': [[2019, 2, 29]] }), '2019-02');
  assert.is(dateOf({ 'date-parts': [[2019, 13]] }), '2019');
  assert.is(dateOf({ 'date-parts': [[2019, 14]], season: 2 }), '2019');
  assert.is(dateOf({ 'date-parts': [[1900], [1910]], circa: true }), '~1900');
  assert.is(dateOf({ literal: 'circa 1850' }), '~1850');
  assert.is(dateOf({ raw: '2024-06' }), '2024-06');
  assert.is(dateOf({ 'date-parts': [[-44, 3, 15]] }), '-0044-03-15');
  assert.is(dateOf({ literal: 'n.d.' }), undefined);
  assert.is(dateOf({ 'date-parts': [['soon']] }), undefined);
});

test('an item with only a literal author and no date renders with "n.d." in APA', () => {
  const text = oneLine(renderText([{ id: 'lit', type: 'book', title: 'Only literal', author: [{ literal: 'ACME Corporation' }] }], 'apa'));
  assert.match(text, /ACME Corporation\. \(n\.d\.\)\. Only literal/);
});

const EVIL = '#read("/etc/passwd") $#read("/etc/passwd")$ ] * _x_ @x <y> `z` {a} \\ // /* $x$';

test('Typst markup and Hayagriva math in titles and names shows literally and reads no file, in every style', () => {
  const items: CslItem[] = [
    { id: 'evil', type: 'article-journal', title: EVIL, author: [name(EVIL, EVIL), { literal: 'مرحبا بالعالم' }, name('Ünïcödé', 'Ça')], 'container-title': EVIL, volume: EVIL, issue: EVIL, page: EVIL, publisher: EVIL, note: EVIL, DOI: EVIL, ISBN: EVIL, genre: EVIL, issued: { 'date-parts': [[2021]] } },
    { id: 'evil-web', type: 'webpage', title: '$#read("/etc/passwd")$', author: [{ literal: '$#read("/etc/passwd")$' }], URL: 'javascript:alert(1)', language: 'not a language' },
  ];
  const yaml = cslToHayagriva(items);
  assert.not.ok(yaml.includes('javascript:'));
  for (const style of CITATION_STYLES) {
    const text = renderText(items, citationStyleName(style));
    assert.not.ok(text.includes('QUIRE-SENTINEL'), `${style} read the file`);
    assert.ok(text.includes('#read("/etc/passwd")'), `${style} lost the literal text`);
    assert.ok(text.includes('$#read("/etc/passwd")$'), `${style} lost the dollars`);
    assert.ok(text.includes('مرحبا بالعالم') && text.includes('Ünïcödé'), `${style} lost the unicode names`);
  }
});

test('strips control characters and lone surrogates, skips duplicate and unusable ids, and keeps an id named __proto__', () => {
  const items = [
    { id: 'a', type: 'book', title: 'First\u0000 \ud800title\ufffe\u0085', author: [name('Aaron', 'A')] },
    { id: 'a', type: 'book', title: 'Duplicate', author: [name('Dupe', 'D')] },
    { id: 'bad\u0001id', type: 'book', title: 'Bad id' },
    { id: '__proto__', type: 'book', title: 'Proto title', author: [name('Proto', 'P')] },
  ] as CslItem[];
  const lib = JSON.parse(cslToHayagriva(items));
  assert.equal(Object.keys(lib), ['a', '__proto__']);
  assert.is(lib.a.title, 'First title');
  const out = render(cslToHayagriva(items), 'ieee', ['a', '__proto__']);
  assert.ok('text' in out && out.text.includes('First title') && out.text.includes('Proto title'), 'error' in out ? out.error : '');
});

test('a library of 1000 items compiles and lists the first and the last', () => {
  const items: CslItem[] = Array.from({ length: 1000 }, (_, i) => ({
    id: `item-${i}`, type: i % 2 ? 'book' : 'article-journal', title: `Title number ${i}`, author: [name(`Family${i}`, 'Given')],
    issued: { 'date-parts': [[1900 + (i % 120)]] }, 'container-title': 'Journal', publisher: 'Publisher',
  }));
  const text = oneLine(renderText(items, 'ieee'));
  assert.ok(text.includes('Title number 0') && text.includes('Title number 999'));
  assert.ok(text.includes('[1000]'));
});

test('an empty list gives an empty library', () => {
  assert.is(cslToHayagriva([]), '{}');
});

test.run();
