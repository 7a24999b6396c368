// Templates through the HTTP API, browsing side: the catalog (listing, paging, read-only, previews and sample PDFs), the
// legacy bare list, roles (members read, owners and admins write) and tenancy (another organization's templates are 404).
// Workspace templates' content, copies and documents made from them: templates-workspace.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/quire-server.js';
import { useTenants, type Tenants } from '../helpers/tenants.js';
import { decodePng, inkShare, pngSize } from '../helpers/image-readers.js';
import { pdfinfoPageSizes, popplerOutput } from '../helpers/poppler.js';
import { oneLine } from '../helpers/office-text.js';
import type { ApiResponse } from '../helpers/api-client.js';

const TEMPLATES = '/api/v1/dev/templates';
/** Version 5 layout: the version nibble is 5, the variant bits 10. */
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CATALOG_SLUGS = (JSON.parse(readFileSync(path.join(ROOT, 'catalog/templates/index.json'), 'utf8')) as Array<{ slug: string }>).map((t) => t.slug);
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let t: Tenants;
useTenants(test, (started) => (t = started));

const patch = (api: Tenants['owner'], p: string, body: unknown) => api.request('PATCH', p, body);
const del = (api: Tenants['owner'], p: string) => api.request('DELETE', p);

async function catalog(): Promise<any[]> {
  const r = await t.owner.get(`${TEMPLATES}?scope=catalog&limit=200`);
  assert.is(r.status, 200, r.bytes.toString());
  return r.body.items;
}

async function catalogId(slug: string): Promise<string> {
  const found = (await catalog()).find((c) => c.slug === slug);
  assert.ok(found, `${slug} is in the catalog`);
  return found.id;
}

async function createWorkspace(name: string, api = t.owner): Promise<any> {
  const r = await api.post(TEMPLATES, { name, markdown: `# ${name}\n\nDear {{customer}},\n` });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

test('lists the catalog: at least twelve browse-only templates with stable version-5 ids, preview URLs and no content', async () => {
  const items = await catalog();
  assert.ok(items.length >= 12, `${items.length} catalog templates`);
  assert.equal(items.map((i) => i.slug).sort(), [...CATALOG_SLUGS].sort());
  for (const i of items) {
    assert.match(i.id, UUID_V5, i.slug);
    assert.is(i.scope, 'catalog');
    assert.is(i.productive, false, `${i.slug} is browse-only`);
    assert.is(i.format, 'markdown');
    assert.ok(i.name && i.category && i.description, `${i.slug} has a name, category and description`);
    assert.match(i.stylePresetId, /^system:/);
    assert.ok(i.previewImage.endsWith(`${TEMPLATES}/${i.id}/preview.png`), i.previewImage);
    assert.ok(i.pdfUrl.endsWith(`${TEMPLATES}/${i.id}/sample.pdf`), i.pdfUrl);
    assert.is(i.markdown, undefined, 'a summary leaves the Markdown out');
    assert.is(i.config, undefined, 'a summary leaves the config out');
  }
  assert.is(new Set(items.map((i) => i.id)).size, items.length, 'ids are unique');
  // The same ids on every listing, and the member's.
  assert.equal((await t.member.get(`${TEMPLATES}?scope=catalog&limit=200`)).body.items.map((i: any) => i.id), items.map((i) => i.id));
});

test('lists the workspace by default, and answers 400 VALIDATION_FAILED for a scope other than workspace or catalog', async () => {
  const mine = await createWorkspace('Default scope');
  const r = await t.owner.get(TEMPLATES);
  assert.is(r.status, 200);
  assert.ok(r.body.items.every((i: any) => i.scope === 'workspace'));
  assert.ok(r.body.items.some((i: any) => i.id === mine.id));
  assert.equal((await t.owner.get(`${TEMPLATES}?scope=workspace`)).body, r.body);
  const bad = await t.owner.get(`${TEMPLATES}?scope=all`);
  assert.is(bad.status, 400);
  assert.is(bad.body.code, 'VALIDATION_FAILED');
  assert.is(bad.body.errors[0].path, 'query.scope');
});

test('pages the catalog with limit and nextCursor until nextCursor is null, each template once', async () => {
  const all = (await catalog()).map((i) => i.id);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: ApiResponse = await t.owner.get(`${TEMPLATES}?scope=catalog&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(r.status, 200, r.bytes.toString());
    assert.ok(r.body.items.length <= 5 && r.body.items.length > 0);
    seen.push(...r.body.items.map((i: any) => i.id));
    cursor = r.body.nextCursor;
    pages++;
  } while (cursor !== null);
  assert.equal(seen, all);
  assert.is(pages, Math.ceil(all.length / 5));
});

test('answers 400 VALIDATION_FAILED for a cursor the list did not give and for a limit outside 1 to 200', async () => {
  for (const cursor of ['not-a-cursor', Buffer.from('9999').toString('base64url'), Buffer.from('-1').toString('base64url')]) {
    const r = await t.owner.get(`${TEMPLATES}?scope=catalog&cursor=${cursor}`);
    assert.is(r.status, 400, cursor);
    assert.is(r.body.code, 'VALIDATION_FAILED');
    assert.is(r.body.errors[0].path, 'query.cursor');
  }
  for (const limit of ['0', '201', 'ten']) assert.is((await t.owner.get(`${TEMPLATES}?scope=catalog&limit=${limit}`)).status, 400, limit);
});

test('gives a catalog template whole by its id, at /{id} and /{id}/markdown: its shipped Markdown and the config it parses to', async () => {
  const id = await catalogId('invoice');
  const r = await t.member.get(`${TEMPLATES}/${id}`);
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.slug, 'invoice');
  assert.is(r.body.scope, 'catalog');
  assert.is(r.body.markdown, readFileSync(path.join(ROOT, 'catalog/templates/invoice.md'), 'utf8'));
  assert.ok(r.body.config.sections.length > 0);
  assert.ok(JSON.stringify(r.body.config.variables).includes('INV-2026-0142'), 'the config keeps the sample variables');
  assert.is(r.body.warning, undefined);
  assert.equal((await t.member.get(`${TEMPLATES}/${id}/markdown`)).body, r.body);
  assert.is((await t.member.get(`${TEMPLATES}/00000000-0000-5000-8000-000000000000`)).status, 404);
  assert.is((await t.member.get(`${TEMPLATES}/not-an-id`)).status, 404);
});

test('catalog templates are read-only: PATCH and DELETE answer 403 and the template stays as it was', async () => {
  const id = await catalogId('nda');
  const before = (await t.owner.get(`${TEMPLATES}/${id}`)).body;
  const changed = await patch(t.owner, `${TEMPLATES}/${id}`, { name: 'My NDA' });
  assert.is(changed.status, 403);
  assert.is(changed.body.code, 'FORBIDDEN');
  assert.match(changed.body.detail, `/templates/${id}/copy`);
  const deleted = await del(t.owner, `${TEMPLATES}/${id}`);
  assert.is(deleted.status, 403);
  assert.is(deleted.body.code, 'FORBIDDEN');
  assert.equal((await t.owner.get(`${TEMPLATES}/${id}`)).body, before);
});

test("serves a catalog template's page 1 as a PNG without an API key, rendered on the first request and kept in the data dir", async () => {
  const invoice = (await catalog()).find((c) => c.slug === 'invoice');
  const first = await t.owner.download(invoice.previewImage);
  assert.is(first.status, 200, first.bytes.toString().slice(0, 300));
  assert.is(first.headers.get('content-type'), 'image/png');
  assert.ok(first.bytes.subarray(0, 8).equals(PNG_MAGIC), 'PNG signature');
  // A4 at the preview's 72 dpi: 595 × 842 points are as many pixels (within rounding).
  const { width, height } = pngSize(first.bytes);
  assert.ok(Math.abs(width - 595) <= 1 && Math.abs(height - 842) <= 1, `${width} × ${height}`);
  assert.ok(inkShare(decodePng(first.bytes)) > 0.01, 'the page is drawn, not blank');
  const cached = readdirSync(path.join(t.server.dataDir, 'catalog-previews'));
  assert.ok(cached.some((f) => f.startsWith('invoice-') && f.endsWith('.png')), cached.join(', '));
  const again = await t.owner.download(invoice.previewImage);
  assert.ok(again.bytes.equals(first.bytes), 'the second request gets the kept file');

  // A landscape template gives a landscape preview.
  const certificate = (await catalog()).find((c) => c.slug === 'certificate');
  const landscape = pngSize((await t.owner.download(certificate.previewImage)).bytes);
  assert.ok(landscape.width > landscape.height, `${landscape.width} × ${landscape.height}`);
});

test('serves a catalog template rendered with its sample variables as a PDF without an API key', async () => {
  const receipt = (await catalog()).find((c) => c.slug === 'receipt');
  const r = await t.owner.download(receipt.pdfUrl);
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'application/pdf');
  assert.is(r.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  const text = oneLine(await popplerOutput('pdftotext', ['-enc', 'UTF-8'], r.bytes));
  for (const sample of ['R2-0093-1127', 'The Corner Bookshop', '£52.49']) assert.ok(text.includes(sample), `"${sample}" in ${text.slice(0, 500)}`);
  // The receipt is A5: 420 × 595 points.
  const [page] = await pdfinfoPageSizes(r.bytes);
  assert.ok(Math.abs(page!.width - 419.53) < 1 && Math.abs(page!.height - 595.28) < 1, JSON.stringify(page));
  assert.ok(readdirSync(path.join(t.server.dataDir, 'catalog-previews')).some((f) => f.startsWith('receipt-') && f.endsWith('.pdf')));
});

test('answers 404 for previews of a workspace template and of an unknown id', async () => {
  const mine = await createWorkspace('No preview');
  assert.is(mine.previewImage, undefined);
  assert.is(mine.pdfUrl, undefined);
  for (const id of [mine.id, '00000000-0000-5000-8000-000000000000']) {
    for (const file of ['preview.png', 'sample.pdf']) {
      const r = await t.owner.withKey(null).get(`${TEMPLATES}/${id}/${file}`);
      assert.is(r.status, 404, `${id}/${file}`);
      assert.is(r.body.code, 'NOT_FOUND');
    }
  }
});

test("the legacy GET /templates/markdown answers a bare array of the organization's whole workspace templates, marked deprecated", async () => {
  const mine = await createWorkspace('Legacy listed');
  const r = await t.member.get(`${TEMPLATES}/markdown`);
  assert.is(r.status, 200);
  assert.is(r.headers.get('deprecation'), 'true');
  assert.match(r.headers.get('link') ?? '', `<${TEMPLATES}>; rel="successor-version"`);
  assert.ok(Array.isArray(r.body), 'a bare array');
  const found = r.body.find((x: any) => x.id === mine.id);
  assert.equal(found, mine, 'whole templates, with markdown, config and version');
  assert.ok(r.body.every((x: any) => x.scope === 'workspace'), 'no catalog templates');
  assert.is(r.body.length, (await t.owner.get(`${TEMPLATES}?limit=200`)).body.items.length);

  const doc = (await t.owner.withKey(null).get('/api/v1/dev/openapi.json')).body;
  assert.is(doc.paths[`${TEMPLATES}/markdown`].get.deprecated, true);
  assert.is(doc.paths[TEMPLATES].get.deprecated, undefined, 'the paged list is not deprecated');
  assert.is(doc.paths[`${TEMPLATES}/{templateId}/markdown`].get.deprecated, undefined);
});

test('members read templates (200) but creating, changing, copying and deleting answer 403; admins may do all of it', async () => {
  const mine = await createWorkspace('Owned by the owner');
  const invoice = await catalogId('invoice');
  assert.is((await t.member.get(TEMPLATES)).status, 200);
  assert.is((await t.member.get(`${TEMPLATES}/${mine.id}`)).status, 200);
  assert.is((await t.member.get(`${TEMPLATES}/${mine.id}/markdown`)).status, 200);
  const refused = [
    await t.member.post(TEMPLATES, { name: 'By a member', markdown: '# Hi\n' }),
    await patch(t.member, `${TEMPLATES}/${mine.id}`, { name: 'Renamed by a member' }),
    await t.member.post(`${TEMPLATES}/${mine.id}/copy`, {}),
    await t.member.post(`${TEMPLATES}/${invoice}/copy`, {}),
    await del(t.member, `${TEMPLATES}/${mine.id}`),
  ];
  for (const r of refused) {
    assert.is(r.status, 403, r.bytes.toString());
    assert.is(r.body.code, 'FORBIDDEN');
  }
  assert.equal((await t.owner.get(`${TEMPLATES}/${mine.id}`)).body, mine, 'nothing changed');
  assert.not.ok((await t.owner.get(`${TEMPLATES}?limit=200`)).body.items.some((i: any) => i.name === 'By a member'));

  // A member may still create a document from a productive template.
  assert.is((await t.member.post('/api/v1/dev/documents', { templateId: mine.id })).status, 201);

  const made = await createWorkspace('By an admin', t.admin);
  const renamed = await patch(t.admin, `${TEMPLATES}/${made.id}`, { name: 'Renamed by an admin' });
  assert.is(renamed.status, 200);
  const copied = await t.admin.post(`${TEMPLATES}/${invoice}/copy`, {});
  assert.is(copied.status, 201);
  assert.is((await del(t.admin, `${TEMPLATES}/${made.id}`)).status, 204);
  assert.is((await del(t.admin, `${TEMPLATES}/${copied.body.id}`)).status, 204);
});

test("another organization's workspace templates answer 404 to read, change, delete, copy and document creation, and are in none of its lists", async () => {
  const mine = await createWorkspace('Main only');
  const r = [
    await t.other.get(`${TEMPLATES}/${mine.id}`),
    await t.other.get(`${TEMPLATES}/${mine.id}/markdown`),
    await patch(t.other, `${TEMPLATES}/${mine.id}`, { name: 'Taken over' }),
    await patch(t.other, `${TEMPLATES}/${mine.id}`, { productive: false }),
    await del(t.other, `${TEMPLATES}/${mine.id}`),
    await t.other.post(`${TEMPLATES}/${mine.id}/copy`, {}),
    await t.other.post('/api/v1/dev/documents', { templateId: mine.id }),
  ];
  for (const x of r) {
    assert.is(x.status, 404, x.bytes.toString());
    assert.is(x.body.code, 'NOT_FOUND');
  }
  assert.not.ok((await t.other.get(`${TEMPLATES}?limit=200`)).body.items.some((i: any) => i.id === mine.id));
  assert.not.ok((await t.other.get(`${TEMPLATES}/markdown`)).body.some((i: any) => i.id === mine.id));
  assert.equal((await t.owner.get(`${TEMPLATES}/${mine.id}`)).body, mine, 'still there, unchanged');

  // The catalog is everyone's: the other organization sees the same catalog and may copy from it.
  const invoice = await catalogId('invoice');
  assert.is((await t.other.get(`${TEMPLATES}/${invoice}`)).status, 200);
  const copy = await t.other.post(`${TEMPLATES}/${invoice}/copy`, {});
  assert.is(copy.status, 201);
  assert.is((await t.owner.get(`${TEMPLATES}/${copy.body.id}`)).status, 404, "the other organization's copy is its own");
});

test.run();
