// POST /tools/pdf/watermark: text and image watermarks, checked with pdfjs (text and its angle), poppler (text, rendered pixels) and qpdf.
// test-stores: once (watermark drawing; its jobs and files reach the store as files.test's and pdf-tools.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import path from 'node:path';
import { GlobalFonts, createCanvas } from '@napi-rs/canvas';
import { PDFDocument, degrees, rgb } from 'pdf-lib';
import { type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf } from '../fixtures/pdfs.js';
import { pdfPageTexts, pdfPixels, pdfTextAngle, pdftotextPages, qpdfCheck, qpdfObjects } from '../fixtures/pdf-readers.js';
import { decodePng, type Pixels } from '../helpers/image-readers.js';
import { pdfPageGrey, pdffontsTable } from '../helpers/poppler.js';

const WATERMARK = '/api/v1/dev/tools/pdf/watermark';
let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started));

async function watermark(body: Record<string, unknown>): Promise<{ job: any; pdf: Buffer }> {
  const created = await api.post(WATERMARK, body);
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.action, 'pdf.watermark');
  const job = await api.waitForJob(created.body.id);
  if (job.status !== 'COMPLETED') return { job, pdf: Buffer.alloc(0) };
  const dl = await api.withKey(null).download(job.downloadUrl);
  assert.is(dl.headers.get('content-type'), 'application/pdf');
  return { job, pdf: dl.bytes };
}

/** A solid-colour raster image made with a canvas library. */
function solidImage(colour: string, width: number, height: number, type: 'png' | 'jpeg'): Uint8Array {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, width, height);
  return new Uint8Array(type === 'png' ? canvas.toBuffer('image/png') : canvas.toBuffer('image/jpeg'));
}

/** Pages painted edge to edge with opaque blue, so that anything under the content is hidden. */
async function bluePagesPdf(pages: number, rotate = 0): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([400, 600]);
    page.drawRectangle({ x: 0, y: 0, width: 400, height: 600, color: rgb(0, 0, 1) });
    if (rotate) page.setRotation(degrees(rotate));
  }
  return doc.save();
}

const isRed = ([r, g, b]: number[]) => r! > 200 && g! < 60 && b! < 60;
const isBlue = ([r, g, b]: number[]) => r! < 60 && g! < 60 && b! > 200;

test('stamps text over every page by default, sharing one watermark object, and keeps the content', async () => {
  const source = await makePdf(6, { label: 'Body' });
  const id = await api.uploadId(source, 'six.pdf');
  const { job, pdf } = await watermark({ fileId: id, text: 'CONFIDENTIAL' });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result, { watermarkedPages: 6, pageCount: 6, kind: 'text' });
  assert.is(job.creditCost, 1);
  const texts = await pdfPageTexts(pdf);
  texts.forEach((t, i) => {
    assert.match(t, 'CONFIDENTIAL', `page ${i + 1}`);
    assert.match(t, `Body page ${i + 1}`);
  });
  // One watermark object serves all six pages.
  const forms = Object.values(await qpdfObjects(pdf)).filter((o) => o.stream?.dict['/Subtype'] === '/Form');
  assert.is(forms.length, 1);
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, check.output);
});

test('stamps only the pages named by page specs', async () => {
  const id = await api.uploadId(await makePdf(5, { label: 'Sel' }), 'five.pdf');
  const { job, pdf } = await watermark({ fileId: id, text: 'DRAFT COPY', pages: ['2', '4-'] });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.result.watermarkedPages, 3);
  const texts = await pdftotextPages(pdf);
  assert.equal(
    texts.map((t) => t.includes('DRAFT COPY')),
    [false, true, false, true, true],
  );
});

test('an image over the content covers it; under the content it is hidden; half opacity mixes the two', async () => {
  const pdfId = await api.uploadId(await bluePagesPdf(1), 'blue.pdf');
  const red = await api.uploadId(solidImage('#ff0000', 200, 200, 'png'), 'red.png');
  const centre: [number, number] = [0.5, 0.5];

  const over = await watermark({ fileId: pdfId, imageFileId: red, opacity: 1 });
  assert.is(over.job.status, 'COMPLETED', over.job.error);
  assert.is(over.job.result.kind, 'image');
  assert.ok(isRed((await pdfPixels(over.pdf, 1, [centre]))[0]!), 'over: red at the centre');

  const under = await watermark({ fileId: pdfId, imageFileId: red, opacity: 1, layer: 'under' });
  assert.ok(isBlue((await pdfPixels(under.pdf, 1, [centre]))[0]!), 'under: the blue page hides it');

  const half = await watermark({ fileId: pdfId, imageFileId: red, opacity: 0.5 });
  const [r, g, b] = (await pdfPixels(half.pdf, 1, [centre]))[0]!;
  assert.ok(Math.abs(r - 128) < 25 && g < 40 && Math.abs(b - 128) < 25, `half opacity mixes red and blue: ${[r, g, b]}`);
  assert.ok((await qpdfCheck(half.pdf)).ok);
});

test('places the watermark at the named position as the reader sees the page, also on a rotated page', async () => {
  const red = await api.uploadId(solidImage('#ff0000', 100, 100, 'jpeg'), 'red.jpg');
  // Page 400 x 600 pt; a 100 pt image 20 pt from the corner covers 20-120 pt: 5-30 % across, 3-20 % down.
  const inTopLeft: [number, number] = [0.15, 0.1];
  const inBottomRight: [number, number] = [0.85, 0.9];
  for (const rotate of [0, 90]) {
    const id = await api.uploadId(await bluePagesPdf(1, rotate), `blue-${rotate}.pdf`);
    const { job, pdf } = await watermark({ fileId: id, imageFileId: red, imageWidth: 100, position: 'top-left', margin: 20, opacity: 1 });
    assert.is(job.status, 'COMPLETED', job.error);
    // pdftoppm renders the page as the reader sees it (rotated), so the fractions are of that view.
    const [tl, centre, br] = await pdfPixels(pdf, 1, [inTopLeft, [0.5, 0.5], inBottomRight]);
    assert.ok(isRed(tl!), `rotate ${rotate}: red in the top left, got ${tl}`);
    assert.ok(isBlue(centre!), `rotate ${rotate}: blue in the centre`);
    assert.ok(isBlue(br!), `rotate ${rotate}: blue in the bottom right`);
  }
});

test('places the watermark within a page box that does not start at the origin', async () => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([1000, 1000]);
  page.setMediaBox(300, 200, 400, 600);
  page.drawRectangle({ x: 300, y: 200, width: 400, height: 600, color: rgb(0, 0, 1) });
  const id = await api.uploadId(await doc.save(), 'offset.pdf');
  const red = await api.uploadId(solidImage('#ff0000', 100, 100, 'png'), 'red.png');
  const { job, pdf } = await watermark({ fileId: id, imageFileId: red, imageWidth: 100, position: 'bottom-right', margin: 20, opacity: 1 });
  assert.is(job.status, 'COMPLETED', job.error);
  const [br, tl] = await pdfPixels(pdf, 1, [[0.85, 0.9], [0.15, 0.1]]);
  assert.ok(isRed(br!), `red in the bottom right, got ${br}`);
  assert.ok(isBlue(tl!), `blue in the top left, got ${tl}`);
});

test('turns text by the rotation as the reader sees it, in the given colour', async () => {
  const id = await api.uploadId(await makePdf(1), 'one.pdf');
  const { job, pdf } = await watermark({ fileId: id, text: 'ANGLED', rotation: 45, fontSize: 60, color: '#00ff00', opacity: 1 });
  assert.is(job.status, 'COMPLETED', job.error);
  const angle = (await pdfTextAngle(pdf, 1, "ANGLED"))!;
  assert.ok(Math.abs(angle - 45) < 0.5, `angle ${angle}`);
  // Somewhere around the middle of the page the glyphs are pure green.
  const grid: Array<[number, number]> = [];
  for (let i = 0; i < 30; i++) for (let j = 0; j < 30; j++) grid.push([0.3 + (0.4 * i) / 29, 0.35 + (0.3 * j) / 29]);
  const pixels = await pdfPixels(pdf, 1, grid, 72);
  assert.ok(pixels.some(([r, g, b]) => g > 200 && r < 60 && b < 60), 'green glyph pixels');
});

test('keeps text upright for the reader on a page with /Rotate 90', async () => {
  const doc = await PDFDocument.load(await makePdf(1));
  doc.getPage(0).setRotation(degrees(90));
  const id = await api.uploadId(await doc.save(), 'turned.pdf');
  const { pdf } = await watermark({ fileId: id, text: 'UPRIGHT' });
  // In page space the text runs at 90 degrees, which the page's own rotation turns back to horizontal.
  assert.ok(Math.abs((await pdfTextAngle(pdf, 1, "UPRIGHT"))! - 90) < 0.5);
});

test('tiles text across the whole page, under the content', async () => {
  const id = await api.uploadId(await makePdf(2), 'two.pdf');
  const { job, pdf } = await watermark({ fileId: id, text: 'TILED', position: 'tile', fontSize: 20, tileGap: 40, layer: 'under', pages: ['1'] });
  assert.is(job.status, 'COMPLETED', job.error);
  const [first, second] = await pdftotextPages(pdf);
  const copies = first!.match(/TILED/g)?.length ?? 0;
  assert.ok(copies >= 20, `${copies} copies`);
  assert.not.match(second!, 'TILED');
});

/** One blank page, so that the watermark is all the text and all the ink on it. */
async function blankPdf(width: number, height: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([width, height]);
  return doc.save();
}

/** Total darkness of an image: the sum of 255 − grey over its pixels. */
const darkness = (p: Pixels) => p.grey.reduce((sum, v) => sum + (255 - v), 0);

/** `text` drawn black at `size` px by Skia (@napi-rs/canvas) in a bundled font (Noto Sans unless named), as a reference for how much ink its glyphs have. */
function canvasDarkness(text: string, size: number, pkg = 'noto-sans', file = '400Regular/NotoSans_400Regular.ttf'): number {
  const require = createRequire(import.meta.url);
  const family = `Reference ${pkg}`;
  GlobalFonts.registerFromPath(path.join(path.dirname(require.resolve(`@expo-google-fonts/${pkg}/package.json`)), file), family);
  const canvas = createCanvas(Math.ceil(size * text.length * 1.5), Math.ceil(size * 2));
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#000000';
  ctx.font = `${size}px "${family}"`;
  ctx.fillText(text, 10, size * 1.4);
  return darkness(decodePng(canvas.toBuffer('image/png')));
}

/** The font objects of a PDF as qpdf reads them: /BaseFont, and the size of the embedded TrueType file when there is one. */
async function fontsOf(pdf: Uint8Array): Promise<Array<{ baseFont: string; fontFileBytes: number | null }>> {
  const objects = await qpdfObjects(pdf);
  const fonts: Array<{ baseFont: string; fontFileBytes: number | null }> = [];
  for (const o of Object.values(objects)) {
    const dict = o.value as Record<string, unknown> | undefined;
    if (!dict || dict['/Type'] !== '/Font' || dict['/Subtype'] === '/CIDFontType2') continue;
    let fontFileBytes: number | null = null;
    const descendants = dict['/DescendantFonts'] as string[] | undefined;
    if (descendants) {
      const cid = objects[`obj:${descendants[0]}`]!.value as Record<string, string>;
      const descriptor = objects[`obj:${cid['/FontDescriptor']}`]!.value as Record<string, string>;
      fontFileBytes = (objects[`obj:${descriptor['/FontFile2']}`]!.stream!.dict['/Length1'] as number | undefined) ?? null;
    }
    fonts.push({ baseFont: String(dict['/BaseFont']), fontFileBytes });
  }
  return fonts;
}

test('draws Greek, Cyrillic and accented Latin in an embedded subset of Noto Sans: poppler extracts the exact text and draws every glyph', async () => {
  const text = 'Ünïcödé – Ελληνικά – Кириллица';
  const id = await api.uploadId(await blankPdf(700, 200), 'blank.pdf');
  const { job, pdf } = await watermark({ fileId: id, text, fontSize: 24, color: '#000000', opacity: 1 });
  assert.is(job.status, 'COMPLETED', job.error);
  const [extracted] = await pdftotextPages(pdf);
  assert.is(extracted!.trim(), text);
  assert.is((await pdfPageTexts(pdf))[0], text);
  const check = await qpdfCheck(pdf);
  assert.ok(check.ok, check.output);
  // One embedded font, a subset: the full Noto Sans is 629 KB.
  const fonts = await fontsOf(pdf);
  assert.is(fonts.length, 1, JSON.stringify(fonts));
  assert.match(fonts[0]!.baseFont, 'NotoSans-Regular');
  assert.ok(fonts[0]!.fontFileBytes! < 20_000, `font file of ${fonts[0]!.fontFileBytes} bytes`);
  assert.ok(pdf.length < 30_000, `${pdf.length} bytes`);
  // Every glyph is drawn: the page holds as much ink as Skia draws for the same text in Noto Sans (a broken subset leaves glyphs blank).
  // Again for a second job, which a worker thread serves with the font it parsed for the first.
  const again = await watermark({ fileId: id, text, fontSize: 24, color: '#000000', opacity: 1 });
  for (const output of [pdf, again.pdf]) {
    const ratio = darkness(await pdfPageGrey(output, 1, 72)) / canvasDarkness(text, 24);
    assert.ok(ratio > 0.85 && ratio < 1.15, `ink ratio ${ratio.toFixed(3)}`);
  }
});

test('keeps Helvetica for Windows-1252 text (nothing embedded) and uses Noto Sans for every line once one line needs it', async () => {
  const id = await api.uploadId(await blankPdf(600, 400), 'blank.pdf');
  const latin = await watermark({ fileId: id, text: 'Café “Größe” – 10 €' });
  assert.is(latin.job.status, 'COMPLETED', latin.job.error);
  assert.equal(await fontsOf(latin.pdf), [{ baseFont: '/Helvetica', fontFileBytes: null }]);
  assert.is((await pdftotextPages(latin.pdf))[0]!.trim(), 'Café “Größe” – 10 €');

  const mixed = await watermark({ fileId: id, text: 'DRAFT\nΠρόχειρο', fontSize: 30 });
  assert.is(mixed.job.status, 'COMPLETED', mixed.job.error);
  assert.equal((await fontsOf(mixed.pdf)).map((f) => f.baseFont.replace(/-\d+$/, '')), ['/NotoSans-Regular']);
  assert.equal((await pdftotextPages(mixed.pdf))[0]!.trim().split(/\s*\n\s*/), ['DRAFT', 'Πρόχειρο']);
});

test('draws Hebrew with the Noto Sans Hebrew fallback and an emoji with Noto Emoji, in one line', async () => {
  const id = await api.uploadId(await blankPdf(600, 200), 'blank.pdf');
  const text = 'Ελληνικά ✔ שלום';
  const { job, pdf } = await watermark({ fileId: id, text, fontSize: 24 });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal((await fontsOf(pdf)).map((f) => f.baseFont.replace(/-\d+$/, '')).sort(), ['/NotoEmoji-Regular', '/NotoSans-Regular', '/NotoSansHebrew-Regular']);
  // pdftotext marks the right-to-left word with bidi embedding controls; the characters and their order are the input's.
  assert.is((await pdftotextPages(pdf))[0]!.replace(/[\u202A-\u202E]/g, '').trim(), text);
  assert.ok((await qpdfCheck(pdf)).ok);
});

test('draws Chinese, Japanese, Korean, Thai and Devanagari in an embedded subset of the script\'s Noto font: poppler extracts the exact text and draws every glyph', async () => {
  const id = await api.uploadId(await blankPdf(500, 150), 'blank.pdf');
  const cases: Array<[string, string, string, string]> = [
    ['机密文件 请勿外传', 'noto-sans-sc', '400Regular/NotoSansSC_400Regular.ttf', 'NotoSansSC-Regular'],
    // Kana make the Han characters take the Japanese forms, hangul the Korean ones (as in rendered documents).
    ['社外秘 ひらがな', 'noto-sans-jp', '400Regular/NotoSansJP_400Regular.ttf', 'NotoSansJP-Regular'],
    ['대외비 문서', 'noto-sans-kr', '400Regular/NotoSansKR_400Regular.ttf', 'NotoSansKR-Regular'],
    ['ภาษาไทย ลับ', 'noto-sans-thai', '400Regular/NotoSansThai_400Regular.ttf', 'NotoSansThai-Regular'],
    // Noto Sans has Devanagari; its shaping needs the generator runtime @pdf-lib/fontkit forgets to import.
    ['गोपनीय', 'noto-sans', '400Regular/NotoSans_400Regular.ttf', 'NotoSans-Regular'],
  ];
  for (const [text, pkg, file, font] of cases) {
    const { job, pdf } = await watermark({ fileId: id, text, fontSize: 24, color: '#000000', opacity: 1 });
    assert.is(job.status, 'COMPLETED', job.error);
    assert.is((await pdftotextPages(pdf))[0]!.trim(), text);
    assert.ok((await qpdfCheck(pdf)).ok);
    const fonts = await fontsOf(pdf);
    assert.equal(fonts.map((f) => f.baseFont.replace(/-\d+$/, '')), [`/${font}`], text);
    assert.match(await pdffontsTable(pdf), new RegExp(`${font}.*CID TrueType\\s+Identity-H\\s+yes`), `${text}: pdffonts lists the embedded font`);
    // A subset: the full CJK fonts are 5–10 MB.
    assert.ok(fonts[0]!.fontFileBytes! < 30_000, `${text}: font file of ${fonts[0]!.fontFileBytes} bytes`);
    const ratio = darkness(await pdfPageGrey(pdf, 1, 72)) / canvasDarkness(text, 24, pkg, file);
    assert.ok(ratio > 0.85 && ratio < 1.15, `${text}: ink ratio ${ratio.toFixed(3)}`);
  }
});

test('fails naming the text and every character no bundled font has (Ol Chiki, Linear B), drawing nothing', async () => {
  const id = await api.uploadId(await makePdf(1), 'one.pdf');
  const { job } = await watermark({ fileId: id, text: 'Ünïcödé – Ελληνικά – Кириллица – 中文 ᱚᱛ? – ✓ 𐀀' });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'WATERMARK_INVALID');
  assert.match(job.error, 'text: no bundled font has the characters "ᱚ" (U+1C5A), "ᱛ" (U+1C5B), "𐀀" (U+10000)');
  assert.is(job.outputFileId, null);
});

test('fails clearly for neither or both of text and image, unprintable text, and too dense tiling', async () => {
  const id = await api.uploadId(await makePdf(1), 'one.pdf');
  const red = await api.uploadId(solidImage('#ff0000', 10, 10, 'png'), 'red.png');
  const neither = await watermark({ fileId: id });
  assert.is(neither.job.errorCode, 'WATERMARK_INVALID');
  assert.match(neither.job.error, 'either `text` or `imageFileId`');
  const both = await watermark({ fileId: id, text: 'x', imageFileId: red });
  assert.match(both.job.error, 'not both');
  const olChiki = await watermark({ fileId: id, text: 'Secret ᱚᱛ' });
  assert.is(olChiki.job.errorCode, 'WATERMARK_INVALID');
  assert.match(olChiki.job.error, 'text: no bundled font has the characters "ᱚ" (U+1C5A), "ᱛ" (U+1C5B)');
  const dense = await watermark({ fileId: id, text: '.', fontSize: 4, tileGap: 0, position: 'tile' });
  assert.is(dense.job.errorCode, 'WATERMARK_INVALID');
  assert.match(dense.job.error, 'tileGap');
});

test('refuses an image with too many pixels before decoding it', async () => {
  const id = await api.uploadId(await makePdf(1), 'one.pdf');
  // A PNG header declaring 30000 x 30000 pixels.
  const png = Buffer.from(solidImage('#ff0000', 1, 1, 'png'));
  png.writeUInt32BE(30_000, 16);
  png.writeUInt32BE(30_000, 20);
  const big = await api.uploadId(png, 'huge.png');
  const { job } = await watermark({ fileId: id, imageFileId: big });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'IMAGE_UNREADABLE');
  assert.match(job.error, '30000 × 30000');
});

test('answers 400 listing the valid options, 400 for a page past the end, 415 for an image that is not PNG or JPEG', async () => {
  const id = await api.uploadId(await makePdf(2), 'two.pdf');
  const position = await api.post(WATERMARK, { fileId: id, text: 'x', position: 'middle', layer: 'above' });
  assert.is(position.status, 400);
  const messages = Object.fromEntries(position.body.errors.map((e: { path: string; message: string }) => [e.path, e.message]));
  assert.match(messages.position, '"center", "top-left", "top", "top-right", "left", "right", "bottom-left", "bottom", "bottom-right", "tile"');
  assert.match(messages.layer, '"over", "under"');
  const colour = await api.post(WATERMARK, { fileId: id, text: 'x', color: 'red', opacity: 2 });
  assert.equal(colour.body.errors.map((e: { path: string }) => e.path).sort(), ['color', 'opacity']);
  const range = await api.post(WATERMARK, { fileId: id, text: 'x', pages: ['3'] });
  assert.is(range.status, 400);
  assert.is(range.body.errors[0].path, 'pages[0]');
  const notImage = await api.post(WATERMARK, { fileId: id, imageFileId: id });
  assert.is(notImage.status, 415);
  assert.match(notImage.body.detail, 'imageFileId');
});

test.run();
