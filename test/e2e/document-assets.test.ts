// Saved documents' permanent images, another organization's view of them, and POST /render/document/{id}: the
// outputs read back by poppler (pdftotext, pdfimages), python-docx and a hand-parsed PNG header.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startServer, mainAndOtherOrg, OWNER_KEY, cleanup, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { redPng, renderAndDownload, uploadTempImage } from '../helpers/render-jobs.js';
import { pdfimagesList, popplerOutput } from '../helpers/poppler.js';
import { pythonDocx } from '../helpers/python-docx.js';
import { decodePng, inkShare, pngSize } from '../helpers/image-readers.js';
import { oneLine } from '../helpers/office-text.js';

type Json = Record<string, any>;

const API = '/api/v1/dev';
const DOCS = `${API}/documents`;
const PDF_MIME = 'application/pdf';
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const dataDir = tempDir();
let server: RunningServer;
let owner: ApiClient;
let otherOrg: ApiClient;
let png: Buffer;

test.before(async () => {
  const { otherKey } = await mainAndOtherOrg(dataDir);
  server = await startServer({ dataDir });
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  otherOrg = new ApiClient(server.baseUrl, otherKey);
  png = await redPng();
});

test.after(async () => {
  await server?.stop();
  cleanup(dataDir);
});

const patch = (api: ApiClient, p: string, body: unknown) => api.request('PATCH', p, body);
const del = (api: ApiClient, p: string) => api.request('DELETE', p);
const pdftext = async (bytes: Buffer) => oneLine(await popplerOutput('pdftotext', ['-enc', 'UTF-8'], bytes));

async function create(config: Json): Promise<Json> {
  const r = await owner.post(DOCS, { config });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

const withImage = (src: string): Json => ({ document: { type: 'pdf', filename: 'figure' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'With an image' }, { type: 'image', src, alt: 'A red box' }] }] });
const withImageVariable = (src: string): Json => ({ document: { type: 'pdf' }, variables: { logo: { type: 'image', src } }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'The logo:' }, { type: 'variableRef', name: 'logo' }] }] });
const assetIdOf = (src: string) => /^\/image\/([0-9a-f-]{36})$/.exec(src)?.[1];

// ---------------------------------------------------------------- permanent images

test('a temporary image saved in an image element and in an image variable becomes one /image/ asset serving its bytes', async () => {
  const temp = await uploadTempImage(owner, png, 'red.png');
  const a = await create(withImage(temp));
  const b = await create(withImageVariable(temp));
  const src = a.config.sections[0].content[1].src;
  assert.ok(assetIdOf(src), src);
  assert.is(b.config.variables.logo.src, src);
  for (const doc of [a, b]) {
    assert.not.match(JSON.stringify(doc.config), '/temp-image/');
    assert.not.match(JSON.stringify((await owner.get(`${DOCS}/${doc.id}`)).body.config), '/temp-image/');
  }
  const image = await owner.get(`${API}/images/${assetIdOf(src)}`);
  assert.is(image.status, 200);
  assert.is(image.headers.get('content-type'), 'image/png');
  assert.ok(image.bytes.equals(png), 'the asset serves the uploaded bytes');

  // While the asset exists, both documents render with the image drawn in the PDF.
  for (const doc of [a, b]) {
    const { bytes } = await renderAndDownload(owner, `${API}/render/document/${doc.id}`, {}, 'PDF', PDF_MIME);
    const images = await pdfimagesList(bytes);
    assert.ok(images.some((i) => i.width === 40 && i.height === 30), JSON.stringify(images));
  }

  // Deleting one user keeps the asset; deleting the last one deletes it.
  assert.is((await del(owner, `${DOCS}/${a.id}`)).status, 204);
  assert.is((await owner.get(`${API}/images/${assetIdOf(src)}`)).status, 200);
  assert.is((await del(owner, `${DOCS}/${b.id}`)).status, 204);
  assert.is((await owner.get(`${API}/images/${assetIdOf(src)}`)).status, 404);

  // A document naming the deleted image cannot be rendered or saved.
  const render = await owner.post(`${API}/render`, { config: withImage(src) });
  assert.is(render.status, 400, render.bytes.toString());
  assert.equal(render.body.errors.map((e: Json) => [e.path, e.code]), [['config.sections[0].content[1].src', 'IMAGE_NOT_FOUND']]);
  const save = await owner.post(DOCS, { config: withImageVariable(src) });
  assert.is(save.status, 400);
  assert.equal(save.body.errors.map((e: Json) => [e.path, e.code]), [['config.variables.logo.src', 'IMAGE_NOT_FOUND']]);

  // The temporary image, still alive, makes a new asset.
  const again = await create(withImage(temp));
  const fresh = again.config.sections[0].content[1].src;
  assert.ok(assetIdOf(fresh) && fresh !== src, fresh);
  assert.ok((await owner.get(`${API}/images/${assetIdOf(fresh)}`)).bytes.equals(png));
});

test('a change that drops the last use of an asset deletes it; a change keeping it keeps it', async () => {
  const temp = await uploadTempImage(owner, png, 'kept.png');
  const doc = await create(withImage(temp));
  const src = doc.config.sections[0].content[1].src;
  const url = `${API}/images/${assetIdOf(src)}`;
  const renamed = await patch(owner, `${DOCS}/${doc.id}`, { name: 'Renamed' });
  assert.is(renamed.status, 200);
  assert.is((await owner.get(url)).status, 200);
  // Markdown written back names the permanent image, so the asset stays.
  const md = await owner.get(`${DOCS}/${doc.id}/markdown`);
  assert.is(md.body.format, 'markdown');
  assert.match(md.body.markdown, src);
  assert.is((await patch(owner, `${DOCS}/${doc.id}/markdown`, { markdown: md.body.markdown })).status, 200);
  assert.is((await owner.get(url)).status, 200);
  const dropped = await patch(owner, `${DOCS}/${doc.id}`, { config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'No image now.' }] }] } });
  assert.is(dropped.status, 200, dropped.bytes.toString());
  assert.is(dropped.body.version, 4);
  assert.is((await owner.get(url)).status, 404);
});

// ---------------------------------------------------------------- tenancy

test("another organization gets 404 for a document, its Markdown, its image and its render, and lists none", async () => {
  const temp = await uploadTempImage(owner, png, 'private.png');
  const doc = await create(withImage(temp));
  const src = doc.config.sections[0].content[1].src;
  const one = `${DOCS}/${doc.id}`;
  const answers = {
    get: await otherOrg.get(one),
    patch: await patch(otherOrg, one, { name: 'Stolen' }),
    markdown: await otherOrg.get(`${one}/markdown`),
    patchMarkdown: await patch(otherOrg, `${one}/markdown`, { markdown: '# Stolen\n' }),
    delete: await del(otherOrg, one),
    image: await otherOrg.get(`${API}/images/${assetIdOf(src)}`),
    render: await otherOrg.post(`${API}/render/document/${doc.id}`, {}),
  };
  for (const [what, r] of Object.entries(answers)) {
    assert.is(r.status, 404, `${what}: ${r.bytes}`);
    assert.is(r.body.code, 'NOT_FOUND', what);
  }
  assert.is((await owner.get(`${API}/images/not-an-asset`)).status, 404);
  assert.is((await owner.get(`${API}/images/${temp.split('/').pop()}`)).status, 404, 'a temporary image is not an asset');
  const list = await otherOrg.get(DOCS);
  assert.equal(list.body, { items: [], nextCursor: null });
  // Its own renders and saves cannot name the other organization's images either.
  for (const config of [withImage(src), withImage(temp)]) {
    const render = await otherOrg.post(`${API}/render`, { config });
    assert.is(render.status, 400);
    assert.is(render.body.errors[0].code, 'IMAGE_NOT_FOUND');
    assert.is((await otherOrg.post(DOCS, { config })).status, 400);
  }
  const mine = await owner.get(one);
  assert.is(mine.body.version, 1);
  assert.is(mine.body.name, doc.name);
  assert.is((await owner.get(`${API}/images/${assetIdOf(src)}`)).status, 200);
});

// ---------------------------------------------------------------- render by id

const LETTER: Json = {
  document: { type: 'pdf', filename: 'letter', title: 'Letter' },
  variables: { client: 'Original Corp', city: 'Bern' },
  sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Letter' }, { type: 'text', text: 'Dear {{client}} in {{city}}, thank you.' }] }],
};

test("renders a saved document with the request's variables over its own", async () => {
  const doc = await create(LETTER);
  const url = `${API}/render/document/${doc.id}`;
  const plain = await renderAndDownload(owner, url, {}, 'PDF', PDF_MIME);
  assert.match(await pdftext(plain.bytes), 'Dear Original Corp in Bern, thank you.');
  const over = await renderAndDownload(owner, url, { variables: { client: 'Override Ltd' } }, 'PDF', PDF_MIME);
  const text = await pdftext(over.bytes);
  assert.match(text, 'Dear Override Ltd in Bern, thank you.');
  assert.not.match(text, 'Original Corp');
  assert.is(over.job.filename, 'letter.pdf');
  // The saved document is unchanged by a render's variables.
  assert.equal((await owner.get(`${DOCS}/${doc.id}`)).body.config, LETTER);
});

test('format DOCX renders the saved document as DOCX that python-docx reads', async () => {
  const doc = await create(LETTER);
  const { job, bytes } = await renderAndDownload(owner, `${API}/render/document/${doc.id}`, { format: 'DOCX', variables: { city: 'Basel' } }, 'DOCX', DOCX_MIME);
  assert.is(job.filename, 'letter.docx');
  const read = await pythonDocx(bytes);
  const texts = read.paragraphs.map((p: Json) => p.text);
  assert.ok(texts.includes('Dear Original Corp in Basel, thank you.'), JSON.stringify(texts));
  assert.ok(texts.includes('Letter'), JSON.stringify(texts));
  assert.is(read.core.title, 'Letter');
});

test('format PNG renders the first page as an A4 PNG at 150 dpi', async () => {
  const doc = await create(LETTER);
  const { job, bytes } = await renderAndDownload(owner, `${API}/render/document/${doc.id}`, { format: 'PNG' }, 'PNG', 'image/png');
  assert.is(job.filename, 'letter.png');
  assert.equal(pngSize(bytes), { width: Math.round((210 / 25.4) * 150), height: Math.round((297 / 25.4) * 150) });
  assert.ok(inkShare(decodePng(bytes)) > 0.001, 'the page has text on it');
  const small = await renderAndDownload(owner, `${API}/render/document/${doc.id}`, { format: 'PNG', image: { dpi: 72 } }, 'PNG', 'image/png');
  assert.equal(pngSize(small.bytes), { width: Math.round((210 / 25.4) * 72), height: Math.round((297 / 25.4) * 72) });
});

// A render of a record (filloutId) and its job's filloutId: test/e2e/forms-api.test.ts.
test('answers 404 for an unknown record (filloutId) or document and 400 for image options with PDF', async () => {
  const doc = await create(LETTER);
  const url = `${API}/render/document/${doc.id}`;
  const noRecord = await owner.post(url, { filloutId: 'fill-42' });
  assert.is(noRecord.status, 404, noRecord.bytes.toString());
  assert.equal(noRecord.body.errors.map((e: Json) => e.path), ['filloutId']);
  for (const id of [randomUUID(), 'not-a-document']) {
    const missing = await owner.post(`${API}/render/document/${id}`, {});
    assert.is(missing.status, 404, id);
    assert.is(missing.body.code, 'NOT_FOUND');
  }
  for (const body of [{ format: 'PDF', image: { dpi: 100 } }, { image: { dpi: 100 } }]) {
    const bad = await owner.post(url, body);
    assert.is(bad.status, 400, JSON.stringify(body));
    assert.equal(bad.body.errors.map((e: Json) => e.path), ['image']);
  }
  const unknownFormat = await owner.post(url, { format: 'TIFF' });
  assert.is(unknownFormat.status, 400);
});

test.run();
