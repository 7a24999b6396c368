// Saved documents over HTTP: create from JSON and Markdown, list pages, bad input saving nothing, Markdown read back
// and written unchanged (a property over generated documents), If-Match, and the JSON fallback.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { useServer } from '../helpers/quire-server.js';
import type { ApiClient, ApiResponse } from '../helpers/api-client.js';
import { redPng, uploadTempImage } from '../helpers/render-jobs.js';
import { serializeMarkdown } from '../../document/markdown/index.js';
import { replaceImageSources } from '../../document/images.js';
import * as arb from '../document/markdown/arbitraries.js';
import { checkAsync } from '../document/markdown/check.js';
import { DocumentListSchema, DocumentMarkdownSchema, DocumentSchema } from '../../contracts/documents.js';
import { compileSchema } from '../../contracts/schema.js';

type Json = Record<string, any>;

const API = '/api/v1/dev';
const DOCS = '/api/v1/dev/documents';
const isDocument = compileSchema(DocumentSchema);
const isList = compileSchema(DocumentListSchema);
const isMarkdown = compileSchema(DocumentMarkdownSchema);

let api: ApiClient;
useServer(test, (s) => (api = s.api));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const patch = (p: string, body: unknown, headers?: Record<string, string>) => api.request('PATCH', p, body, headers);
const del = (p: string) => api.request('DELETE', p);

const CONFIG: Json = {
  document: { type: 'pdf', title: 'Quarterly note', filename: 'quarterly' },
  variables: { client: 'ACME' },
  sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Overview', id: 'overview' }, { type: 'text', text: 'Prepared for {{client}}; see [the overview](#overview).' }] }],
};

async function create(body: Json, query = ''): Promise<Json> {
  const r = await api.post(DOCS + query, body);
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

async function createMarkdown(body: Json): Promise<Json> {
  const r = await api.post(`${DOCS}/markdown`, body);
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

/** Every document of the organization, newest first, read one page of `limit` at a time. */
async function listAll(limit: number): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const r: ApiResponse = await api.get(`${DOCS}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(r.status, 200, r.bytes.toString());
    assert.ok(r.body.items.length <= limit);
    items.push(...r.body.items);
    cursor = r.body.nextCursor;
    if (cursor === null) return items;
  }
  throw new Error('the list never ended');
}

const count = async () => (await listAll(200)).length;

/** A request answered 400 VALIDATION_FAILED that saved nothing; returns its errors. */
async function refused(send: () => Promise<{ status: number; body: any; bytes: Buffer }>): Promise<Json[]> {
  const before = await count();
  const r = await send();
  assert.is(r.status, 400, r.bytes.toString());
  assert.is(r.body.code, 'VALIDATION_FAILED');
  assert.ok(Array.isArray(r.body.errors) && r.body.errors.length > 0, JSON.stringify(r.body));
  assert.is(await count(), before, 'nothing was saved');
  return r.body.errors;
}

// ---------------------------------------------------------------- create, read, list, delete

test('creates a document from JSON as version 1 with ETag and Location, and reads the same config back', async () => {
  const r = await api.post(DOCS, { name: 'Note', config: CONFIG });
  assert.is(r.status, 201, r.bytes.toString());
  const doc = r.body;
  assert.ok(isDocument(doc as unknown), JSON.stringify(isDocument.errors));
  assert.match(doc.id, /^[0-9a-f-]{36}$/);
  assert.is(doc.version, 1);
  assert.is(doc.name, 'Note');
  assert.is(doc.type, 'pdf');
  assert.is(doc.stylePresetId, null);
  assert.is(doc.createdAt, doc.updatedAt);
  assert.equal(doc.warnings, []);
  assert.is(r.headers.get('etag'), '"1"');
  assert.is(r.headers.get('location'), `${DOCS}/${doc.id}`);
  assert.equal(doc.config, CONFIG);
  const again = await api.get(`${DOCS}/${doc.id}`);
  assert.is(again.status, 200);
  assert.is(again.headers.get('etag'), '"1"');
  assert.equal(again.body.config, CONFIG);
  assert.is(again.body.version, 1);
  // Without a name the title names it.
  assert.is((await create({ config: CONFIG })).name, 'Quarterly note');
});

test('lists documents newest first, one per page with limit=1, and refuses a cursor it did not give', async () => {
  const made: string[] = [];
  for (const n of [1, 2, 3]) {
    made.push((await create({ name: `Paged ${n}`, config: { ...CONFIG, document: { type: n === 2 ? 'docx' : 'pdf' } } })).id);
    await sleep(5);
  }
  const first = await api.get(`${DOCS}?limit=1`);
  assert.is(first.status, 200);
  assert.ok(isList(first.body as unknown), JSON.stringify(isList.errors));
  assert.is(first.body.items.length, 1);
  assert.is(first.body.items[0].id, made[2]);
  assert.is(first.body.items[0].config, undefined, 'list items have no config');
  assert.type(first.body.nextCursor, 'string');
  const second = await api.get(`${DOCS}?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
  assert.equal(second.body.items.map((d: Json) => [d.id, d.type]), [[made[1], 'docx']]);
  const third = await api.get(`${DOCS}?limit=1&cursor=${encodeURIComponent(second.body.nextCursor)}`);
  assert.is(third.body.items[0].id, made[0]);
  // Paging to the end meets every document once, newest first.
  const all = await listAll(1);
  assert.is(new Set(all.map((d) => d.id)).size, all.length);
  assert.equal(all.slice(0, 3).map((d) => d.id), [...made].reverse());
  assert.ok(all.every((d, i) => i === 0 || all[i - 1]!.createdAt >= d.createdAt));
  // A cursor stays good when the document it was taken after is deleted.
  assert.is((await del(`${DOCS}/${made[2]}`)).status, 204);
  assert.is((await api.get(`${DOCS}?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`)).body.items[0].id, made[1]);
  for (const cursor of ['garbage', 'bm90LWEtY3Vyc29y']) {
    const bad = await api.get(`${DOCS}?limit=1&cursor=${cursor}`);
    assert.is(bad.status, 400, cursor);
    assert.is(bad.body.errors[0].path, 'query.cursor');
  }
  assert.is((await api.get(`${DOCS}?limit=0`)).status, 400);
  assert.is((await api.get(`${DOCS}?limit=201`)).status, 400);
});

test('DELETE answers 204, then the document is gone (404) and out of the list', async () => {
  const doc = await create({ config: CONFIG });
  const r = await del(`${DOCS}/${doc.id}`);
  assert.is(r.status, 204);
  assert.is(r.bytes.length, 0);
  assert.is((await api.get(`${DOCS}/${doc.id}`)).status, 404);
  assert.is((await api.get(`${DOCS}/${doc.id}/markdown`)).status, 404);
  assert.is((await del(`${DOCS}/${doc.id}`)).status, 404);
  assert.not.ok((await listAll(200)).some((d) => d.id === doc.id));
});

// ---------------------------------------------------------------- bad input

test('refuses an invalid config with 400 and paths under config., saving nothing', async () => {
  const errors = await refused(() => api.post(DOCS, { config: { document: { type: 'pdf', marginTop: 11 }, sections: [{ type: 'flow', content: [{ type: 'h7', text: 'x' }] }] } }));
  assert.ok(errors.every((e) => e.path.startsWith('config.')), JSON.stringify(errors));
  assert.ok(errors.some((e) => e.path === 'config.document.marginTop'), JSON.stringify(errors));
  const duplicate = await refused(() => api.post(DOCS, { config: { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'A', id: 'x' }, { type: 'h2', text: 'B', id: 'x' }] }] } }));
  assert.equal(duplicate.map((e) => [e.path, e.code]), [['config.sections[0].content[1].id', 'DUPLICATE_ANCHOR']]);
});

test('a broken reference is an error with ?strict=true and a warning without', async () => {
  const config = { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'See [nowhere](#missing).' }] }] };
  const strict = await refused(() => api.post(`${DOCS}?strict=true`, { config }));
  assert.equal(strict.map((e) => [e.path, e.code]), [['config.sections[0].content[0].text', 'BROKEN_REFERENCE']]);
  const loose = await create({ config });
  assert.equal(loose.warnings.map((e: Json) => [e.path, e.code]), [['config.sections[0].content[0].text', 'BROKEN_REFERENCE']]);
  assert.equal((await api.get(`${DOCS}/${loose.id}`)).body.config, config);
});

test('refuses a body that does not match the schema: config missing, an unknown field, a name too long', async () => {
  const missing = await refused(() => api.post(DOCS, { name: 'No config' }));
  assert.ok(missing.some((e) => e.path.includes('config')), JSON.stringify(missing));
  const unknown = await refused(() => api.post(DOCS, { config: CONFIG, colour: 'red' }));
  assert.ok(unknown.some((e) => e.path.includes('colour') || e.message.includes('colour')), JSON.stringify(unknown));
  await refused(() => api.post(DOCS, { name: 'x'.repeat(201), config: CONFIG }));
  await refused(() => api.post(`${DOCS}/markdown`, { markdown: '# Wrong field' }));
});

test('refuses Markdown with an error with its line and column, saving nothing', async () => {
  const errors = await refused(() => api.post(`${DOCS}/markdown`, { content: '# Title {#a}\n\nText.\n\n## Again {#a}\n\n::frobnicate{x=1}\n' }));
  const dup = errors.find((e) => e.code === 'DUPLICATE_ANCHOR');
  assert.ok(dup, JSON.stringify(errors));
  assert.is(dup!.line, 5);
  assert.type(dup!.column, 'number');
  const directive = errors.find((e) => e.code === 'INVALID_DIRECTIVE');
  assert.is(directive?.line, 7, JSON.stringify(errors));
  assert.is(directive?.column, 1);
  for (const e of errors) for (const key of ['path', 'message', 'code']) assert.type(e[key], 'string', key);
});

// ---------------------------------------------------------------- Markdown

test("saves Markdown with the request's variables over the front matter and reads it back as markdown", async () => {
  const content = '---\ndocument:\n  title: From Markdown\nvariables:\n  client: FrontCo\n  city: Bern\n---\n\n# Hello {{client}}\n\nIn {{city}}.\n';
  const r = await api.post(`${DOCS}/markdown`, { content, variables: { client: 'RequestCo' } });
  assert.is(r.status, 201, r.bytes.toString());
  assert.is(r.headers.get('etag'), '"1"');
  assert.is(r.headers.get('location'), `${DOCS}/${r.body.id}`);
  const doc = r.body;
  assert.is(doc.name, 'From Markdown');
  assert.equal(doc.config.variables, { client: 'RequestCo', city: 'Bern' });
  assert.equal(doc.config.sections[0].content[0], { type: 'h1', text: 'Hello {{client}}' });
  const md = await api.get(`${DOCS}/${doc.id}/markdown`);
  assert.is(md.status, 200);
  assert.is(md.headers.get('etag'), '"1"');
  assert.ok(isMarkdown(md.body as unknown), JSON.stringify(isMarkdown.errors));
  assert.is(md.body.format, 'markdown');
  assert.is(md.body.documentId, doc.id);
  assert.is(md.body.version, 1);
  assert.is(md.body.config, undefined);
  assert.match(md.body.markdown, 'client: RequestCo');
  assert.match(md.body.markdown, '# Hello {{client}}');
  const back = await patch(`${DOCS}/${doc.id}/markdown`, { markdown: md.body.markdown });
  assert.is(back.status, 200, back.bytes.toString());
  assert.is(back.body.version, 2);
  assert.is(back.headers.get('etag'), '"2"');
  assert.is(JSON.stringify(back.body.config), JSON.stringify(doc.config));
  assert.is(JSON.stringify((await api.get(`${DOCS}/${doc.id}`)).body.config), JSON.stringify(doc.config));
});

test('saves Markdown with Pandoc-style front matter and reads it back in the canonical document: form, which saves the same config again', async () => {
  const content = ['---', 'title: Field notes', 'subtitle: Spring count', 'author: [Ada Lovelace, Alan Turing]', 'date: 2024-05-01', 'keywords: birds, spring', 'abstract: What we saw.', 'lang: en-GB', '---', '', '# Birds', ''].join('\n');
  const r = await api.post(`${DOCS}/markdown`, { content });
  assert.is(r.status, 201, r.bytes.toString());
  assert.is(r.body.name, 'Field notes');
  assert.equal(r.body.config.document, { type: 'pdf', title: 'Field notes', subtitle: 'Spring count', author: 'Ada Lovelace, Alan Turing', date: '2024-05-01', abstract: 'What we saw.', keywords: ['birds', 'spring'] });
  assert.equal(r.body.config.defaults, { locale: 'en-GB' });
  const md = await api.get(`${DOCS}/${r.body.id}/markdown`);
  assert.is(md.body.format, 'markdown');
  assert.match(md.body.markdown, /^---\ndocument:\n {2}type: pdf\n {2}title: Field notes\n/);
  assert.not.match(md.body.markdown, /^(title|author|lang):/m);
  const back = await patch(`${DOCS}/${r.body.id}/markdown`, { markdown: md.body.markdown });
  assert.is(back.status, 200, back.bytes.toString());
  assert.is(JSON.stringify(back.body.config), JSON.stringify(r.body.config));
});

const RUNS = 25;

test('Markdown read back and written unchanged keeps the config byte for byte, for generated documents', async () => {
  // The generated documents' images point nowhere; they draw one uploaded image instead (a save checks images).
  const image = await uploadTempImage(api, await redPng(), 'red.png');
  // Their blocks are two real ones (a save checks that a block exists), with versions 1 and 2.
  const blocks = new Map<string, string>();
  for (const name of ['legal-footer', 'b_2']) {
    const b = await api.post(`${API}/reusable-blocks`, { name, title: name, markdown: `Text of ${name}.\n` });
    assert.is(b.status, 201, b.bytes.toString());
    assert.is((await api.post(`${API}/reusable-blocks/${b.body.id}/versions`, { title: name, markdown: `Second text of ${name}.\n` })).status, 201);
    assert.is((await api.post(`${API}/reusable-blocks/${b.body.id}/status`, { status: 'ACTIVE' })).status, 200);
    blocks.set(name, b.body.id);
  }
  // A generated document may hold one element object twice (structuredClone keeps that sharing): each is mapped once.
  const mapped = new WeakSet<object>();
  const realBlocks = (content: any[]): void => {
    for (const el of content) {
      if (el.type !== 'blockRef' || mapped.has(el)) continue;
      mapped.add(el);
      el.blockId = blocks.get(el.blockId);
      if (el.version !== undefined) el.version = 1 + (el.version % 2);
      if (el.content) realBlocks(el.content);
    }
  };
  let runs = 0;
  await checkAsync(
    arb.document,
    async (generated) => {
      runs++;
      const doc = structuredClone(generated);
      for (const section of doc.sections) realBlocks(section.content);
      const content = serializeMarkdown(replaceImageSources(doc, () => image));
      const created = await api.post(`${DOCS}/markdown`, { content });
      assert.is(created.status, 201, `${created.bytes}\n${content}`);
      const { id, config } = created.body;
      assert.not.match(JSON.stringify(config), '/temp-image/');
      const md = await api.get(`${DOCS}/${id}/markdown`);
      assert.is(md.body.format, 'markdown', `${md.body.warning}\n${content}`);
      const back = await patch(`${DOCS}/${id}/markdown`, { markdown: md.body.markdown });
      assert.is(back.status, 200, `${back.bytes}\n${md.body.markdown}`);
      assert.is(back.body.version, 2);
      assert.is(JSON.stringify(back.body.config), JSON.stringify(config), md.body.markdown);
      assert.is((await del(`${DOCS}/${id}`)).status, 204);
    },
    RUNS,
  );
  // Every generated document was saved and written back: none was set aside.
  assert.is(runs, Number(process.env.QUIRE_FC_RUNS ?? RUNS));
});

// ---------------------------------------------------------------- If-Match and versions

test('PATCH with a stale If-Match answers 412 VERSION_CONFLICT and saves nothing; the current one saves', async () => {
  const doc = await createMarkdown({ content: '# Draft\n\nFirst text.\n' });
  const url = `${DOCS}/${doc.id}/markdown`;
  const second = await patch(url, { markdown: '# Draft\n\nSecond text.\n' });
  assert.is(second.body.version, 2);
  const stale = await patch(url, { markdown: '# Draft\n\nLost update.\n' }, { 'If-Match': '1' });
  assert.is(stale.status, 412, stale.bytes.toString());
  assert.is(stale.body.code, 'VERSION_CONFLICT');
  assert.match(stale.body.detail, 'version 2');
  const now = await api.get(`${DOCS}/${doc.id}`);
  assert.is(now.body.version, 2);
  assert.equal(now.body.config, second.body.config);
  const current = await patch(url, { markdown: '# Draft\n\nThird text.\n' }, { 'If-Match': '"2"' });
  assert.is(current.status, 200, current.bytes.toString());
  assert.is(current.body.version, 3);
  assert.equal(current.body.config.sections[0].content[1], { type: 'text', text: 'Third text.' });
  for (const garbage of ['two', '*', '1, 2', 'W/"x"']) {
    const bad = await patch(url, { markdown: '# Draft\n\nGarbage.\n' }, { 'If-Match': garbage });
    assert.is(bad.status, 400, garbage);
    assert.is(bad.body.errors[0].path, 'header.If-Match');
  }
  assert.is((await api.get(`${DOCS}/${doc.id}`)).body.version, 3);
});

test('PATCH of the name bumps the version and keeps the config; a stale If-Match there is 412 too', async () => {
  const doc = await create({ name: 'Before', config: CONFIG });
  const renamed = await patch(`${DOCS}/${doc.id}`, { name: 'After' }, { 'If-Match': '1' });
  assert.is(renamed.status, 200, renamed.bytes.toString());
  assert.is(renamed.body.name, 'After');
  assert.is(renamed.body.version, 2);
  assert.is(renamed.headers.get('etag'), '"2"');
  assert.equal(renamed.body.config, CONFIG);
  assert.ok(renamed.body.updatedAt >= doc.updatedAt);
  const stale = await patch(`${DOCS}/${doc.id}`, { name: 'Lost' }, { 'If-Match': '1' });
  assert.is(stale.status, 412);
  assert.is((await api.get(`${DOCS}/${doc.id}`)).body.name, 'After');
  const empty = await patch(`${DOCS}/${doc.id}`, {});
  assert.is(empty.status, 400);
  assert.is((await api.get(`${DOCS}/${doc.id}`)).body.version, 2);
});

// ---------------------------------------------------------------- JSON fallback

test('a document Markdown cannot say exactly (a start number on a bulleted list) reads back as json_fallback', async () => {
  const config = { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Steps' }, { type: 'list', ordered: false, start: 5, items: ['one', 'two'] }] }] };
  const doc = await create({ config });
  const md = await api.get(`${DOCS}/${doc.id}/markdown`);
  assert.is(md.status, 200);
  assert.ok(isMarkdown(md.body as unknown), JSON.stringify(isMarkdown.errors));
  assert.is(md.body.format, 'json_fallback');
  assert.is(md.body.markdown, null);
  assert.equal(md.body.config, config);
  assert.match(md.body.warning, 'sections[0].content[1].start');
  assert.match(md.body.warning, 'list');
  assert.is(md.body.version, 1);
  // The same list numbered is carried by Markdown.
  const numbered = await create({ config: { ...config, sections: [{ type: 'flow', content: [{ type: 'list', ordered: true, start: 5, items: ['one', 'two'] }] }] } });
  const ok = await api.get(`${DOCS}/${numbered.id}/markdown`);
  assert.is(ok.body.format, 'markdown');
  assert.match(ok.body.markdown, /^5\. one$/m);
});

test.run();
