// Reusable blocks through the HTTP API: creation as DRAFT version 1, an append-only version history with restore,
// status moves (allowed and refused), filters, slugs, roles, limits, checks of Markdown, schema and variables, other
// organizations kept out, and the routes in OpenAPI.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { useTenants, type Tenants } from '../helpers/tenants.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { OWNER_KEY, startServer } from '../helpers/quire-server.js';

const API = '/api/v1/dev';
const BLOCKS = `${API}/reusable-blocks`;

let t: Tenants;
useTenants(test, (started) => (t = started));

const patch = (api: ApiClient, p: string, body: unknown) => api.request('PATCH', p, body);
const del = (api: ApiClient, p: string) => api.request('DELETE', p);

const FOOTER = '**Acme GmbH** · Hauptstraße 1 · 10115 Berlin\n\nQuestions? Write to {{contact}}.\n';
const SCHEMA = { type: 'object', properties: { contact: { type: 'string', format: 'email' } }, required: ['contact'], additionalProperties: false };

async function create(body: Record<string, unknown>, api: ApiClient = t.owner): Promise<any> {
  const r = await api.post(BLOCKS, { title: 'Untitled', markdown: 'Some text.\n', ...body });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

function assertProblem(r: ApiResponse, status: number, code: string): void {
  assert.is(r.status, status, r.bytes.toString());
  assert.is(r.body.code, code, r.bytes.toString());
}

test('creates a block as DRAFT with version 1 (201, Location), with exactly the spec fields, and reads it back', async () => {
  const r = await t.admin.post(BLOCKS, { name: 'Company footer', category: 'footer', tags: ['legal', 'footer', 'legal'], description: 'Under every letter', title: 'Footer', markdown: FOOTER, schema: SCHEMA, variables: { contact: 'help@acme.example' } });
  assert.is(r.status, 201, r.bytes.toString());
  const b = r.body;
  assert.is(r.headers.get('location'), `${BLOCKS}/${b.id}`);
  assert.equal(Object.keys(b).sort(), ['category', 'createdAt', 'createdByUserId', 'current', 'currentVersion', 'description', 'id', 'name', 'orgId', 'slug', 'status', 'tags', 'updatedAt', 'versions']);
  assert.match(b.id, /^[0-9a-f-]{36}$/);
  assert.is(b.name, 'Company footer');
  assert.is(b.slug, 'company-footer');
  assert.is(b.category, 'footer');
  assert.equal(b.tags, ['legal', 'footer']);
  assert.is(b.status, 'DRAFT');
  assert.is(b.currentVersion, 1);
  assert.match(b.createdByUserId, /^key:/);
  assert.is(b.versions.length, 1);
  const v1 = b.versions[0];
  assert.equal(Object.keys(v1).sort(), ['blockId', 'createdAt', 'createdByUserId', 'id', 'markdown', 'schema', 'title', 'variables', 'version']);
  assert.equal(b.current, v1);
  assert.equal({ blockId: v1.blockId, version: v1.version, title: v1.title, markdown: v1.markdown, schema: v1.schema, variables: v1.variables }, { blockId: b.id, version: 1, title: 'Footer', markdown: FOOTER, schema: SCHEMA, variables: { contact: 'help@acme.example' } });
  assert.is(v1.createdByUserId, b.createdByUserId);
  const read = await t.member.get(`${BLOCKS}/${b.id}`);
  assert.is(read.status, 200);
  assert.equal(read.body, b);
  // The owner's organization is the block's.
  const org = (await t.owner.get(`${BLOCKS}`)).body.items.find((i: any) => i.id === b.id);
  assert.is(org.orgId, b.orgId);
});

test('a block without schema and variables has {} for both', async () => {
  const b = await create({ name: 'Plain' });
  assert.equal(b.current.schema, {});
  assert.equal(b.current.variables, {});
  assert.is(b.category, '');
  assert.equal(b.tags, []);
  assert.not.ok('description' in b);
});

test('new versions append with the next number and never change earlier ones; restore makes a new version copying the old one', async () => {
  const b = await create({ name: 'Versioned', title: 'One', markdown: 'First text.\n', schema: SCHEMA, variables: { contact: 'a@example.com' } });
  const v1 = b.versions[0];
  const r2 = await t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: 'Two', markdown: '# Second\n\nMore text.\n', changeNote: 'A heading' });
  assert.is(r2.status, 201, r2.bytes.toString());
  assert.is(r2.body.currentVersion, 2);
  assert.is(r2.body.current.version, 2);
  assert.is(r2.body.current.changeNote, 'A heading');
  assert.equal(r2.body.current.schema, {});
  assert.equal(r2.body.versions[0], v1);
  const v2 = r2.body.versions[1];
  const r3 = await t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: 'Three', markdown: 'Third text with {{contact}}.\n', schema: SCHEMA, variables: { contact: 'c@example.com' } });
  assert.is(r3.status, 201, r3.bytes.toString());
  const read = (await t.owner.get(`${BLOCKS}/${b.id}`)).body;
  assert.equal(read.versions.map((v: any) => v.version), [1, 2, 3]);
  assert.equal(read.versions[0], v1);
  assert.equal(read.versions[1], v2);
  assert.equal(read.current, read.versions[2]);
  assert.ok(read.updatedAt >= b.updatedAt);

  const restored = await t.owner.post(`${BLOCKS}/${b.id}/versions/2/restore`, {});
  assert.is(restored.status, 201, restored.bytes.toString());
  const v4 = restored.body.current;
  assert.is(restored.body.currentVersion, 4);
  assert.is(v4.version, 4);
  assert.is(v4.restoredFromVersion, 2);
  assert.equal({ title: v4.title, markdown: v4.markdown, schema: v4.schema, variables: v4.variables }, { title: v2.title, markdown: v2.markdown, schema: v2.schema, variables: v2.variables });
  assert.is.not(v4.id, v2.id);
  assert.not.ok('changeNote' in v4);
  const after = (await t.owner.get(`${BLOCKS}/${b.id}`)).body;
  assert.equal(after.versions.slice(0, 3), read.versions);

  assertProblem(await t.owner.post(`${BLOCKS}/${b.id}/versions/9/restore`, {}), 404, 'NOT_FOUND');
  assertProblem(await t.owner.post(`${BLOCKS}/${b.id}/versions/zero/restore`, {}), 400, 'VALIDATION_FAILED');
  assert.is((await t.owner.get(`${BLOCKS}/${b.id}`)).body.currentVersion, 4);
});

test('versions added at once get distinct consecutive numbers', async () => {
  const b = await create({ name: 'Concurrent' });
  const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: `T${n}`, markdown: `Text ${n}.\n` })));
  for (const a of answers) assert.is(a.status, 201, a.bytes.toString());
  const read = (await t.owner.get(`${BLOCKS}/${b.id}`)).body;
  assert.equal(read.versions.map((v: any) => v.version), [1, 2, 3, 4, 5, 6]);
  assert.equal(new Set(read.versions.slice(1).map((v: any) => v.title)), new Set(['T1', 'T2', 'T3', 'T4', 'T5']));
});

test('status moves: DRAFT→ACTIVE, ACTIVE→ARCHIVED, ARCHIVED→ACTIVE and DRAFT→ARCHIVED are allowed; every other move is 409 INVALID_TRANSITION naming the allowed moves', async () => {
  const move = (id: string, status: string) => t.owner.post(`${BLOCKS}/${id}/status`, { status });
  const a = await create({ name: 'Moves A' });
  const refusedDraft = await move(a.id, 'DRAFT');
  assertProblem(refusedDraft, 409, 'INVALID_TRANSITION');
  assert.match(refusedDraft.body.detail, 'from DRAFT it can move to ACTIVE or ARCHIVED');
  let r = await move(a.id, 'ACTIVE');
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.status, 'ACTIVE');
  assert.is(r.body.currentVersion, 1);
  for (const refused of ['ACTIVE', 'DRAFT']) {
    const no = await move(a.id, refused);
    assertProblem(no, 409, 'INVALID_TRANSITION');
    assert.match(no.body.detail, 'from ACTIVE it can move to ARCHIVED');
  }
  r = await move(a.id, 'ARCHIVED');
  assert.is(r.body.status, 'ARCHIVED');
  for (const refused of ['ARCHIVED', 'DRAFT']) {
    const no = await move(a.id, refused);
    assertProblem(no, 409, 'INVALID_TRANSITION');
    assert.match(no.body.detail, 'from ARCHIVED it can move to ACTIVE');
    assert.match(no.body.detail, 'DRAFT→ACTIVE, DRAFT→ARCHIVED, ACTIVE→ARCHIVED, ARCHIVED→ACTIVE');
  }
  r = await move(a.id, 'ACTIVE');
  assert.is(r.body.status, 'ACTIVE');
  assert.is((await t.member.get(`${BLOCKS}/${a.id}`)).body.status, 'ACTIVE');

  const b = await create({ name: 'Moves B' });
  r = await move(b.id, 'ARCHIVED');
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.status, 'ARCHIVED');
  assertProblem(await move(b.id, 'PUBLISHED'), 400, 'VALIDATION_FAILED');
});

test('lists filter by status, category and tag, page with a cursor, and carry current without versions', async () => {
  const x = await create({ name: 'Filter legal one', category: 'filter-legal', tags: ['filter-gdpr', 'x'] });
  const y = await create({ name: 'Filter legal two', category: 'filter-legal', tags: ['filter-other'] });
  const z = await create({ name: 'Filter sales', category: 'filter-sales', tags: ['filter-gdpr'] });
  await t.owner.post(`${BLOCKS}/${y.id}/status`, { status: 'ACTIVE' });
  const ids = async (q: string) => (await t.member.get(`${BLOCKS}?${q}`)).body.items.map((i: any) => i.id);
  assert.equal(await ids('category=filter-legal'), [x.id, y.id]);
  assert.equal(await ids('tag=filter-gdpr'), [x.id, z.id]);
  assert.equal(await ids('category=filter-legal&status=ACTIVE'), [y.id]);
  assert.equal(await ids('category=filter-legal&status=DRAFT'), [x.id]);
  assert.equal(await ids('category=filter-legal&tag=filter-gdpr&status=DRAFT'), [x.id]);
  assert.equal(await ids('tag=nothing-has-this'), []);
  const all = (await t.member.get(`${BLOCKS}?limit=200`)).body;
  assert.is(all.nextCursor, null);
  const item = all.items.find((i: any) => i.id === x.id);
  assert.not.ok('versions' in item);
  assert.equal(item.current, x.current);
  const first = (await t.member.get(`${BLOCKS}?tag=filter-gdpr&limit=1`)).body;
  assert.equal(first.items.map((i: any) => i.id), [x.id]);
  assert.type(first.nextCursor, 'string');
  const second = (await t.member.get(`${BLOCKS}?tag=filter-gdpr&limit=1&cursor=${first.nextCursor}`)).body;
  assert.equal(second.items.map((i: any) => i.id), [z.id]);
  assert.is(second.nextCursor, null);
  assertProblem(await t.member.get(`${BLOCKS}?status=LIVE`), 400, 'VALIDATION_FAILED');
  assertProblem(await t.member.get(`${BLOCKS}?cursor=bm9wZQ`), 400, 'VALIDATION_FAILED');
});

test('PATCH changes name, slug, category, tags and description without touching the versions', async () => {
  const b = await create({ name: 'Patch me', category: 'c', description: 'before' });
  const r = await patch(t.owner, `${BLOCKS}/${b.id}`, { name: 'Patched', slug: 'patched-block', category: null, tags: ['a', 'b'], description: null });
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.name, 'Patched');
  assert.is(r.body.slug, 'patched-block');
  assert.is(r.body.category, '');
  assert.equal(r.body.tags, ['a', 'b']);
  assert.not.ok('description' in r.body);
  assert.is(r.body.currentVersion, 1);
  assert.equal(r.body.versions, b.versions);
  assertProblem(await patch(t.owner, `${BLOCKS}/${b.id}`, { markdown: 'x' }), 400, 'VALIDATION_FAILED');
  assertProblem(await patch(t.owner, `${BLOCKS}/${b.id}`, {}), 400, 'VALIDATION_FAILED');
});

test('slugs come from the name, get -2 when taken, an explicit taken slug is 409 CONFLICT, and a bad slug is 400', async () => {
  const a = await create({ name: 'Zahlungsbedingungen – Österreich' });
  assert.is(a.slug, 'zahlungsbedingungen-osterreich');
  const b = await create({ name: 'Zahlungsbedingungen Österreich' });
  assert.is(b.slug, 'zahlungsbedingungen-osterreich-2');
  const c = await create({ name: '!!!' });
  assert.match(c.slug, /^block(-\d+)?$/);
  const taken = await t.owner.post(BLOCKS, { name: 'Other', slug: a.slug, title: 'T', markdown: 'x\n' });
  assertProblem(taken, 409, 'CONFLICT');
  assert.match(taken.body.detail, a.slug);
  assertProblem(await patch(t.owner, `${BLOCKS}/${b.id}`, { slug: a.slug }), 409, 'CONFLICT');
  assert.is((await patch(t.owner, `${BLOCKS}/${a.id}`, { slug: a.slug })).status, 200);
  assertProblem(await t.owner.post(BLOCKS, { name: 'Bad', slug: 'Not A Slug', title: 'T', markdown: 'x\n' }), 400, 'VALIDATION_FAILED');
  // The other organization may use the same slug.
  const there = await t.other.post(BLOCKS, { name: 'Theirs', slug: a.slug, title: 'T', markdown: 'x\n' });
  assert.is(there.status, 201, there.bytes.toString());
});

test('Markdown with errors is 400 with the line and column; so is a schema ajv cannot compile, one with remote references, and variables that do not match the schema', async () => {
  const bad = await t.owner.post(BLOCKS, { name: 'Bad markdown', title: 'T', markdown: 'Intro\n\n::frobnicate{x=1}\n' });
  assertProblem(bad, 400, 'VALIDATION_FAILED');
  assert.is(bad.body.errors[0].code, 'INVALID_DIRECTIVE');
  assert.is(bad.body.errors[0].line, 3);
  assert.is(bad.body.errors[0].column, 1);
  assert.match(bad.body.detail, 'line 3:1');

  const schemaBad = await t.owner.post(BLOCKS, { name: 'Bad schema', title: 'T', markdown: 'x\n', schema: { type: 'object', properties: { n: { type: 'integr' } } } });
  assertProblem(schemaBad, 400, 'VALIDATION_FAILED');
  assert.is(schemaBad.body.errors[0].path, 'schema');
  const remote = await t.owner.post(BLOCKS, { name: 'Remote', title: 'T', markdown: 'x\n', schema: { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } } });
  assertProblem(remote, 400, 'VALIDATION_FAILED');
  assert.is(remote.body.errors[0].path, 'schema.properties.a.$ref');
  assertProblem(await t.owner.post(BLOCKS, { name: 'Id', title: 'T', markdown: 'x\n', schema: { $id: 'urn:x', type: 'object' } }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.owner.post(BLOCKS, { name: 'Array', title: 'T', markdown: 'x\n', schema: { type: 'array' } }), 400, 'VALIDATION_FAILED');
  // A client's regular expression could hold the event loop (catastrophic backtracking): refused, by keyword only.
  const regex = await t.owner.post(BLOCKS, { name: 'Regex', title: 'T', markdown: 'x\n', schema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } } });
  assertProblem(regex, 400, 'VALIDATION_FAILED');
  assert.is(regex.body.errors[0].path, 'schema.properties.code.pattern');
  assertProblem(await t.owner.post(BLOCKS, { name: 'Regex keys', title: 'T', markdown: 'x\n', schema: { type: 'object', patternProperties: { '^x': { type: 'string' } } } }), 400, 'VALIDATION_FAILED');
  const named = await t.owner.post(BLOCKS, { name: 'Named pattern', title: 'T', markdown: 'x\n', schema: { type: 'object', properties: { pattern: { type: 'string' } } }, variables: { pattern: 'stripes' } });
  assert.is(named.status, 201, named.bytes.toString());
  const local = await t.owner.post(BLOCKS, { name: 'Local ref', title: 'T', markdown: 'x\n', schema: { type: 'object', definitions: { s: { type: 'string' } }, properties: { a: { $ref: '#/definitions/s' } } }, variables: { a: 'ok' } });
  assert.is(local.status, 201, local.bytes.toString());

  const mismatch = await t.owner.post(BLOCKS, { name: 'Mismatch', title: 'T', markdown: FOOTER, schema: SCHEMA, variables: { contact: 'not an address', extra: 1 } });
  assertProblem(mismatch, 400, 'VALIDATION_FAILED');
  const paths = mismatch.body.errors.map((e: any) => e.path).sort();
  assert.equal(paths, ['variables.contact', 'variables.extra']);
  const missing = await t.owner.post(BLOCKS, { name: 'Missing', title: 'T', markdown: FOOTER, schema: SCHEMA });
  assertProblem(missing, 400, 'VALIDATION_FAILED');
  assert.is(missing.body.errors[0].path, 'variables.contact');

  const b = await create({ name: 'Checked versions', markdown: FOOTER, schema: SCHEMA, variables: { contact: 'a@example.com' } });
  assertProblem(await t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: 'T', markdown: ':::columns\nx\n:::\n' }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: 'T', markdown: 'x\n', schema: SCHEMA, variables: { contact: 5 } }), 400, 'VALIDATION_FAILED');
  assert.is((await t.owner.get(`${BLOCKS}/${b.id}`)).body.currentVersion, 1);
  assertProblem(await t.owner.post(BLOCKS, { name: 'No title', markdown: 'x\n' }), 400, 'VALIDATION_FAILED');
});

test('limits: Markdown over 256 KiB, a schema over 64 KiB and more than 20 tags or a tag over 50 characters are 400; the 201st version is 400 naming the limit', async () => {
  const big = await t.owner.post(BLOCKS, { name: 'Big', title: 'T', markdown: 'a'.repeat(256 * 1024 + 1) });
  assertProblem(big, 400, 'VALIDATION_FAILED');
  assert.is(big.body.errors[0].code, 'LIMIT_EXCEEDED');
  const paragraphs = ('Some words in a paragraph. '.repeat(30) + '\n\n').repeat(400).slice(0, 256 * 1024 - 1) + '\n';
  assert.is(Buffer.byteLength(paragraphs), 256 * 1024);
  const fits = await t.owner.post(BLOCKS, { name: 'Just fits', title: 'T', markdown: paragraphs });
  assert.is(fits.status, 201, fits.bytes.toString().slice(0, 500));
  const props: Record<string, unknown> = {};
  for (let i = 0; i < 2000; i++) props[`field${i}`] = { type: 'string', description: 'x'.repeat(30) };
  const bigSchema = await t.owner.post(BLOCKS, { name: 'Big schema', title: 'T', markdown: 'x\n', schema: { type: 'object', properties: props } });
  assertProblem(bigSchema, 400, 'VALIDATION_FAILED');
  assert.is(bigSchema.body.errors[0].code, 'LIMIT_EXCEEDED');
  assertProblem(await t.owner.post(BLOCKS, { name: 'Tags', title: 'T', markdown: 'x\n', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.owner.post(BLOCKS, { name: 'Tag', title: 'T', markdown: 'x\n', tags: ['x'.repeat(51)] }), 400, 'VALIDATION_FAILED');

  const b = await create({ name: 'Many versions' });
  for (let v = 2; v <= 200; v++) {
    const r = await t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: `V${v}`, markdown: `Text ${v}.\n` });
    assert.is(r.status, 201, r.bytes.toString());
  }
  const over = await t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: 'V201', markdown: 'Text.\n' });
  assertProblem(over, 400, 'VALIDATION_FAILED');
  assert.match(over.body.detail, '200');
  assert.is(over.body.errors[0].code, 'LIMIT_EXCEEDED');
  assertProblem(await t.owner.post(`${BLOCKS}/${b.id}/versions/1/restore`, {}), 400, 'VALIDATION_FAILED');
  assert.is((await t.owner.get(`${BLOCKS}/${b.id}`)).body.versions.length, 200);
});

test('members read blocks (200) but every write is 403; admins and owners write', async () => {
  const b = await create({ name: 'Roles' }, t.admin);
  assert.is((await t.member.get(BLOCKS)).status, 200);
  assert.is((await t.member.get(`${BLOCKS}/${b.id}`)).status, 200);
  const writes: Array<Promise<ApiResponse>> = [
    t.member.post(BLOCKS, { name: 'Nope', title: 'T', markdown: 'x\n' }),
    patch(t.member, `${BLOCKS}/${b.id}`, { name: 'Nope' }),
    t.member.post(`${BLOCKS}/${b.id}/versions`, { title: 'T', markdown: 'x\n' }),
    t.member.post(`${BLOCKS}/${b.id}/versions/1/restore`, {}),
    t.member.post(`${BLOCKS}/${b.id}/status`, { status: 'ACTIVE' }),
    del(t.member, `${BLOCKS}/${b.id}`),
  ];
  for (const r of await Promise.all(writes)) assertProblem(r, 403, 'FORBIDDEN');
  const unchanged = (await t.member.get(`${BLOCKS}/${b.id}`)).body;
  assert.equal(unchanged, b);
  assert.is((await t.admin.post(`${BLOCKS}/${b.id}/status`, { status: 'ACTIVE' })).status, 200);
});

test("another organization's block is 404 on every route and unchanged; its list does not show it", async () => {
  const b = await create({ name: 'Private' });
  const answers = await Promise.all([
    t.other.get(`${BLOCKS}/${b.id}`),
    patch(t.other, `${BLOCKS}/${b.id}`, { name: 'Mine' }),
    t.other.post(`${BLOCKS}/${b.id}/versions`, { title: 'T', markdown: 'x\n' }),
    t.other.post(`${BLOCKS}/${b.id}/versions/1/restore`, {}),
    t.other.post(`${BLOCKS}/${b.id}/status`, { status: 'ACTIVE' }),
    del(t.other, `${BLOCKS}/${b.id}`),
  ]);
  for (const r of answers) assertProblem(r, 404, 'NOT_FOUND');
  assert.not.ok((await t.other.get(`${BLOCKS}?limit=200`)).body.items.some((i: any) => i.id === b.id));
  assert.equal((await t.owner.get(`${BLOCKS}/${b.id}`)).body, b);
  assertProblem(await t.owner.get(`${BLOCKS}/not-a-uuid`), 404, 'NOT_FOUND');
});

test('DELETE removes the block with its versions (204, then 404)', async () => {
  const b = await create({ name: 'Doomed' });
  await t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: 'T2', markdown: 'x\n' });
  const r = await del(t.owner, `${BLOCKS}/${b.id}`);
  assert.is(r.status, 204);
  assert.is(r.bytes.length, 0);
  assertProblem(await t.owner.get(`${BLOCKS}/${b.id}`), 404, 'NOT_FOUND');
  assertProblem(await del(t.owner, `${BLOCKS}/${b.id}`), 404, 'NOT_FOUND');
  assert.not.ok((await t.owner.get(`${BLOCKS}?limit=200`)).body.items.some((i: any) => i.id === b.id));
  // Its slug is free again.
  assert.is((await create({ name: 'Doomed' })).slug, 'doomed');
});

test('OpenAPI lists every reusable-block route with its schemas, and INVALID_TRANSITION among the error codes', async () => {
  const doc = (await t.owner.withKey(null).get(`${API}/openapi.json`)).body;
  const paths = doc.paths;
  const at = (p: string) => paths[`${API}${p}`];
  assert.ok(at('/reusable-blocks').get && at('/reusable-blocks').post);
  assert.ok(at('/reusable-blocks/{blockId}').get && at('/reusable-blocks/{blockId}').patch && at('/reusable-blocks/{blockId}').delete);
  assert.ok(at('/reusable-blocks/{blockId}/versions').post);
  assert.ok(at('/reusable-blocks/{blockId}/versions/{version}/restore').post);
  assert.ok(at('/reusable-blocks/{blockId}/status').post);
  assert.ok(at('/reusable-blocks').post.responses['201']);
  const params = at('/reusable-blocks').get.parameters.map((p: any) => p.name);
  for (const name of ['status', 'category', 'tag', 'limit', 'cursor']) assert.ok(params.includes(name), name);
  assert.match(JSON.stringify(doc), 'INVALID_TRANSITION');
});

// Last: it ends the suite's server.
test('blocks and their whole version history survive a crash of the server (kill -9) and a restart', async () => {
  const b = await create({ name: 'Durable', category: 'keep', tags: ['k'], schema: SCHEMA, variables: { contact: 'k@example.com' }, markdown: FOOTER });
  await t.owner.post(`${BLOCKS}/${b.id}/versions`, { title: 'Two', markdown: 'Second.\n', changeNote: 'shorter' });
  await t.owner.post(`${BLOCKS}/${b.id}/versions/1/restore`, {});
  const before = (await t.owner.post(`${BLOCKS}/${b.id}/status`, { status: 'ACTIVE' })).body;
  await t.server.kill();
  const again = await startServer({ dataDir: t.server.dataDir });
  try {
    const after = await new ApiClient(again.baseUrl, OWNER_KEY).get(`${BLOCKS}/${b.id}`);
    assert.is(after.status, 200, after.bytes.toString());
    assert.equal(after.body, before);
    assert.is(after.body.versions[2].restoredFromVersion, 1);
  } finally {
    await again.stop();
  }
});

test.run();
