// Page images end to end: POST /render/images and POST /render/markdown/images → poll → download, the PNG, JPEG
// and ZIP bytes read back by hand-parsed headers, node:zlib, pdfjs's JPEG decoder, unzip and poppler.
// Longer than 400 lines: one started server serves every page-image test (formats, page selection, DPI, ZIPs).
// test-stores: once (page images read back; its jobs reach the store as render.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { receiver, until } from '../helpers/webhook-receiver.js';
import { compareWithGolden, run } from '../helpers/golden.js';
import { decodeJpeg, decodePng, inkShare, jpegSize, meanDifference, pngSize, readPgm, type Pixels } from '../helpers/image-readers.js';

const RENDER = '/api/v1/dev/render';
const IMAGES = `${RENDER}/images`;
const MD_IMAGES = `${RENDER}/markdown/images`;

type Json = Record<string, any>;

let server: RunningServer;
let api: ApiClient;
let work: string;

// Private targets are allowed so that a loopback webhook receiver can be reached.
test.before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'quire-images-'));
  server = await startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------- helpers

/** A document of `count` pages, each headed "Page <n>" and separated by page breaks. */
function pages(count: number, document: Json = {}): Json {
  const content: Json[] = [];
  for (let i = 1; i <= count; i++) {
    if (i > 1) content.push({ type: 'pageBreak' });
    content.push({ type: 'h1', text: `Page ${i}` }, { type: 'text', text: `This is page ${i} of ${count}. Rendering documents to images keeps what the PDF shows.` });
  }
  return { document: { type: 'pdf', filename: 'pages', ...document }, sections: [{ type: 'flow', content }] };
}

/** Pixels of `mm` millimetres at `dpi`, rounded as the API promises. */
const px = (mm: number, dpi: number) => Math.round((mm / 25.4) * dpi);
const inches = (i: number, dpi: number) => Math.round(i * dpi);

async function waitFor(jobId: string): Promise<Json> {
  const r = await api.get(`${RENDER}/${jobId}?waitMs=30000`);
  assert.is(r.status, 200, r.bytes.toString());
  if (r.body.status !== 'COMPLETED' && r.body.status !== 'FAILED') return waitFor(jobId);
  return r.body;
}

/** Creates a job on `route` (expecting 202) and waits for its end. */
async function imageJob(body: Json, route = IMAGES, query = ''): Promise<{ created: Json; job: Json }> {
  const created = await api.post(route + query, body);
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.headers.get('location'), `${RENDER}/${created.body.jobId}`);
  return { created: created.body, job: await waitFor(created.body.jobId) };
}

/** Renders to COMPLETED and downloads the output through its signed URL. */
async function renderImages(body: Json, route = IMAGES): Promise<{ created: Json; job: Json; bytes: Buffer; type: string; disposition: string }> {
  const { created, job } = await imageJob(body, route);
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  const download = await api.withKey(null).download(job.downloadUrl);
  assert.is(download.status, 200);
  return { created, job, bytes: download.bytes, type: download.headers.get('content-type') ?? '', disposition: download.headers.get('content-disposition') ?? '' };
}

/** Entry names of a ZIP as unzip lists them, and one entry's bytes. */
async function zipNames(zip: Buffer): Promise<string[]> {
  const file = path.join(work, `list-${Date.now()}.zip`);
  writeFileSync(file, zip);
  await run('unzip', ['-tq', file]);
  return (await run('unzip', ['-Z1', file])).toString().trim().split('\n');
}

async function zipEntry(zip: Buffer, name: string): Promise<Buffer> {
  const file = path.join(work, `entry-${Date.now()}.zip`);
  writeFileSync(file, zip);
  return run('unzip', ['-p', file, name]);
}

/** A page with text, a table and a coloured chart: the golden images and the comparison with poppler draw it. */
const GOLDEN_DOC: Json = {
  document: { type: 'pdf', filename: 'golden' },
  sections: [
    {
      type: 'flow',
      content: [
        { type: 'h1', text: 'Quarterly figures' },
        { type: 'text', text: 'Revenue grew in **every** region; the table and the chart show the *same* numbers.' },
        { type: 'table', caption: 'Revenue by region', headerRows: 1, rows: [['Region', 'Q1', 'Q2'], ['North', '120', '140'], ['South', '90', '115']] },
        { type: 'chart', chartType: 'bar', caption: 'Revenue', data: { labels: ['North', 'South'], series: [{ name: 'Q1', values: [120, 90] }, { name: 'Q2', values: [140, 115] }] } },
      ],
    },
  ],
};

// ---------------------------------------------------------------- one page: PNG and JPEG sizes

test('renders one A4 page as a PNG of round(inches × 150) pixels by default, named <filename>.png', async () => {
  const { created, job, bytes, type, disposition } = await renderImages({ config: pages(2), image: { pages: ['2'] } });
  assert.is(created.format, 'PNG');
  assert.is(created.filename, 'pages.png');
  assert.equal(created.image, { format: 'png', dpi: 150, pages: ['2'], selectedPages: null });
  assert.is(job.format, 'PNG');
  assert.is(job.pageCount, 2);
  assert.equal(job.image.selectedPages, [2]);
  assert.is(job.pdfCompliance, null);
  assert.is(type, 'image/png');
  assert.match(disposition, /filename="pages\.png"/);
  assert.equal(pngSize(bytes), { width: px(210, 150), height: px(297, 150) });
  const pixels = decodePng(bytes);
  assert.ok(inkShare(pixels) > 0.002, 'the page has text on it');
});

test('sizes a PNG by the requested dpi: A4 at 96 and at 36 dpi', async () => {
  for (const dpi of [96, 36]) {
    const { bytes } = await renderImages({ config: pages(1), image: { format: 'png', dpi } });
    assert.equal(pngSize(bytes), { width: px(210, dpi), height: px(297, dpi) }, `${dpi} dpi`);
    decodePng(bytes);
  }
});

test('renders JPEG pages whose SOF gives the size for the dpi, named <filename>.jpg with image/jpeg', async () => {
  for (const dpi of [150, 72]) {
    const { created, job, bytes, type, disposition } = await renderImages({ config: pages(1, { filename: 'photo' }), image: { format: 'jpeg', dpi } });
    assert.is(created.format, 'JPEG');
    assert.is(job.format, 'JPEG');
    assert.is(job.filename, 'photo.jpg');
    assert.is(type, 'image/jpeg');
    assert.match(disposition, /filename="photo\.jpg"/);
    assert.equal(jpegSize(bytes), { width: px(210, dpi), height: px(297, dpi), components: 3 }, `${dpi} dpi`);
    const pixels = await decodeJpeg(bytes);
    assert.equal([pixels.width, pixels.height], [px(210, dpi), px(297, dpi)]);
    assert.ok(inkShare(pixels) > 0.002, 'the page has text on it');
  }
});

test('follows the page size and orientation: A4 landscape, Letter, Letter landscape, A5', async () => {
  const cases: Array<[Json, number, number]> = [
    [{ orientation: 'landscape' }, px(297, 150), px(210, 150)],
    [{ size: 'Letter' }, inches(8.5, 150), inches(11, 150)],
    [{ size: 'Letter', orientation: 'landscape' }, inches(11, 150), inches(8.5, 150)],
    [{ size: 'A5' }, px(148, 150), px(210, 150)],
  ];
  for (const [document, width, height] of cases) {
    const { bytes } = await renderImages({ config: pages(1, document), image: { pages: ['1'] } });
    assert.equal(pngSize(bytes), { width, height }, JSON.stringify(document));
  }
});

test('draws the page as poppler does: the PNG is within 0.5 % mean grey difference of pdftoppm -r 150 of the same PDF', async () => {
  const config = GOLDEN_DOC;
  const pdf = await api.post(RENDER, { config });
  assert.is(pdf.status, 202);
  const pdfJob = await waitFor(pdf.body.jobId);
  const file = path.join(work, 'same.pdf');
  writeFileSync(file, (await api.withKey(null).download(pdfJob.downloadUrl)).bytes);
  await run('pdftoppm', ['-r', '150', '-gray', '-singlefile', file, path.join(work, 'same')]);
  const poppler = readPgm(readFileSync(path.join(work, 'same.pgm')));
  const { bytes } = await renderImages({ config, image: { dpi: 150 } });
  const ours = decodePng(bytes);
  const diff = meanDifference(ours, poppler);
  assert.ok(diff < 0.005, `mean grey difference ${(diff * 100).toFixed(2)} %`);
  // A blank page is also close to a mostly white one: the amount of ink must match poppler's within a tenth.
  assert.ok(Math.abs(inkShare(ours) - inkShare(poppler)) < 0.1 * inkShare(poppler), `ink ${inkShare(ours)} vs poppler ${inkShare(poppler)}`);
});

// ---------------------------------------------------------------- several pages: ZIP

test('puts several selected pages in a ZIP of page-<n>.png, each a valid PNG of the page size', async () => {
  const { created, job, bytes, type, disposition } = await renderImages({ config: pages(3, { filename: 'book' }), image: { pages: ['1', '3'] } });
  assert.is(created.filename, 'book.zip');
  assert.is(job.filename, 'book.zip');
  assert.is(job.format, 'PNG');
  assert.equal(job.image.selectedPages, [1, 3]);
  assert.is(type, 'application/zip');
  assert.match(disposition, /filename="book\.zip"/);
  assert.equal(await zipNames(bytes), ['page-1.png', 'page-3.png']);
  for (const name of ['page-1.png', 'page-3.png']) {
    const entry = await zipEntry(bytes, name);
    assert.equal(pngSize(entry), { width: px(210, 150), height: px(297, 150) }, name);
    assert.ok(inkShare(decodePng(entry)) > 0.002, `${name} has text on it`);
  }
});

test('selects each page once, in page order, across overlapping specs; JPEG pages are page-<n>.jpg', async () => {
  const { job, bytes } = await renderImages({ config: pages(4), image: { format: 'jpeg', dpi: 50, pages: ['3-', '2-3', '2'] } });
  assert.equal(job.image.selectedPages, [2, 3, 4]);
  assert.equal(await zipNames(bytes), ['page-2.jpg', 'page-3.jpg', 'page-4.jpg']);
  for (const name of ['page-2.jpg', 'page-3.jpg', 'page-4.jpg']) {
    const entry = await zipEntry(bytes, name);
    assert.equal(jpegSize(entry), { width: px(210, 50), height: px(297, 50), components: 3 }, name);
    await decodeJpeg(entry);
  }
});

test('draws jobs of 4 pages or more on two threads: every page-<n> of the ZIP is poppler\'s page n, the closest of all', async () => {
  // Page n carries n paragraphs, so pages differ in how much ink they have; the second thread draws pages 2, 4 and 6.
  const content: Json[] = [];
  for (let n = 1; n <= 6; n++) {
    if (n > 1) content.push({ type: 'pageBreak' });
    content.push({ type: 'h1', text: `Page ${n}` });
    for (let k = 0; k < n * 2; k++) content.push({ type: 'text', text: `Paragraph ${k + 1} of page ${n}: rendering documents to images keeps what the PDF shows, page after page, in order.` });
  }
  const config = { document: { type: 'pdf', filename: 'six' }, sections: [{ type: 'flow', content }] };
  const pdf = await api.post(RENDER, { config });
  const file = path.join(work, 'six.pdf');
  writeFileSync(file, (await api.withKey(null).download((await waitFor(pdf.body.jobId)).downloadUrl)).bytes);
  await run('pdftoppm', ['-r', '60', '-gray', file, path.join(work, 'six')]);
  const poppler = [1, 2, 3, 4, 5, 6].map((n) => readPgm(readFileSync(path.join(work, `six-${n}.pgm`))));
  const { job, bytes } = await renderImages({ config, image: { format: 'jpeg', dpi: 60 } });
  assert.equal(job.image.selectedPages, [1, 2, 3, 4, 5, 6]);
  assert.equal(await zipNames(bytes), [1, 2, 3, 4, 5, 6].map((n) => `page-${n}.jpg`));
  for (let n = 1; n <= 6; n++) {
    const ours = await decodeJpeg(await zipEntry(bytes, `page-${n}.jpg`));
    const diffs = poppler.map((p) => meanDifference(ours, p));
    const closest = diffs.indexOf(Math.min(...diffs)) + 1;
    assert.is(closest, n, `page-${n}.jpg looks most like poppler's page ${closest} (differences ${diffs.map((d) => (d * 100).toFixed(2)).join(', ')} %)`);
    assert.ok(diffs[n - 1]! < 0.02, `page-${n}.jpg differs from poppler's page ${n} by ${(diffs[n - 1]! * 100).toFixed(2)} %`);
  }
});

test('renders every page when image.pages is left out: one page gives the image, several a ZIP', async () => {
  const one = await renderImages({ config: pages(1) });
  assert.equal(one.created.image, { format: 'png', dpi: 150, pages: ['1-'], selectedPages: null });
  assert.is(one.type, 'image/png');
  assert.is(one.job.filename, 'pages.png');
  const three = await renderImages({ config: pages(3), image: { dpi: 40 } });
  assert.is(three.type, 'application/zip');
  assert.equal(await zipNames(three.bytes), ['page-1.png', 'page-2.png', 'page-3.png']);
});

test('rasterises the PDF rendering whatever document.type says', async () => {
  const { job, bytes } = await renderImages({ config: pages(1, { type: 'docx', filename: 'letter' }), image: { dpi: 60 } });
  assert.is(job.format, 'PNG');
  assert.is(job.filename, 'letter.png');
  assert.equal(pngSize(bytes), { width: px(210, 60), height: px(297, 60) });
});

// ---------------------------------------------------------------- goldens


test('matches the stored golden page image, PNG', async () => {
  const { bytes } = await renderImages({ config: GOLDEN_DOC, image: { format: 'png', dpi: 40 } });
  await compareWithGolden('page-image-png', bytes, { decode: async (b) => decodePng(b) });
});

test('matches the stored golden page image, JPEG', async () => {
  const { bytes } = await renderImages({ config: GOLDEN_DOC, image: { format: 'jpeg', dpi: 40 } });
  await compareWithGolden('page-image-jpeg', bytes, { ext: 'jpg', decode: decodeJpeg });
});

// ---------------------------------------------------------------- Extended Markdown

test('renders Extended Markdown to page images with POST /render/markdown/images', async () => {
  const content = '---\ndocument:\n  title: Images from Markdown\n  filename: md\n---\n\n# First\n\nSome text.\n\n::pagebreak\n\n# Second\n\nMore text.\n';
  const { created, job, bytes, type } = await renderImages({ content, document: { size: 'A5' }, image: { format: 'jpeg', dpi: 100 } }, MD_IMAGES);
  assert.is(created.format, 'JPEG');
  assert.is(job.pageCount, 2);
  assert.is(job.filename, 'md.zip');
  assert.is(type, 'application/zip');
  assert.equal(await zipNames(bytes), ['page-1.jpg', 'page-2.jpg']);
  for (const name of ['page-1.jpg', 'page-2.jpg']) {
    const entry = await zipEntry(bytes, name);
    assert.equal(jpegSize(entry), { width: px(148, 100), height: px(210, 100), components: 3 }, name);
    await decodeJpeg(entry);
  }
  const single = await renderImages({ content: '# Only page\n', image: { pages: ['1'] } }, MD_IMAGES);
  assert.is(single.type, 'image/png');
  assert.is(single.job.filename, 'document.png');
});

test('answers 400 naming image.dpi and image.format on the Markdown route too', async () => {
  const r = await api.post(MD_IMAGES, { content: '# x', image: { dpi: 601, format: 'tiff' } });
  assert.is(r.status, 400);
  assert.equal(r.body.errors.map((e: Json) => e.path).sort(), ['image.dpi', 'image.format']);
});

// ---------------------------------------------------------------- bad input

test('answers 400 VALIDATION_FAILED naming image.dpi for 35, 601 and a non-number', async () => {
  for (const dpi of [35, 601, '150', null]) {
    const r = await api.post(IMAGES, { config: pages(1), image: { dpi } });
    assert.is(r.status, 400, `dpi ${JSON.stringify(dpi)}`);
    assert.is(r.body.code, 'VALIDATION_FAILED');
    assert.equal(r.body.errors.map((e: Json) => e.path), ['image.dpi'], `dpi ${JSON.stringify(dpi)}`);
  }
});

test('answers 400 naming image.format for an unknown format and image.<field> for an unknown field', async () => {
  const bad = await api.post(IMAGES, { config: pages(1), image: { format: 'gif' } });
  assert.is(bad.status, 400);
  assert.equal(bad.body.errors, [{ path: 'image.format', message: 'must be one of "png", "jpeg"', code: 'INVALID_FIELD' }]);
  const unknown = await api.post(IMAGES, { config: pages(1), image: { quality: 80 } });
  assert.is(unknown.status, 400);
  assert.is(unknown.body.errors[0].path, 'image.quality');
});

test('answers 400 naming each malformed page spec and an empty page list', async () => {
  const r = await api.post(IMAGES, { config: pages(1), image: { pages: ['1', '0', '4-2', 'x'] } });
  assert.is(r.status, 400);
  assert.equal(r.body.errors.map((e: Json) => [e.path, e.code]), [['image.pages[1]', 'INVALID_PAGE_SPEC'], ['image.pages[2]', 'INVALID_PAGE_SPEC'], ['image.pages[3]', 'INVALID_PAGE_SPEC']]);
  const empty = await api.post(IMAGES, { config: pages(1), image: { pages: [] } });
  assert.is(empty.status, 400);
  assert.is(empty.body.errors[0].path, 'image.pages');
});

test('fails the job with PAGE_OUT_OF_RANGE naming the spec and the page count when a page is past the end', async () => {
  const { job } = await imageJob({ config: pages(2), image: { pages: ['1', '3-4'] } });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PAGE_OUT_OF_RANGE');
  assert.is(job.error, 'image.pages[1]: "3-4" is out of range; the document has 2 pages.');
  assert.is(job.downloadUrl, null);
});

test('fails the job with IMAGE_TOO_LARGE, with the figures, when the pages exceed 500 megapixels', async () => {
  const { job } = await imageJob({ config: pages(16), image: { dpi: 600 } });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'IMAGE_TOO_LARGE');
  assert.match(job.error, /^The 16 selected pages at 600 dpi would be 556\.9 megapixels in all; one render may produce at most 500: /);
  assert.match(job.error, /image\.pages/);
  assert.match(job.error, /image\.dpi/);
});

test('checks the document as POST /render does: invalid config and strict references answer 400', async () => {
  const invalid = await api.post(IMAGES, { config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h9' }] }] } });
  assert.is(invalid.status, 400);
  assert.match(invalid.body.errors[0].path, /^config\.sections\[0\]\.content\[0\]/);
  const broken = { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'See [there](#nowhere).' }] }] };
  assert.is((await api.post(`${IMAGES}?strict=true`, { config: broken })).status, 400);
  const lenient = await imageJob({ config: broken, image: { dpi: 40 } });
  assert.is(lenient.job.status, 'COMPLETED');
  assert.ok(lenient.job.warnings.length > 0, 'the broken reference is a warning without strict');
});

// ---------------------------------------------------------------- webhooks, credits, OpenAPI

test('posts job.completed with the image filename, and job.failed with the error', async () => {
  const hook = await receiver();
  try {
    const { job } = await imageJob({ config: pages(2, { filename: 'hooked' }), image: { format: 'jpeg', dpi: 40 }, webhook: { webhookUrl: hook.url } });
    assert.is(job.status, 'COMPLETED');
    await until(() => hook.calls.length === 1);
    assert.equal(hook.calls[0]!.body, { event: 'job.completed', jobType: 'render', jobId: job.jobId, status: 'COMPLETED', filename: 'hooked.zip', completedAt: job.completedAt });
    const failed = await imageJob({ config: pages(1), image: { pages: ['9'] }, webhook: { webhookUrl: hook.url } });
    await until(() => hook.calls.length === 2);
    assert.equal(hook.calls[1]!.body, { event: 'job.failed', jobType: 'render', jobId: failed.job.jobId, status: 'FAILED', error: failed.job.error, errorCode: 'PAGE_OUT_OF_RANGE', completedAt: failed.job.completedAt });
  } finally {
    await hook.close();
  }
});

test('charges 1 credit when an image render completes and nothing when it fails', async () => {
  const before = (await api.get('/api/v1/dev/credits')).body.balance as number;
  const { job } = await renderImages({ config: pages(1), image: { dpi: 40 } });
  assert.is(job.creditCost, 1);
  const failed = await imageJob({ config: pages(1), image: { pages: ['2'] } });
  assert.is(failed.job.status, 'FAILED');
  const credits = (await api.get('/api/v1/dev/credits')).body;
  assert.is(credits.balance, before - 1);
  const charge = credits.entries.find((e: Json) => e.jobId === job.jobId);
  assert.is(charge?.amount, -1);
  assert.is(charge?.action, 'render.png');
  assert.not.ok(credits.entries.some((e: Json) => e.jobId === failed.job.jobId));
});

test('documents both routes in the OpenAPI document, with the image settings and the download types', async () => {
  const doc = (await api.get('/api/v1/dev/openapi.json')).body;
  for (const route of [IMAGES, MD_IMAGES]) {
    const op = doc.paths[route]?.post;
    assert.ok(op?.responses?.['202'], `POST ${route} answers 202`);
    const image = op.requestBody.content['application/json'].schema.properties.image;
    assert.equal(image.properties.format.enum, ['png', 'jpeg']);
    assert.is(image.properties.dpi.minimum, 36);
    assert.is(image.properties.dpi.maximum, 600);
    assert.is(image.properties.pages.type, 'array');
  }
  const download = doc.paths[`${RENDER}/{jobId}/download`].get.responses['200'].content;
  for (const type of ['application/pdf', 'image/png', 'image/jpeg', 'application/zip']) assert.ok(download[type], type);
});

test.run();
