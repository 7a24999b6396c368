// Images in reusable blocks' Markdown become permanent assets: stored as /image/ paths in every version, counted as
// used by the block alongside documents, deleted with the last user, drawn when a linked block renders (read back with
// pdfimages), and kept from another organization.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { useTenants } from '../helpers/tenants.js';
import type { ApiClient } from '../helpers/api-client.js';
import { redPng, renderAndDownload, uploadTempImage } from '../helpers/render-jobs.js';
import { pdfimagesList } from '../helpers/poppler.js';

type Json = Record<string, any>;

const API = '/api/v1/dev';
const BLOCKS = `${API}/reusable-blocks`;
const DOCS = `${API}/documents`;

let owner: ApiClient;
let otherOrg: ApiClient;
let png: Buffer;
useTenants(test, (started) => {
  owner = started.owner;
  otherOrg = started.other;
});
test.before(async () => {
  png = await redPng();
});

const del = (api: ApiClient, p: string) => api.request('DELETE', p);
const markdownWith = (src: string) => `Our logo:\n\n![A red box](${src})\n`;
const IMAGE_PATH = /\/image\/([0-9a-f-]{36})/;
const assetIn = (markdown: string): string | undefined => IMAGE_PATH.exec(markdown)?.[1];
const imageUrl = (assetId: string) => `${API}/images/${assetId}`;

async function createBlock(name: string, markdown: string): Promise<Json> {
  const r = await owner.post(BLOCKS, { name, title: name, markdown });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

test('a block created with an uploaded image stores its /image/ path, and the asset serves the PNG bytes', async () => {
  const temp = await uploadTempImage(owner, png, 'logo.png');
  const block = await createBlock('Logo block', markdownWith(temp));
  const markdown: string = block.versions[0].markdown;
  const assetId = assetIn(markdown);
  assert.ok(assetId, markdown);
  assert.is(markdown, markdownWith(`/image/${assetId}`));
  assert.not.match(markdown, '/temp-image/');
  assert.is((await owner.get(`${BLOCKS}/${block.id}`)).body.current.markdown, markdown);
  const image = await owner.get(imageUrl(assetId!));
  assert.is(image.status, 200);
  assert.is(image.headers.get('content-type'), 'image/png');
  assert.ok(image.bytes.equals(png), 'the asset serves the uploaded bytes');
  // Another organization can read neither the asset nor the block.
  for (const r of [await otherOrg.get(imageUrl(assetId!)), await otherOrg.get(`${BLOCKS}/${block.id}`)]) {
    assert.is(r.status, 404, r.bytes.toString());
    assert.is(r.body.code, 'NOT_FOUND');
  }
});

test('a missing temporary image is refused with 400 naming its path, on create and on a new version', async () => {
  const missing = `/temp-image/${randomUUID()}`;
  const created = await owner.post(BLOCKS, { name: 'Broken', title: 'Broken', markdown: markdownWith(missing) });
  assert.is(created.status, 400, created.bytes.toString());
  assert.is(created.body.code, 'VALIDATION_FAILED');
  assert.equal(created.body.errors.map((e: Json) => e.code), ['IMAGE_NOT_FOUND']);
  assert.match(created.body.errors[0].message, missing);
  assert.match(created.body.detail, missing);
  const block = await createBlock('Fine so far', 'No image yet.\n');
  const version = await owner.post(`${BLOCKS}/${block.id}/versions`, { title: 'v2', markdown: markdownWith(missing) });
  assert.is(version.status, 400, version.bytes.toString());
  assert.match(version.body.errors[0].message, missing);
  assert.is((await owner.get(`${BLOCKS}/${block.id}`)).body.currentVersion, 1);
  // Another organization's temporary image is missing for this one.
  const theirs = await uploadTempImage(otherOrg, png, 'theirs.png');
  const foreign = await owner.post(BLOCKS, { name: 'Foreign', title: 'Foreign', markdown: markdownWith(theirs) });
  assert.is(foreign.status, 400);
  assert.match(foreign.body.errors[0].message, theirs);
});

test('an asset shared by a document and a block lives while either uses it and goes with the last user', async () => {
  const temp = await uploadTempImage(owner, png, 'shared.png');
  const doc = await owner.post(DOCS, { config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'image', src: temp, alt: 'Red' }] }] } });
  assert.is(doc.status, 201, doc.bytes.toString());
  const docSrc: string = doc.body.config.sections[0].content[0].src;
  const block = await createBlock('Shared logo', markdownWith(temp));
  const assetId = assetIn(block.versions[0].markdown)!;
  assert.is(docSrc, `/image/${assetId}`, 'the same temporary image makes one asset');

  // Deleting the document keeps the asset: the block still uses it.
  assert.is((await del(owner, `${DOCS}/${doc.body.id}`)).status, 204);
  assert.is((await owner.get(imageUrl(assetId))).status, 200);

  // A later version without the image keeps it too: version 1 stays restorable.
  const v2 = await owner.post(`${BLOCKS}/${block.id}/versions`, { title: 'v2', markdown: 'Text only.\n' });
  assert.is(v2.status, 201, v2.bytes.toString());
  assert.is((await owner.get(imageUrl(assetId))).status, 200);
  const restored = await owner.post(`${BLOCKS}/${block.id}/versions/1/restore`, {});
  assert.is(restored.status, 201, restored.bytes.toString());
  assert.is(restored.body.current.markdown, markdownWith(`/image/${assetId}`));
  assert.is(restored.body.current.restoredFromVersion, 1);

  // A document saved with the block's /image/ path shares it; deleting the block then keeps it for the document.
  const second = await owner.post(DOCS, { config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'image', src: `/image/${assetId}`, alt: 'Red' }] }] } });
  assert.is(second.status, 201, second.bytes.toString());
  assert.is((await del(owner, `${BLOCKS}/${block.id}`)).status, 204);
  assert.is((await owner.get(imageUrl(assetId))).status, 200);
  assert.is((await del(owner, `${DOCS}/${second.body.id}`)).status, 204);
  assert.is((await owner.get(imageUrl(assetId))).status, 404);
});

test('the asset goes when the block, its last user, is deleted', async () => {
  const block = await createBlock('Short-lived', markdownWith(await uploadTempImage(owner, png, 'gone.png')));
  const assetId = assetIn(block.versions[0].markdown)!;
  assert.is((await owner.get(imageUrl(assetId))).status, 200);
  assert.is((await del(owner, `${BLOCKS}/${block.id}`)).status, 204);
  assert.is((await owner.get(imageUrl(assetId))).status, 404);
  // A block naming the deleted asset cannot be saved.
  const again = await owner.post(BLOCKS, { name: 'Stale', title: 'Stale', markdown: markdownWith(`/image/${assetId}`) });
  assert.is(again.status, 400, again.bytes.toString());
  assert.equal(again.body.errors.map((e: Json) => e.code), ['IMAGE_NOT_FOUND']);
});

test('a document with a snapshot of the block keeps its image when the block is deleted', async () => {
  const block = await createBlock('Snapshot logo', markdownWith(await uploadTempImage(owner, png, 'snap.png')));
  const assetId = assetIn(block.versions[0].markdown)!;
  assert.is((await owner.post(`${BLOCKS}/${block.id}/status`, { status: 'ACTIVE' })).status, 200);
  const doc = await owner.post(DOCS, { config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'blockRef', blockId: block.id, mode: 'snapshot' }] }] } });
  assert.is(doc.status, 201, doc.bytes.toString());
  assert.match(JSON.stringify(doc.body.config), `/image/${assetId}`);
  assert.is((await del(owner, `${BLOCKS}/${block.id}`)).status, 204);
  assert.is((await owner.get(imageUrl(assetId))).status, 200);
  assert.is((await del(owner, `${DOCS}/${doc.body.id}`)).status, 204);
  assert.is((await owner.get(imageUrl(assetId))).status, 404);
});

test('a linked block with an uploaded image renders with the image drawn in the PDF', async () => {
  const block = await createBlock('Rendered logo', markdownWith(await uploadTempImage(owner, png, 'render.png')));
  const active = await owner.post(`${BLOCKS}/${block.id}/status`, { status: 'ACTIVE' });
  assert.is(active.status, 200, active.bytes.toString());
  const config = { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'blockRef', blockId: block.id, mode: 'linked' }] }] };
  const { job, bytes } = await renderAndDownload(owner, `${API}/render`, { config }, 'PDF', 'application/pdf');
  assert.is(job.status, 'COMPLETED');
  const images = await pdfimagesList(bytes);
  assert.ok(images.some((i) => i.width === 40 && i.height === 30), JSON.stringify(images));
});

test.run();
