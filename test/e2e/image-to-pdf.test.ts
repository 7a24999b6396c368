// POST /tools/convert/image-to-pdf through HTTP: pages, sizes and embedded images read back with poppler (pdfinfo, pdfimages, pdftoppm).
// test-stores: once (image conversion; its jobs and files reach the store as files.test's and pdf-tools.test's do).
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCanvas } from '@napi-rs/canvas';
import { type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf } from '../fixtures/pdfs.js';
import { qpdfCheck } from '../fixtures/pdf-readers.js';
import { pdfimagesList, pdfinfoPageSizes, pdfPageGrey } from '../helpers/poppler.js';
import { encodeCanvas } from '../../engines/image/encode-canvas.js';

const ROUTE = '/api/v1/dev/tools/convert/image-to-pdf';
const A4_PORTRAIT = { width: 595.28, height: 841.89 };
const A4_LANDSCAPE = { width: 841.89, height: 595.28 };

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started));

/** A picture whose left half is black and right half white, so its orientation can be seen on the page. */
async function halves(width: number, height: number, format: 'png' | 'jpeg' | 'gif'): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#000000';
  ctx.fillRect(0, 0, Math.floor(width / 2), height);
  return encodeCanvas(canvas, format, 92);
}

/** A 24-bit uncompressed BMP written byte by byte (no encoder involved): the given colour everywhere. */
function bmp(width: number, height: number, rgb: [number, number, number]): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const data = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([rgb[2], rgb[1], rgb[0]], y * row + x * 3);
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + data.length, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(width, 18);
  header.writeInt32LE(height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  header.writeUInt32LE(data.length, 34);
  return Buffer.concat([header, data]);
}

/** Inserts an EXIF APP1 segment holding only the Orientation tag (0x0112) right after the JPEG's SOI marker. */
function withExifOrientation(jpeg: Buffer, orientation: number): Buffer {
  const tiff = Buffer.alloc(26);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4); // first IFD right after the header
  tiff.writeUInt16BE(1, 8); // one entry
  tiff.writeUInt16BE(0x0112, 10); // Orientation
  tiff.writeUInt16BE(3, 12); // SHORT
  tiff.writeUInt32BE(1, 14); // count
  tiff.writeUInt16BE(orientation, 18); // value, left-justified in the 4-byte field
  tiff.writeUInt32BE(0, 22); // no next IFD
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const marker = Buffer.alloc(4);
  marker.writeUInt16BE(0xffe1, 0);
  marker.writeUInt16BE(payload.length + 2, 2);
  assert.is(jpeg.readUInt16BE(0), 0xffd8, 'a JPEG starts with SOI');
  return Buffer.concat([jpeg.subarray(0, 2), marker, payload, jpeg.subarray(2)]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG whose header claims width × height pixels, with a tiny (wrong) image stream: a decompression bomb's shape. */
function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(64))), pngChunk('IEND', Buffer.alloc(0))]);
}

async function convert(fileIds: string[]): Promise<{ job: any; pdf: Buffer }> {
  const created = await api.post(ROUTE, { fileIds });
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.action, 'convert.image-to-pdf');
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  const dl = await api.download(job.downloadUrl);
  assert.is(dl.status, 200);
  assert.is(dl.headers.get('content-type'), 'application/pdf');
  return { job, pdf: dl.bytes };
}

function near(actual: { width: number; height: number }, expected: { width: number; height: number }, what: string): void {
  assert.ok(Math.abs(actual.width - expected.width) < 0.02 && Math.abs(actual.height - expected.height) < 0.02, `${what}: ${actual.width} x ${actual.height}, expected ${expected.width} x ${expected.height}`);
}

/** Mean grey of a box of a page drawn at 72 dpi (1 px = 1 pt), box given in points from the top left. */
function meanGrey(p: { width: number; grey: Uint8Array }, x0: number, y0: number, x1: number, y1: number): number {
  let sum = 0;
  let n = 0;
  for (let y = Math.round(y0); y < Math.round(y1); y++) for (let x = Math.round(x0); x < Math.round(x1); x++, n++) sum += p.grey[y * p.width + x]!;
  return sum / n;
}

test('converts PNG, JPEG, GIF and BMP uploads into one PDF, one A4 page per image in request order', async () => {
  const png = await api.uploadId(await halves(300, 200, 'png'), 'wide.png');
  const jpeg = await api.uploadId(await halves(200, 400, 'jpeg'), 'tall.jpg');
  const gif = await api.uploadId(await halves(120, 120, 'gif'), 'square.gif');
  const bitmap = await api.uploadId(bmp(40, 30, [200, 30, 30]), 'red.bmp');
  const { job, pdf } = await convert([jpeg, png, bitmap, gif, png]);
  assert.is(job.result.pageCount, 5);
  assert.equal(job.result.pages.map((p: any) => [p.width, p.height, p.reencoded]), [[200, 400, false], [300, 200, false], [40, 30, true], [120, 120, true], [300, 200, false]]);
  const sizes = await pdfinfoPageSizes(pdf);
  assert.is(sizes.length, 5);
  [A4_PORTRAIT, A4_LANDSCAPE, A4_LANDSCAPE, A4_PORTRAIT, A4_LANDSCAPE].forEach((s, i) => near(sizes[i]!, s, `page ${i + 1}`));
  const images = await pdfimagesList(pdf);
  // pdfimages lists an image drawn on two pages twice; an alpha-less PNG has no soft mask row.
  const drawn = images.filter((im) => im.type === 'image');
  assert.equal(drawn.map((im) => [im.page, im.width, im.height]), [[1, 200, 400], [2, 300, 200], [3, 40, 30], [4, 120, 120], [5, 300, 200]]);
  assert.is(drawn[0]!.enc, 'jpeg', 'the JPEG is embedded as DCT data, not re-encoded');
  assert.ok((await qpdfCheck(pdf)).ok);
});

test('keeps JPEG bytes unchanged and never draws an image above 96 dpi', async () => {
  const bytes = await halves(200, 400, 'jpeg');
  const { pdf } = await convert([await api.uploadId(bytes, 'small.jpg')]);
  assert.ok(pdf.includes(bytes), 'the uploaded JPEG appears byte for byte in the PDF');
  // 200 × 400 px at 96 dpi is 150 × 300 pt, centred on the portrait page: left half black, right half white.
  const page = await pdfPageGrey(pdf, 1, 72);
  const left = (595.28 - 150) / 2;
  const top = (841.89 - 300) / 2;
  assert.ok(meanGrey(page, left + 10, top + 10, left + 65, top + 290) < 40, 'left half of the picture is black');
  assert.ok(meanGrey(page, left + 85, top + 10, left + 140, top + 290) > 215, 'right half of the picture is white');
  assert.ok(meanGrey(page, left - 30, top + 10, left - 5, top + 290) > 250, 'nothing drawn left of the picture: it was not scaled up');
});

test('scales a large image down to fit inside the margins, keeping its aspect ratio', async () => {
  const { pdf } = await convert([await api.uploadId(await halves(3000, 1000, 'png'), 'panorama.png')]);
  near((await pdfinfoPageSizes(pdf))[0]!, A4_LANDSCAPE, 'landscape page');
  const images = await pdfimagesList(pdf);
  assert.equal([images[0]!.width, images[0]!.height], [3000, 1000], 'all pixels kept');
  // Fits the width: 841.89 − 2 × 28.35 = 785.2 pt wide, 261.7 pt high, centred.
  const page = await pdfPageGrey(pdf, 1, 72);
  const w = 841.89 - 2 * (10 / 25.4) * 72;
  const h = w / 3;
  const top = (595.28 - h) / 2;
  assert.ok(meanGrey(page, 40, top + 5, 60, top + h - 5) < 40, 'the black half starts just inside the left margin');
  assert.ok(meanGrey(page, 40, top - 25, 60, top - 5) > 250, 'white above the picture: the aspect ratio is kept');
  assert.ok(meanGrey(page, 5, top + 5, 20, top + h - 5) > 250, 'the margin stays blank');
});

test('honours the EXIF orientation of a JPEG: orientation 6 turns a wide picture upright, bytes unchanged', async () => {
  const plain = await halves(200, 100, 'jpeg');
  const rotated = withExifOrientation(plain, 6);
  const { job, pdf } = await convert([await api.uploadId(rotated, 'phone.jpg'), await api.uploadId(plain, 'plain.jpg')]);
  assert.equal(job.result.pages.map((p: any) => [p.width, p.height, p.orientation]), [[100, 200, 6], [200, 100, 1]]);
  const sizes = await pdfinfoPageSizes(pdf);
  near(sizes[0]!, A4_PORTRAIT, 'the turned picture is upright: portrait page');
  near(sizes[1]!, A4_LANDSCAPE, 'the same picture without EXIF: landscape page');
  const images = await pdfimagesList(pdf);
  assert.equal(images.map((im) => [im.width, im.height, im.enc]), [[200, 100, 'jpeg'], [200, 100, 'jpeg']], 'stored pixels embedded as they are');
  // Orientation 6 is a quarter turn clockwise: the stored left (black) half is shown on top. 75 × 150 pt centred.
  const page = await pdfPageGrey(pdf, 1, 72);
  const left = (595.28 - 75) / 2;
  const top = (841.89 - 150) / 2;
  assert.ok(meanGrey(page, left + 5, top + 5, left + 70, top + 65) < 40, 'top half is black');
  assert.ok(meanGrey(page, left + 5, top + 85, left + 70, top + 145) > 215, 'bottom half is white');
});

test('refuses 51 images with 400 VALIDATION_FAILED naming fileIds, and an empty list', async () => {
  const id = await api.uploadId(bmp(2, 2, [0, 0, 0]), 'dot.bmp');
  const many = await api.post(ROUTE, { fileIds: Array(51).fill(id) });
  assert.is(many.status, 400);
  assert.is(many.body.code, 'VALIDATION_FAILED');
  assert.ok(many.body.errors.some((e: any) => e.path === 'fileIds'), JSON.stringify(many.body.errors));
  const none = await api.post(ROUTE, { fileIds: [] });
  assert.is(none.status, 400);
  const fifty = await convert(Array(50).fill(id));
  assert.is(fifty.job.result.pageCount, 50);
});

test('refuses a file that is not an image with 415 naming its place in fileIds', async () => {
  const img = await api.uploadId(bmp(2, 2, [0, 0, 0]), 'dot.bmp');
  const pdf = await api.uploadId(await makePdf(1), 'doc.pdf');
  const r = await api.post(ROUTE, { fileIds: [img, pdf] });
  assert.is(r.status, 415);
  assert.is(r.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  assert.match(r.body.detail, /fileIds\[1\].*application\/pdf/);
});

test('fails the job naming the file when an image is damaged', async () => {
  const good = await api.uploadId(bmp(2, 2, [0, 0, 0]), 'dot.bmp');
  const broken = await halves(100, 100, 'png');
  const damaged = Buffer.concat([broken.subarray(0, 33), Buffer.from('this is not a zlib stream at all'.repeat(4))]);
  const created = await api.post(ROUTE, { fileIds: [good, await api.uploadId(damaged, 'damaged.png')] });
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'FAILED');
  assert.match(job.error, /fileIds\[1\] \(damaged\.png\)/);
  assert.is(job.outputFileId, null);
});

test('fails a pixel bomb (PNG header claiming 100000 × 100000) from its header, before decoding', async () => {
  const bomb = pngClaiming(100_000, 100_000);
  assert.ok(bomb.length < 200);
  const created = await api.post(ROUTE, { fileIds: [await api.uploadId(bomb, 'bomb.png')] });
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'FAILED');
  assert.match(job.error, /fileIds\[0\] \(bomb\.png\) is 100000 × 100000 pixels/);
  // The server is fine afterwards.
  const after = await convert([await api.uploadId(bmp(4, 4, [9, 9, 9]), 'ok.bmp')]);
  assert.is(after.job.result.pageCount, 1);
});

test.run();
