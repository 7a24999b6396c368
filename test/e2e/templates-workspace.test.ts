// Workspace templates through the HTTP API: made from Markdown or document JSON (json_fallback when the Markdown cannot
// carry it), slugs, versions and If-Match, copies, documents made from productive templates (TEMPLATE_NOT_PRODUCTIVE
// otherwise), and temporary images that become permanent assets shared with the documents made from the template.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { useTenants, type Tenants } from '../helpers/tenants.js';
import type { ApiClient } from '../helpers/api-client.js';
import { renderAndDownload, uploadRedPng } from '../helpers/render-jobs.js';
import { pdfimagesList, popplerOutput } from '../helpers/poppler.js';
import { oneLine } from '../helpers/office-text.js';
import { pngSize } from '../helpers/image-readers.js';

const API = '/api/v1/dev';
const TEMPLATES = `${API}/templates`;
const DOCUMENTS = `${API}/documents`;

let t: Tenants;
useTenants(test, (started) => (t = started));

const patch = (api: ApiClient, p: string, body: unknown, headers?: Record<string, string>) => api.request('PATCH', p, body, headers);
const del = (api: ApiClient, p: string) => api.request('DELETE', p);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function create(body: Record<string, unknown>): Promise<any> {
  const r = await t.owner.post(TEMPLATES, body);
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

async function catalogId(slug: string): Promise<string> {
  const found = (await t.owner.get(`${TEMPLATES}?scope=catalog&limit=200`)).body.items.find((c: any) => c.slug === slug);
  assert.ok(found, `${slug} is in the catalog`);
  return found.id;
}

/** Renders a saved document to PDF and gives its text on one line. */
async function pdfOf(documentId: string): Promise<{ bytes: Buffer; text: string }> {
  const { bytes } = await renderAndDownload(t.owner, `${API}/render/document/${documentId}`, {}, 'PDF', 'application/pdf');
  return { bytes, text: oneLine(await popplerOutput('pdftotext', ['-enc', 'UTF-8'], bytes)) };
}

const LETTER = `---
document:
  title: Welcome letter
variables:
  customer: Ada Lovelace
---

# Welcome, {{customer}}

We are glad to have you with us.

- Your account is ready
- Your first invoice follows
`;

const LETTER_JSON = {
  document: { type: 'pdf', title: 'Order confirmation' },
  variables: { order: 'ORD-7731' },
  sections: [
    {
      type: 'flow',
      content: [
        { type: 'h1', text: 'Order {{order}}' },
        { type: 'text', text: 'Thank you for your **order**.' },
        { type: 'table', headerRows: 1, rows: [['Item', 'Qty'], ['Teapot', '2']] },
      ],
    },
  ],
};

test('creates a workspace template from Markdown (201, Location, version 1, productive) and reads it back with the config it parses to', async () => {
  const r = await t.owner.post(TEMPLATES, { name: 'Welcome letter', markdown: LETTER, category: 'general', description: 'Sent to new customers' });
  assert.is(r.status, 201, r.bytes.toString());
  const tpl = r.body;
  assert.match(tpl.id, /^[0-9a-f-]{36}$/);
  assert.is(r.headers.get('location'), `${TEMPLATES}/${tpl.id}`);
  assert.is(tpl.scope, 'workspace');
  assert.is(tpl.productive, true);
  assert.is(tpl.format, 'markdown');
  assert.is(tpl.markdown, LETTER);
  assert.is(tpl.slug, 'welcome-letter');
  assert.is(tpl.category, 'general');
  assert.is(tpl.description, 'Sent to new customers');
  assert.is(tpl.stylePresetId, null);
  assert.is(tpl.version, 1);
  assert.is(tpl.warning, undefined);
  assert.is(tpl.createdAt, tpl.updatedAt);
  assert.is(tpl.config.document.title, 'Welcome letter');
  assert.equal(tpl.config.variables, { customer: 'Ada Lovelace' });
  assert.equal(tpl.config.sections[0].content.map((e: any) => e.type), ['h1', 'text', 'list']);
  assert.equal((await t.member.get(`${TEMPLATES}/${tpl.id}`)).body, tpl);
  assert.equal((await t.member.get(`${TEMPLATES}/${tpl.id}/markdown`)).body, tpl);
  const listed = (await t.member.get(`${TEMPLATES}?limit=200`)).body.items.find((i: any) => i.id === tpl.id);
  const { markdown: _m, config: _c, version: _v, ...summary } = tpl;
  assert.equal(listed, summary);
});

test('refuses Markdown that does not parse, both or neither of markdown and config, and an unknown style preset, with 400', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: 'Broken', markdown: '---\ndocument: [\n---\n# x\n' }, 'VALIDATION_FAILED'],
    [{ name: 'Both', markdown: '# x\n', config: LETTER_JSON }, 'VALIDATION_FAILED'],
    [{ name: 'Neither' }, 'VALIDATION_FAILED'],
    [{ name: 'Bad JSON', config: { sections: [{ type: 'flow', content: [{ type: 'h9', text: 'x' }] }] } }, 'VALIDATION_FAILED'],
  ];
  for (const [body, code] of cases) {
    const r = await t.owner.post(TEMPLATES, body);
    assert.is(r.status, 400, `${body.name}: ${r.bytes.toString()}`);
    assert.is(r.body.code, code);
  }
  const preset = await t.owner.post(TEMPLATES, { name: 'No such preset', markdown: '# x\n', stylePresetId: 'system:no-such-style' });
  assert.is(preset.status, 400, preset.bytes.toString());
  assert.is(preset.body.errors[0].path, 'stylePresetId');
  assert.not.ok((await t.owner.get(`${TEMPLATES}?limit=200`)).body.items.some((i: any) => ['Broken', 'Both', 'Neither', 'Bad JSON', 'No such preset'].includes(i.name)));
});

test('creates a template from document JSON and gives it back as Markdown that reads back to the same document', async () => {
  const tpl = await create({ name: 'Order confirmation', config: LETTER_JSON, stylePresetId: 'system:invoice' });
  assert.is(tpl.format, 'markdown');
  assert.is(tpl.warning, undefined);
  assert.equal(tpl.config, LETTER_JSON, 'the config is kept as sent');
  assert.is(tpl.stylePresetId, 'system:invoice');
  assert.match(tpl.markdown, /^# Order \{\{order\}\}$/m);
  assert.match(tpl.markdown, /^Thank you for your \*\*order\*\*\.$/m);
  // The Markdown, saved as a template of its own, parses to the document the JSON was.
  const again = await create({ name: 'From its Markdown', markdown: tpl.markdown });
  assert.equal(again.config.sections, LETTER_JSON.sections);
  assert.equal(again.config.variables, LETTER_JSON.variables);
  assert.is(again.config.document.title, LETTER_JSON.document.title);
});

test('keeps JSON whose Markdown would pass the 1 MiB Markdown limit as json_fallback with a warning, and documents made from it get that JSON', async () => {
  // Six listings of 199,000 characters: valid document JSON (a listing may have 200,000), but over 1 MiB as Markdown.
  // The Markdown serializer writes every valid document (see document/markdown/serialize.ts); this is the one
  // limit of the Markdown that document JSON does not share.
  const code = (n: number) => `${String(n).repeat(10)}\n`.repeat(18_090).slice(0, 199_000);
  const config = { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [1, 2, 3, 4, 5, 6].map((n) => ({ type: 'code', code: code(n) })) }] };
  const tpl = await create({ name: 'Long listings', config });
  assert.is(tpl.format, 'json_fallback');
  assert.is(tpl.markdown, '');
  assert.match(tpl.warning, /1048576 bytes/);
  assert.match(tpl.warning, /kept as JSON/);
  assert.equal(tpl.config, config);
  const read = (await t.owner.get(`${TEMPLATES}/${tpl.id}/markdown`)).body;
  assert.is(read.format, 'json_fallback');
  assert.is(read.warning, tpl.warning);
  const listed = (await t.owner.get(`${TEMPLATES}?limit=200`)).body.items.find((i: any) => i.id === tpl.id);
  assert.is(listed.format, 'json_fallback');

  const doc = await t.owner.post(DOCUMENTS, { templateId: tpl.id });
  assert.is(doc.status, 201, doc.bytes.toString());
  assert.equal(doc.body.config.sections[0].content.map((e: any) => e.code), config.sections[0]!.content.map((e) => e.code));

  // Replaced by Markdown, it is a Markdown template again and the warning goes.
  const fixed = await patch(t.owner, `${TEMPLATES}/${tpl.id}`, { markdown: '# Short now\n' });
  assert.is(fixed.status, 200, fixed.bytes.toString());
  assert.is(fixed.body.format, 'markdown');
  assert.is(fixed.body.warning, undefined);
});

test('makes the slug from the name, adds -2 and -3 for more templates of that name, and answers 409 CONFLICT for a slug already taken', async () => {
  const first = await create({ name: 'Årsrapport: Q4 / 2026!', markdown: '# One\n' });
  assert.is(first.slug, 'arsrapport-q4-2026');
  assert.is((await create({ name: 'Årsrapport: Q4 / 2026!', markdown: '# Two\n' })).slug, 'arsrapport-q4-2026-2');
  assert.is((await create({ name: 'Arsrapport Q4 2026', markdown: '# Three\n' })).slug, 'arsrapport-q4-2026-3');
  const own = await create({ name: 'Chosen', slug: 'my-chosen-slug', markdown: '# Four\n' });
  assert.is(own.slug, 'my-chosen-slug');
  const taken = await t.owner.post(TEMPLATES, { name: 'Another', slug: 'my-chosen-slug', markdown: '# Five\n' });
  assert.is(taken.status, 409);
  assert.is(taken.body.code, 'CONFLICT');
  assert.match(taken.body.detail, 'my-chosen-slug');
  const renamed = await patch(t.owner, `${TEMPLATES}/${first.id}`, { slug: 'my-chosen-slug' });
  assert.is(renamed.status, 409);
  assert.is((await t.owner.get(`${TEMPLATES}/${first.id}`)).body.slug, 'arsrapport-q4-2026');
  // Keeping its own slug is no conflict; an invalid slug is a 400.
  assert.is((await patch(t.owner, `${TEMPLATES}/${own.id}`, { slug: 'my-chosen-slug' })).status, 200);
  assert.is((await t.owner.post(TEMPLATES, { name: 'Bad slug', slug: 'Not A Slug', markdown: '# x\n' })).status, 400);
  // Made at once, templates of one name still get one slug each.
  const parallel = await Promise.all([1, 2, 3, 4].map((n) => create({ name: 'Parallel', markdown: `# ${n}\n` })));
  assert.equal(parallel.map((p) => p.slug).sort(), ['parallel', 'parallel-2', 'parallel-3', 'parallel-4']);
  // Another organization may use the same slug.
  const elsewhere = await t.other.post(TEMPLATES, { name: 'Chosen', slug: 'my-chosen-slug', markdown: '# x\n' });
  assert.is(elsewhere.status, 201, elsewhere.bytes.toString());
});

test('PATCH changes the given fields and adds 1 to version; a stale If-Match answers 412 VERSION_CONFLICT and changes nothing', async () => {
  const tpl = await create({ name: 'Versioned', markdown: '# First\n', category: 'finance', description: 'old' });
  await sleep(5);
  const r = await patch(t.owner, `${TEMPLATES}/${tpl.id}`, { name: 'Versioned, renamed', description: null, markdown: '# Second\n' }, { 'If-Match': '1' });
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.version, 2);
  assert.is(r.body.name, 'Versioned, renamed');
  assert.is(r.body.slug, 'versioned', 'the slug stays when the name changes');
  assert.is(r.body.description, undefined);
  assert.is(r.body.category, 'finance');
  assert.is(r.body.markdown, '# Second\n');
  assert.is(r.body.config.sections[0].content[0].text, 'Second');
  assert.is(r.body.createdAt, tpl.createdAt);
  assert.ok(r.body.updatedAt > tpl.updatedAt);

  const stale = await patch(t.owner, `${TEMPLATES}/${tpl.id}`, { name: 'Lost update' }, { 'If-Match': '1' });
  assert.is(stale.status, 412);
  assert.is(stale.body.code, 'VERSION_CONFLICT');
  assert.equal((await t.owner.get(`${TEMPLATES}/${tpl.id}`)).body, r.body);
  assert.is((await patch(t.owner, `${TEMPLATES}/${tpl.id}`, { name: 'x' }, { 'If-Match': 'latest' })).status, 400);
  // Without If-Match the change applies to whatever is current.
  assert.is((await patch(t.owner, `${TEMPLATES}/${tpl.id}`, { productive: false })).body.version, 3);
  assert.is((await patch(t.owner, `${TEMPLATES}/${tpl.id}`, {})).status, 400, 'an empty change is refused');
  assert.is((await patch(t.owner, `${TEMPLATES}/${tpl.id}`, { markdown: '# x\n', config: LETTER_JSON })).status, 400, 'markdown and config at once are refused');
});

test('DELETE removes a workspace template (204), after which it answers 404', async () => {
  const tpl = await create({ name: 'Short-lived', markdown: '# Bye\n' });
  assert.is((await del(t.owner, `${TEMPLATES}/${tpl.id}`)).status, 204);
  assert.is((await t.owner.get(`${TEMPLATES}/${tpl.id}`)).status, 404);
  assert.is((await del(t.owner, `${TEMPLATES}/${tpl.id}`)).status, 404);
  assert.is((await patch(t.owner, `${TEMPLATES}/${tpl.id}`, { name: 'Back' })).status, 404);
  assert.is((await t.owner.post(DOCUMENTS, { templateId: tpl.id })).status, 404);
});

test('a copy of a workspace template is independent: changing or deleting either leaves the other as it was', async () => {
  const original = await create({ name: 'Original', markdown: LETTER, productive: false, category: 'general' });
  const r = await t.owner.post(`${TEMPLATES}/${original.id}/copy`, {});
  assert.is(r.status, 201, r.bytes.toString());
  const copy = r.body;
  assert.is(r.headers.get('location'), `${TEMPLATES}/${copy.id}`);
  assert.is.not(copy.id, original.id);
  assert.is(copy.slug, 'original-2', "the copy's slug is made from its original's");
  assert.is(copy.name, 'Original');
  assert.is(copy.productive, true, 'a copy is productive unless asked otherwise');
  assert.is(copy.category, 'general');
  assert.is(copy.markdown, original.markdown);
  assert.equal(copy.config, original.config);
  assert.is(copy.version, 1);

  const changed = await patch(t.owner, `${TEMPLATES}/${copy.id}`, { markdown: '# Changed copy\n', name: 'The copy' });
  assert.is(changed.status, 200);
  assert.equal((await t.owner.get(`${TEMPLATES}/${original.id}`)).body, original, 'the original is unchanged');
  assert.is((await del(t.owner, `${TEMPLATES}/${original.id}`)).status, 204);
  assert.equal((await t.owner.get(`${TEMPLATES}/${copy.id}`)).body, changed.body, 'the copy outlives its original');

  const bare = await t.owner.request('POST', `${TEMPLATES}/${copy.id}/copy`);
  assert.is(bare.status, 201, `a copy needs no body: ${bare.bytes.toString()}`);
  assert.is(bare.body.name, 'The copy');
  const named = await t.owner.post(`${TEMPLATES}/${copy.id}/copy`, { name: 'Named copy', slug: 'named-copy', productive: false });
  assert.is(named.status, 201);
  assert.is(named.body.slug, 'named-copy');
  assert.is(named.body.productive, false);
  assert.is((await t.owner.post(`${TEMPLATES}/${copy.id}/copy`, { slug: 'named-copy' })).status, 409);
});

test('a copy of a catalog template is a productive workspace template that seeds a document with its config, name and style preset', async () => {
  const invoice = await catalogId('invoice');
  const source = (await t.owner.get(`${TEMPLATES}/${invoice}`)).body;
  const r = await t.owner.post(`${TEMPLATES}/${invoice}/copy`, { name: 'Our invoice' });
  assert.is(r.status, 201, r.bytes.toString());
  const copy = r.body;
  assert.is(copy.scope, 'workspace');
  assert.is(copy.productive, true);
  assert.is(copy.name, 'Our invoice');
  assert.is(copy.slug, 'invoice', "made from the catalog template's slug");
  assert.is(copy.markdown, source.markdown);
  assert.is(copy.stylePresetId, 'system:invoice');
  assert.is(copy.category, source.category);
  assert.is(copy.previewImage, undefined);
  assert.is((await t.owner.get(`${TEMPLATES}/${invoice}`)).body.productive, false, 'the catalog template stays browse-only');

  const doc = await t.member.post(DOCUMENTS, { templateId: copy.id });
  assert.is(doc.status, 201, doc.bytes.toString());
  assert.is(doc.body.name, 'Our invoice');
  assert.is(doc.body.stylePresetId, 'system:invoice');
  assert.equal(doc.body.config.variables, copy.config.variables);
  assert.equal(doc.body.config.sections, copy.config.sections);
  const { text } = await pdfOf(doc.body.id);
  for (const sample of ['INV-2026-0142', 'Cobalt Coffee Roasters Ltd', '€ 7,779.75']) assert.ok(text.includes(sample), `"${sample}" in ${text.slice(0, 500)}`);

  // The request's name and style preset go over the template's.
  const named = await t.owner.post(DOCUMENTS, { templateId: copy.id, name: 'Invoice for March', stylePresetId: 'system:minimal-memo' });
  assert.is(named.status, 201);
  assert.is(named.body.name, 'Invoice for March');
  assert.is(named.body.stylePresetId, 'system:minimal-memo');
  // The document is a copy: changing the template afterwards leaves it as it was.
  await patch(t.owner, `${TEMPLATES}/${copy.id}`, { markdown: '# Replaced\n' });
  assert.equal((await t.owner.get(`${DOCUMENTS}/${doc.body.id}`)).body.config.sections, copy.config.sections);
});

test('documents cannot be made from a catalog template or a non-productive one (403 TEMPLATE_NOT_PRODUCTIVE saying how), until it is made productive', async () => {
  const invoice = await catalogId('invoice');
  const fromCatalog = await t.owner.post(DOCUMENTS, { templateId: invoice });
  assert.is(fromCatalog.status, 403);
  assert.is(fromCatalog.body.code, 'TEMPLATE_NOT_PRODUCTIVE');
  assert.match(fromCatalog.body.detail, `POST /templates/${invoice}/copy`);

  const draft = await create({ name: 'Draft letter', markdown: LETTER, productive: false });
  const before = (await t.owner.get(`${DOCUMENTS}?limit=200`)).body.items.length;
  const refused = await t.member.post(DOCUMENTS, { templateId: draft.id });
  assert.is(refused.status, 403);
  assert.is(refused.body.code, 'TEMPLATE_NOT_PRODUCTIVE');
  assert.match(refused.body.detail, `PATCH /templates/${draft.id}`);
  assert.match(refused.body.detail, '"productive": true');
  assert.is((await t.owner.get(`${DOCUMENTS}?limit=200`)).body.items.length, before, 'no document was saved');

  const productive = await patch(t.owner, `${TEMPLATES}/${draft.id}`, { productive: true });
  assert.is(productive.body.productive, true);
  const made = await t.member.post(DOCUMENTS, { templateId: draft.id });
  assert.is(made.status, 201, made.bytes.toString());
  assert.is(made.body.name, 'Draft letter');
  const { text } = await pdfOf(made.body.id);
  assert.ok(text.includes('Welcome, Ada Lovelace'), text);

  const both = await t.owner.post(DOCUMENTS, { templateId: draft.id, config: LETTER_JSON });
  assert.is(both.status, 400);
  assert.is((await t.owner.post(DOCUMENTS, { templateId: '00000000-0000-4000-8000-000000000000' })).status, 404);
});

test("a temporary image in a template becomes a permanent asset shared with documents made from it, which keep it after the template's deletion", async () => {
  const temp = await uploadRedPng(t.owner);
  assert.match(temp, /^\/temp-image\//);
  const tpl = await create({ name: 'With a logo', markdown: `# Logo\n\n![Red square](${temp}){width=4}\n` });
  const src: string = tpl.config.sections[0].content[1].src;
  assert.match(src, /^\/image\/[A-Za-z0-9_-]+$/);
  assert.ok(tpl.markdown.includes(`](${src})`), tpl.markdown);
  assert.not.match(tpl.markdown, /temp-image/);
  const assetUrl = `${API}/images/${src.slice('/image/'.length)}`;
  const asset = await t.owner.get(assetUrl);
  assert.is(asset.status, 200);
  assert.is(asset.headers.get('content-type'), 'image/png');
  assert.equal(pngSize(asset.bytes), { width: 40, height: 30 });
  assert.is((await t.other.get(assetUrl)).status, 404, 'another organization cannot read the asset');
  const borrowed = await t.other.post(TEMPLATES, { name: 'Borrowed logo', markdown: `![Red](${src})\n` });
  assert.is(borrowed.status, 400, 'nor use it in its templates');
  assert.is(borrowed.body.errors[0].code, 'IMAGE_NOT_FOUND');

  // JSON templates get the same treatment.
  const fromJson = await create({ name: 'JSON with a logo', config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'image', src: await uploadRedPng(t.owner), alt: 'Red' }] }] } });
  assert.match(fromJson.config.sections[0].content[0].src, /^\/image\//);
  assert.match(fromJson.markdown, /\]\(\/image\/[A-Za-z0-9_-]+\)/);

  const doc = await t.owner.post(DOCUMENTS, { templateId: tpl.id });
  assert.is(doc.status, 201, doc.bytes.toString());
  assert.is(doc.body.config.sections[0].content[1].src, src, 'the document uses the same asset');
  const copy = await t.owner.post(`${TEMPLATES}/${tpl.id}/copy`, {});
  assert.is(copy.body.config.sections[0].content[1].src, src, 'so does a copy of the template');
  assert.is((await del(t.owner, `${TEMPLATES}/${tpl.id}`)).status, 204);
  assert.is((await del(t.owner, `${TEMPLATES}/${copy.body.id}`)).status, 204);
  assert.is((await t.owner.get(assetUrl)).status, 200, 'the document still uses the asset');

  // A document saved with the same temporary image shares the asset made of it.
  const direct = await t.owner.post(DOCUMENTS, { config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'image', src: temp, alt: 'Red' }] }] } });
  assert.is(direct.status, 201, direct.bytes.toString());
  assert.is(direct.body.config.sections[0].content[0].src, src);
  assert.is((await del(t.owner, `${DOCUMENTS}/${direct.body.id}`)).status, 204);
  assert.is((await t.owner.get(assetUrl)).status, 200, 'the other document still uses the asset');

  const { bytes } = await pdfOf(doc.body.id);
  // One drawn image (its alpha channel is listed apart, as an smask).
  const images = (await pdfimagesList(bytes)).filter((i) => i.type === 'image');
  assert.is(images.length, 1, JSON.stringify(images));
  assert.is(images[0]!.width, 40);
  assert.is(images[0]!.height, 30);
  const info = await popplerOutput('pdfinfo', [], bytes);
  assert.match(info, /^Pages:\s+1$/m);

  // The last user gone, the asset goes too.
  assert.is((await del(t.owner, `${DOCUMENTS}/${doc.body.id}`)).status, 204);
  assert.is((await t.owner.get(assetUrl)).status, 404);
});

test.run();
