// User text is data: hostile strings print as written wherever a document puts them, the renderer reads
// no file a document names, hostile LaTeX is drawn literally or refused by path, and huge inputs render
// or fail cleanly without taking the server down. Read back with poppler, qpdf and jsQR.
// Longer than 400 lines: one started server runs every hostile string through every place a document puts text.
// test-stores: once (the renderer's handling of hostile input; the store keeps only its jobs, as render.test's).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import jsQR from 'jsqr';
import { startServer, OWNER_KEY, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { escapeMarkup, HOSTILE_STRINGS } from '../fixtures/documents.js';

type Json = Record<string, any>;

/** Shorter than the manifest's 60 s, so a render that is too slow fails within this file's time. */
const RENDER_DEADLINE_MS = 20_000;
const SENTINEL = 'QUIRE-SENTINEL-CONTENT-7f3a9c';
const PASSWD_LINE = 'root:x:0:0';

let server: RunningServer;
let api: ApiClient;
let work: string;
let sentinelFile: string;
let png: string;

test.before(async () => {
  // No hyphen in the name: pdftotext joins a line that ends in "-" with the next and drops the hyphen.
  work = mkdtempSync(path.join(os.tmpdir(), 'quirehostile'));
  sentinelFile = path.join(work, 'secret.txt');
  writeFileSync(sentinelFile, `${SENTINEL}\n`);
  server = await startServer({ config: { plugins: { 'render-pdf': { pool: { timeoutMs: RENDER_DEADLINE_MS } } } } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  const canvas = createCanvas(60, 40);
  const g = canvas.getContext('2d');
  g.fillStyle = '#2e86ab';
  g.fillRect(0, 0, 60, 40);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(canvas.toBuffer('image/png'))]), 'tile.png');
  const res = await fetch(`${api.baseUrl}/api/v1/dev/images/upload`, { method: 'POST', headers: { 'X-API-Key': OWNER_KEY }, body: form });
  const body = (await res.json()) as Json;
  assert.is(res.status, 201, JSON.stringify(body));
  png = body.path;
});

test.after(async () => {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------- the public surface

type Rendered = { job: Json; pdf: Buffer | null; file: string | null };

/** Creates a render job and polls it (every `everyMs`, at most `pollMs`) to its end; the PDF comes with a completed job. */
async function render(config: Json, pollMs = 60_000, everyMs = 25): Promise<Rendered> {
  const created = await api.post('/api/v1/dev/render', { config });
  assert.is(created.status, 202, created.bytes.toString());
  const deadline = Date.now() + pollMs;
  let job: Json;
  for (;;) {
    job = (await api.get(`/api/v1/dev/render/${created.body.jobId}`)).body;
    if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
    if (Date.now() > deadline) throw new Error(`render ${job.jobId} still ${job.status} after ${pollMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  if (job.status !== 'COMPLETED') return { job, pdf: null, file: null };
  const download = await api.download(job.downloadUrl);
  assert.is(download.status, 200);
  const file = path.join(work, `${job.jobId}.pdf`);
  writeFileSync(file, download.bytes);
  return { job, pdf: download.bytes, file };
}

async function renderOk(config: Json): Promise<{ job: Json; pdf: Buffer; file: string }> {
  const r = await render(config);
  assert.is(r.job.status, 'COMPLETED', `${r.job.errorCode}: ${r.job.error}`);
  return r as { job: Json; pdf: Buffer; file: string };
}

// ---------------------------------------------------------------- independent readers

function run(cmd: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'buffer', maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${stderr.toString()}`));
      else resolve(stdout);
    });
  });
}

const pdfText = async (file: string, pages: string[] = []) => (await run('pdftotext', ['-enc', 'UTF-8', ...pages, file, '-'])).toString('utf8');

async function pdfInfo(file: string): Promise<Record<string, string>> {
  const out = (await run('pdfinfo', ['-enc', 'UTF-8', file])).toString('utf8');
  return Object.fromEntries([...out.matchAll(/^(\w[\w ]*?):\s+(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Every /Alt text of the structure tree, as qpdf decodes it. */
async function altTexts(file: string): Promise<string[]> {
  const json = JSON.parse((await run('qpdf', ['--json', '--json-key=qpdf', file])).toString('utf8')) as Json;
  const alts: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '/Alt' && typeof x === 'string') alts.push(x.replace(/^u:/, ''));
        else walk(x);
      }
    }
  };
  walk(json.qpdf);
  return alts;
}

/** The whole file with every stream decompressed: metadata, structure and content, as bytes. */
async function uncompressed(file: string): Promise<string> {
  const out = `${file}.qdf`;
  await run('qpdf', ['--qdf', '--object-streams=disable', file, out]).catch(() => undefined); // qpdf exits 3 on warnings; the file is written
  return readFileSync(out).toString('latin1');
}

/** The QR code jsQR finds in the top left 10 cm square of page 1 rasterised at 100 dpi, as UTF-8 text. */
async function qrOnFirstPage(file: string): Promise<string | null> {
  const prefix = `${file}-qr`;
  await run('pdftoppm', ['-r', '100', '-gray', '-png', '-f', '1', '-l', '1', '-x', '0', '-y', '0', '-W', '394', '-H', '394', '-singlefile', file, prefix]);
  const image = await loadImage(readFileSync(`${prefix}.png`));
  const canvas = createCanvas(image.width, image.height);
  const g = canvas.getContext('2d');
  g.drawImage(image, 0, 0);
  const data = g.getImageData(0, 0, image.width, image.height).data;
  const code = jsQR.default(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), image.width, image.height);
  return code ? Buffer.from(code.binaryData).toString('utf8') : null;
}

// ---------------------------------------------------------------- comparing extracted text
//
// Text comes back through the PDF's text mapping and poppler's reading order, so the comparison allows
// for what that path does to text that is drawn right (never for a changed or missing character):
// - both sides are NFC-normalised: "e" + U+0301 is shaped to one glyph and read back as "é";
// - bidi controls that pdftotext wraps right-to-left runs in (U+202A–U+202E, U+2066–U+2069, U+200E/F)
//   are dropped;
// - runs of whitespace count as one space; in strings with Hebrew or Arabic, whitespace is ignored,
//   since pdftotext moves the space at a direction change to the other side of the run;
// - in Arabic, a letter read twice in a row counts once. Noto Sans Arabic draws dotted letters (ب ت ف …)
//   as a skeleton glyph plus a dot glyph, and the PDF Typst writes maps both glyphs to the letter, so
//   every reader (pdftotext, pdfjs) extracts "مرحببا" for "مرحبا". Known, upstream, and not a change of
//   the user's text: the glyphs drawn are the right ones.

const BIDI_CONTROLS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const RTL = /[\u0590-\u08ff]/;

function normalise(text: string, dropSpaces: boolean): string {
  let t = text.normalize('NFC').replace(BIDI_CONTROLS, '');
  t = dropSpaces ? t.replace(/\s+/g, '') : t.replace(/\s+/g, ' ');
  return t.replace(/([\u0620-\u064a])\1+/g, '$1');
}

/** `dropSpaces` also for long lines that may wrap after a `/` (a wrap reads back as a space). */
function assertPrinted(extracted: string, expected: string, where: string, dropSpaces = RTL.test(expected)): void {
  assert.ok(normalise(extracted, dropSpaces).includes(normalise(expected, dropSpaces)), `${where}: ${JSON.stringify(expected)} is not in the extracted text:\n${extracted}`);
}

function assertNothingLeaked(extracted: string): void {
  assert.not.ok(extracted.includes(PASSWD_LINE), 'the text holds a line of /etc/passwd');
  assert.not.ok(extracted.includes(SENTINEL), 'the text holds the content of a file on the server');
}

// ---------------------------------------------------------------- hostile strings in every field

/** The hostile strings inline markup interprets as written: `$x$` is math, `\` escapes the next character. */
const INTERPRETED = new Set(['dollar $ sign $x$', 'back\\slash', '\\u{41}']);

/**
 * Each use of the string is wrapped in its own short marker (short, so lines do not wrap), so a match
 * shows which field printed it. Markers are letters only: pdftotext moves neutral characters such as
 * `<` next to a right-to-left run to the other side of it.
 */
const MARKED_FIELDS = {
  HD: 'heading', PA: 'paragraph', IT: 'list item', NE: 'nested list item', CE: 'table cell', TC: 'table caption', NO: 'footnote', FC: 'figure caption', HR: 'header', FR: 'footer',
  QT: 'quote', QA: 'quote attribution', CC: 'chart caption', KC: 'code caption', MC: 'math caption', RC: 'QR code caption', LL: 'link label',
} as const;
/** Values that are printed as given without going through markup: table and list variables, abbreviation expansions. */
const PLAIN_VALUES = { RF: 'rowsFrom cell', LV: 'list variable item', AB: 'abbreviation expansion' } as const;
/** Plain titles, each after its own prefix. */
const TITLES = ['TOCTITLE', 'LOFTITLE', 'LOTTITLE', 'BIBTITLE', 'YLABEL'] as const;
type Field = keyof typeof MARKED_FIELDS;
const mark = (code: string, value: string) => `${code}start ${value} end${code}`;

function hostileDocument(s: string, i: number): Json {
  const v = (field: Field) => mark(field, '{{v}}');
  return {
    document: { type: 'pdf', filename: `hostile-${i}`, title: s, author: s, subject: s, keywords: [s] },
    sections: [
      // The QR code alone on the first page: cheap to rasterise and to scan.
      { type: 'page', content: [{ type: 'qrCode', value: s, size: 4 }] },
      {
        type: 'flow',
        content: [
          { type: 'h2', id: 'target', text: v('HD') },
          { type: 'text', text: v('PA') },
          { type: 'list', items: [v('IT'), { text: 'Outer item', items: [v('NE')] }] },
          { type: 'table', caption: v('TC'), columns: [{ width: '1fr' }], rows: [[v('CE')]] },
          { type: 'text', text: `A footnote here.^[${v('NO')}]` },
          { type: 'image', src: png, alt: s, caption: v('FC'), width: 1.5 },
          { type: 'chart', chartType: 'bar', title: `CHARTTITLE ${s}`, xLabel: `XLABEL ${s}`, legend: true, width: 14, data: { labels: [`LABEL ${s}`], series: [{ name: `SERIES ${s}`, values: [3] }] } },
          { type: 'code', code: `${mark('CO', s)} {{v}}` },
          { type: 'text', text: mark('DI', INTERPRETED.has(s) ? escapeMarkup(s) : s) },
        ],
      },
      {
        // Continues on the same page, so the navigation lists and the rest share the pages above.
        type: 'flow',
        newPage: false,
        content: [
          { type: 'toc', title: `TOCTITLE ${s}` },
          { type: 'listOfFigures', title: `LOFTITLE ${s}` },
          { type: 'listOfTables', title: `LOTTITLE ${s}` },
          { type: 'quote', text: v('QT'), attribution: v('QA') },
          { type: 'chart', chartType: 'line', yLabel: `YLABEL ${s}`, caption: v('CC'), width: 10, data: { labels: ['a', 'b'], series: [{ name: 'n', values: [1, 2] }] } },
          { type: 'code', code: 'x = 1', caption: v('KC') },
          { type: 'math', latex: 'x^2', caption: v('MC') },
          { type: 'qrCode', value: 'second', size: 2, caption: v('RC') },
          { type: 'table', rowsFrom: 't', caption: 'Rows from a variable' },
          { type: 'variableRef', name: 'l' },
          // Each on a line of its own, short enough not to wrap.
          { type: 'text', text: '~AB~' },
          { type: 'text', text: `[${v('LL')}](#target)` },
          { type: 'text', text: 'Cited: @[k1].' },
          { type: 'bibliography', title: `BIBTITLE ${s}` },
        ],
      },
    ],
    variables: { v: s, t: { type: 'table', columns: ['c'], rows: [{ c: mark('RF', s) }] }, l: { type: 'list', items: [mark('LV', s)] } },
    abbreviations: { AB: mark('AB', s) },
    citations: [{ id: 'k1', type: 'book', title: 'A safe title', author: [{ family: 'Writer', given: 'Ann' }], issued: { 'date-parts': [[2020]] } }],
    defaults: { header: { text: v('HR') }, footer: { text: `${v('FR')} {{page}}` } },
  };
}

/** Renders are started one string ahead, so the next PDF is made while this one is read back. */
const hostileRenders = new Map<number, Promise<{ file: string }>>();
function hostileRender(i: number): Promise<{ file: string }> {
  if (!hostileRenders.has(i)) {
    const p = renderOk(hostileDocument(HOSTILE_STRINGS[i]!, i));
    p.catch(() => undefined); // awaited (and reported) by the string's own test
    hostileRenders.set(i, p);
  }
  return hostileRenders.get(i)!;
}

for (const [i, s] of HOSTILE_STRINGS.entries()) {
  test(`prints ${JSON.stringify(s)} as written in variables, plain fields, code and markup text`, async () => {
    if (i === 0) startHugeRenders();
    const current = hostileRender(i);
    if (i + 1 < HOSTILE_STRINGS.length) hostileRender(i + 1);
    const { file } = await current;
    const [text, info, alts, qr, raw] = await Promise.all([pdfText(file), pdfInfo(file), altTexts(file), qrOnFirstPage(file), uncompressed(file)]);
    assertNothingLeaked(text);
    // (a) through a variable in markup fields, header and footer
    for (const [code, field] of Object.entries(MARKED_FIELDS)) assertPrinted(text, mark(code, s), `{{v}} in a ${field}`);
    for (const [code, field] of Object.entries(PLAIN_VALUES)) assertPrinted(text, mark(code, s), field);
    for (const prefix of TITLES) assertPrinted(text, `${prefix} ${s}`, prefix.toLowerCase());
    // (b) plain fields: chart texts, the code element (which keeps {{v}} as written), metadata, alt text, QR value
    for (const prefix of ['CHARTTITLE', 'XLABEL', 'LABEL', 'SERIES']) assertPrinted(text, `${prefix} ${s}`, `chart ${prefix.toLowerCase()}`);
    assertPrinted(text, `${mark('CO', s)} {{v}}`, 'code element');
    for (const key of ['Title', 'Author', 'Subject', 'Keywords']) assert.is(info[key]?.normalize('NFC'), s.normalize('NFC'), `pdfinfo ${key}`);
    assert.ok(alts.includes(s), `the image's /Alt is exactly ${JSON.stringify(s)}`);
    assert.is(qr, s, 'the QR code decodes to the value');
    // (c) directly in paragraph text (escaped where the markup would read it)
    assertPrinted(text, mark('DI', s), 'paragraph text');
    assert.not.ok(raw.includes(PASSWD_LINE) || raw.includes(SENTINEL), 'no file content anywhere in the PDF');
  });
}

test('reads no file a document names, wherever it names it', async () => {
  const names = [sentinelFile, '/etc/passwd', `../../../../..${sentinelFile}`, 'doc.json'];
  const attempts = names.flatMap((n) => [`#read("${n}")`, `#image("${n}")`, `#include "${n}"`, `#json("${n}").at(0)`]);
  const content: Json[] = attempts.flatMap((a, k) => [
    { type: 'text', text: `ATTEMPT${k}var {{a${k}}}` },
    { type: 'text', text: `ATTEMPT${k}text ${escapeMarkup(a)}` },
    { type: 'code', code: `ATTEMPT${k}code ${a}` },
  ]);
  content.push({ type: 'math', latex: `\\text{#read("${sentinelFile}")}` });
  const { file } = await renderOk({
    document: { type: 'pdf', title: attempts[0], subject: attempts[1] },
    sections: [{ type: 'flow', content }],
    variables: Object.fromEntries(attempts.map((a, k) => [`a${k}`, a])),
  });
  const text = await pdfText(file);
  assertNothingLeaked(text);
  for (const [k, a] of attempts.entries()) {
    for (const via of ['var', 'text', 'code']) assertPrinted(text, `ATTEMPT${k}${via} ${a}`, `attempt ${k} (${via})`, true);
  }
  assertPrinted(text, `#read("${sentinelFile}")`, 'math \\text');
  const raw = await uncompressed(file);
  assert.not.ok(raw.includes(SENTINEL) || raw.includes(PASSWD_LINE), 'no file content anywhere in the PDF');
  // The job's own data file of the virtual workspace is not readable either: its JSON would show up.
  assert.not.ok(text.includes('"sections"'), 'the workspace data is not printed');
});

// ---------------------------------------------------------------- hostile LaTeX

const HOSTILE_LATEX: Array<{ latex: string; literal?: string }> = [
  { latex: '\\text{#read("/etc/passwd")}', literal: '#read("/etc/passwd")' },
  { latex: '#import "@preview/x:1.0.0"' },
  { latex: '\\text{#import "@preview/x:1.0.0": *}', literal: '#import "@preview/x:1.0.0": *' },
  { latex: '\\text{")#read("/etc/passwd")//}', literal: '")#read("/etc/passwd")//' },
  { latex: '\\text{\\")} + read("/etc/passwd")' },
  { latex: 'x + #read("/etc/passwd")' },
  { latex: '\\input{/etc/passwd}' },
  { latex: '\\include{/etc/passwd}' },
  { latex: '\\href{file:///etc/passwd}{x}' },
  { latex: '\\operatorname{read}(\\text{/etc/passwd})', literal: 'read(/etc/passwd)' },
  { latex: '\\mathrm{sys.inputs} \\; \\text{sys.inputs}', literal: 'sys.inputs sys.inputs' },
  { latex: '\\text{$(read("/etc/passwd"))$}', literal: '$(read("/etc/passwd"))$' },
];

for (const [k, { latex, literal }] of HOSTILE_LATEX.entries()) {
  test(`math ${JSON.stringify(latex)} renders literally or fails naming its field, never reading a file`, async () => {
    const { job, file } = await render({
      document: { type: 'pdf' },
      sections: [{ type: 'flow', content: [{ type: 'text', text: 'Before.' }, { type: 'math', latex }] }],
    });
    if (job.status === 'FAILED') {
      assert.is(job.errorCode, 'INVALID_DOCUMENT', `${job.errorCode}: ${job.error}`);
      assert.match(job.error, 'config.sections[0].content[1].latex');
      assert.not.match(job.error, /file not found|access denied|permission|package/i);
      return;
    }
    const text = await pdfText(file!);
    assertNothingLeaked(text);
    if (literal) assertPrinted(text, literal, `math ${k}`);
  });
}

test('inline math with hostile LaTeX prints as math or as code, literally', async () => {
  const inline = ['$\\text{#read("/etc/passwd")}$', '$#import "@preview/x:1.0.0"$', '$\\input{/etc/passwd}$'];
  const { file } = await renderOk({
    document: { type: 'pdf' },
    sections: [{ type: 'flow', content: inline.map((t, k) => ({ type: 'text', text: `INLINE${k} ${t} END${k}` })) }],
  });
  const text = await pdfText(file);
  assertNothingLeaked(text);
  assertPrinted(text, 'INLINE0 #read("/etc/passwd") END0', 'inline \\text');
  assertPrinted(text, 'INLINE1 #import "@preview/x:1.0.0" END1', 'refused inline math as code');
  assertPrinted(text, 'INLINE2 \\input{/etc/passwd} END2', 'refused inline math as code');
});

// ---------------------------------------------------------------- huge inputs

/** Either a PDF, or a clean failure at the deadline; never a crash, never a hang. */
function assertRenderedOrTimedOut(job: Json): void {
  if (job.status === 'FAILED') {
    assert.is(job.errorCode, 'DEADLINE_EXCEEDED', `${job.errorCode}: ${job.error}`);
    assert.ok(job.error.length > 0);
  } else assert.is(job.status, 'COMPLETED');
}

/**
 * The huge renders start with the first test of this file, so Typst works on them while the hostile
 * strings are read back; they are polled slowly, as a client of a long job would.
 */
const huge: { paragraph?: Promise<Rendered>; table?: Promise<Rendered> } = {};
function startHugeRenders(): void {
  const sentence = 'Lorem ipsum #read("/etc/passwd") dolor sit amet, שלום consectetur {x} [y] adipiscing elit. ';
  const text = sentence.repeat(Math.ceil(50_000 / sentence.length)).slice(0, 50_000);
  huge.paragraph ??= render({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'text', text }] }] }, RENDER_DEADLINE_MS * 3, 250);
  // One column: Typst takes about 6 s of CPU to lay out 10,000 rows a column on a two-core machine.
  const rows = Array.from({ length: 9_999 }, (_, r) => [`row ${r + 1} #read("/etc/passwd")`]);
  huge.table ??= render({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'table', headerRows: 1, rows: [['Row header'], ...rows] }] }] }, RENDER_DEADLINE_MS * 3, 250);
  for (const p of [huge.paragraph, huge.table]) p.catch(() => undefined); // awaited by their own tests
}

test('a 50,000-character paragraph renders over several pages (or fails cleanly at the deadline)', async () => {
  startHugeRenders();
  const { job, file } = await huge.paragraph!;
  assertRenderedOrTimedOut(job);
  if (!file) return;
  assert.ok(job.pageCount > 5, `${job.pageCount} pages`);
  const first = await pdfText(file, ['-f', '1', '-l', '1']);
  assertPrinted(first, 'Lorem ipsum #read("/etc/passwd") dolor sit amet,', 'first page');
  assertNothingLeaked(first);
});

test('a 10,000-row table renders with its header on every page (or fails cleanly at the deadline)', async () => {
  startHugeRenders();
  const { job, file } = await huge.table!;
  assertRenderedOrTimedOut(job);
  if (!file) return;
  const pages = job.pageCount as number;
  assert.ok(pages > 100, `${pages} pages`);
  const last = await pdfText(file, ['-f', String(pages), '-l', String(pages)]);
  assertPrinted(last, 'row 9999 #read("/etc/passwd")', 'last page');
  assert.ok(last.trimStart().startsWith('Row header'), 'the header row repeats on the last page');
  assertNothingLeaked(last);
});

test('the server still answers and renders after the hostile and huge inputs', async () => {
  assert.is(server.proc.exitCode, null, 'the server process is alive');
  const health = await api.get('/healthz');
  assert.is(health.status, 200);
  const { file } = await renderOk({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Still rendering.' }] }] });
  assertPrinted(await pdfText(file), 'Still rendering.', 'a render after the huge ones');
});

test.run();
