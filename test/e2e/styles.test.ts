// Style presets through the HTTP API: the built-in catalog, workspace CRUD and copies, immutability, tenancy, defaults, and a preset changing the rendered font.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, admin, mainAndOtherOrg, OWNER_KEY, cleanup, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';

const STYLES = '/api/v1/dev/styles';
const SYSTEM_IDS = ['system:modern-report', 'system:classic-serif', 'system:academic-paper', 'system:corporate-letter', 'system:minimal-memo', 'system:invoice'];

const dataDir = tempDir();
let server: RunningServer;
let owner: ApiClient;
let member: ApiClient;
let otherOrg: ApiClient;
let mainOrgId: string;

test.before(async () => {
  const orgs = await mainAndOtherOrg(dataDir);
  mainOrgId = orgs.mainOrgId;
  const memberKey = await admin(dataDir, ['key', 'create', '--org', mainOrgId, '--role', 'member']);
  assert.is(memberKey.code, 0, memberKey.stderr);
  server = await startServer({ dataDir });
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  member = new ApiClient(server.baseUrl, memberKey.json.key);
  otherOrg = new ApiClient(server.baseUrl, orgs.otherKey);
});

test.after(async () => {
  await server?.stop();
  cleanup(dataDir);
});

const patch = (api: ApiClient, p: string, body: unknown) => api.request('PATCH', p, body);
const del = (api: ApiClient, p: string) => api.request('DELETE', p);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function createPreset(api: ApiClient, body: Record<string, unknown>) {
  const r = await api.post(STYLES, { definition: { fonts: { family: 'Noto Serif', size: 11 } }, ...body });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

test('lists at least six built-in presets, then the organization\'s own, filtered by source', async () => {
  const mine = await createPreset(owner, { name: 'Listed' });
  const all = await owner.get(STYLES);
  assert.is(all.status, 200);
  const ids = all.body.items.map((p: any) => p.id);
  assert.equal(ids.slice(0, SYSTEM_IDS.length), SYSTEM_IDS);
  assert.ok(ids.includes(mine.id));
  assert.equal((await owner.get(`${STYLES}?source=all`)).body.items.map((p: any) => p.id), ids);

  const system = (await owner.get(`${STYLES}?source=system`)).body.items;
  assert.equal(system.map((p: any) => p.id), SYSTEM_IDS);
  for (const p of system) {
    assert.is(p.source, 'system');
    assert.is(p.editable, false);
    assert.is(p.isDefault, false);
    assert.is(p.orgId, undefined);
  }
  const workspace = (await owner.get(`${STYLES}?source=workspace`)).body.items;
  assert.ok(workspace.length >= 1);
  assert.ok(workspace.every((p: any) => p.source === 'workspace' && p.editable === true && p.orgId === mainOrgId));
});

test('answers 400 VALIDATION_FAILED for a source other than workspace, system or all', async () => {
  const r = await owner.get(`${STYLES}?source=mine`);
  assert.is(r.status, 400);
  assert.is(r.body.code, 'VALIDATION_FAILED');
  assert.is(r.body.errors[0].path, 'query.source');
});

test('serves a built-in preset by its system: id with every field of the spec table', async () => {
  const r = await member.get(`${STYLES}/system:academic-paper`);
  assert.is(r.status, 200);
  const p = r.body;
  for (const f of ['id', 'source', 'editable', 'name', 'isDefault', 'tags', 'definition', 'version', 'createdAt', 'updatedAt']) assert.ok(f in p, f);
  assert.is(p.id, 'system:academic-paper');
  assert.is(p.definition.citationStyle, 'apa');
  assert.is(p.version, 1);
  assert.ok(Array.isArray(p.tags) && p.tags.length > 0);
  // The URL-encoded colon reaches the same preset.
  assert.is((await member.get(`${STYLES}/system%3Aacademic-paper`)).body.id, 'system:academic-paper');
  assert.is((await member.get(`${STYLES}/system:no-such-style`)).status, 404);
  assert.is((await member.get(`${STYLES}/not-a-uuid`)).status, 404);
});

test('creates a workspace preset (201 with Location) and reads it back unchanged', async () => {
  const definition = { fonts: { family: 'Libertinus Serif', size: 12 }, colors: { primary: '#123456' }, footer: { text: 'Page {{page}}', align: 'center' }, citationStyle: 'ieee', locale: 'de-CH' };
  const r = await owner.post(STYLES, { name: 'House style', description: 'For reports', category: 'report', tags: ['serif', 'house'], definition });
  assert.is(r.status, 201);
  assert.match(r.body.id, /^[0-9a-f-]{36}$/);
  assert.is(r.headers.get('location'), `${STYLES}/${r.body.id}`);
  assert.equal(r.body.definition, definition);
  assert.is(r.body.source, 'workspace');
  assert.is(r.body.editable, true);
  assert.is(r.body.isDefault, false);
  assert.is(r.body.version, 1);
  assert.is(r.body.orgId, mainOrgId);
  assert.is(r.body.createdAt, r.body.updatedAt);
  const again = await owner.get(`${STYLES}/${r.body.id}`);
  assert.equal(again.body, r.body);
});

test('rejects a definition that breaks the defaults contract with 400 and paths under definition', async () => {
  const r = await owner.post(STYLES, { name: 'Bad', definition: { fonts: { size: 200 }, colors: { primary: 'blue' }, headings: { h1: { weight: 'heavy' } }, fontz: {} } });
  assert.is(r.status, 400);
  assert.is(r.body.code, 'VALIDATION_FAILED');
  const byPath = Object.fromEntries(r.body.errors.map((e: any) => [e.path, e]));
  assert.is(byPath['definition.fonts.size']?.code, 'LIMIT_EXCEEDED');
  assert.match(byPath['definition.fonts.size'].message, 'between 4 and 96');
  assert.match(byPath['definition.colors.primary']?.message, 'hex color');
  assert.ok(byPath['definition.headings.h1.weight'], JSON.stringify(r.body.errors));
  assert.ok(byPath['definition.fontz'], JSON.stringify(r.body.errors));
  const notObject = await owner.post(STYLES, { name: 'Bad', definition: 'serif' });
  assert.equal(notObject.body.errors, [{ path: 'definition', message: 'must be an object', code: 'INVALID_FIELD' }]);
  const missing = await owner.post(STYLES, { name: 'No definition' });
  assert.is(missing.body.errors[0].path, 'definition');
});

test('rejects names, tags, descriptions and categories outside their limits', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
    [{ tags: ['x'.repeat(41)] }, 'tags[0]'],
    [{ description: 'x'.repeat(1001) }, 'description'],
    [{ category: 'x'.repeat(51) }, 'category'],
    [{ orgId: 'someone-else' }, 'orgId'],
  ];
  for (const [fields, path] of cases) {
    const r = await owner.post(STYLES, { name: 'Ok', definition: {}, ...fields });
    assert.is(r.status, 400, path);
    assert.ok(r.body.errors.some((e: any) => e.path === path), `${path}: ${JSON.stringify(r.body.errors)}`);
  }
});

test('PATCH changes the given fields, replaces the definition whole, adds 1 to version and moves updatedAt', async () => {
  const p = await createPreset(owner, { name: 'Draft', description: 'first', category: 'memo', definition: { fonts: { size: 10 }, colors: { primary: '#000000' } } });
  await sleep(5);
  const r = await patch(owner, `${STYLES}/${p.id}`, { name: 'Final', definition: { fonts: { size: 12 } }, description: null });
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.body.name, 'Final');
  assert.equal(r.body.definition, { fonts: { size: 12 } });
  assert.is(r.body.description, undefined);
  assert.is(r.body.category, 'memo');
  assert.is(r.body.version, 2);
  assert.is(r.body.createdAt, p.createdAt);
  assert.ok(r.body.updatedAt > p.updatedAt);
  const third = await patch(owner, `${STYLES}/${p.id}`, { tags: ['a'] });
  assert.is(third.body.version, 3);
  assert.equal((await owner.get(`${STYLES}/${p.id}`)).body, third.body);
});

test('PATCH refuses an empty change and an invalid definition without bumping the version', async () => {
  const p = await createPreset(owner, { name: 'Stable' });
  const empty = await patch(owner, `${STYLES}/${p.id}`, {});
  assert.is(empty.status, 400);
  assert.match(empty.body.errors[0].message, 'at least one');
  const bad = await patch(owner, `${STYLES}/${p.id}`, { definition: { paragraph: { lineHeight: 9 } } });
  assert.is(bad.status, 400);
  assert.is(bad.body.errors[0].path, 'definition.paragraph.lineHeight');
  assert.is((await owner.get(`${STYLES}/${p.id}`)).body.version, 1);
});

test('answers 403 FORBIDDEN to PATCH or DELETE of a built-in preset, telling to copy it', async () => {
  const change = await patch(owner, `${STYLES}/system:modern-report`, { name: 'Mine now' });
  assert.is(change.status, 403);
  assert.is(change.body.code, 'FORBIDDEN');
  assert.match(change.body.detail, 'copy');
  assert.match(change.body.detail, '/styles/system:modern-report/copy');
  const remove = await del(owner, `${STYLES}/system:modern-report`);
  assert.is(remove.status, 403);
  assert.match(remove.body.detail, 'copy');
  const still = await owner.get(`${STYLES}/system:modern-report`);
  assert.is(still.body.name, 'Modern report');
  assert.is((await patch(owner, `${STYLES}/system:no-such-style`, { name: 'x' })).status, 404);
});

test('copies a built-in preset into an independent workspace preset', async () => {
  const original = (await owner.get(`${STYLES}/system:invoice`)).body;
  const r = await owner.request('POST', `${STYLES}/system:invoice/copy`);
  assert.is(r.status, 201, r.bytes.toString());
  assert.is(r.headers.get('location'), `${STYLES}/${r.body.id}`);
  assert.is(r.body.source, 'workspace');
  assert.is(r.body.editable, true);
  assert.is(r.body.name, 'Invoice (copy)');
  assert.is(r.body.version, 1);
  assert.is(r.body.isDefault, false);
  assert.equal(r.body.definition, original.definition);
  assert.equal(r.body.tags, original.tags);
  const changed = await patch(owner, `${STYLES}/${r.body.id}`, { definition: { ...original.definition, fonts: { family: 'Noto Serif' } } });
  assert.is(changed.status, 200);
  assert.equal((await owner.get(`${STYLES}/system:invoice`)).body.definition, original.definition);
});

test('copies a workspace preset under a new name; the two change independently', async () => {
  const a = await createPreset(owner, { name: 'Base', tags: ['x'], definition: { fonts: { size: 10 } } });
  const b = await owner.post(`${STYLES}/${a.id}/copy`, { name: 'Derived' });
  assert.is(b.status, 201);
  assert.is(b.body.name, 'Derived');
  assert.is.not(b.body.id, a.id);
  await patch(owner, `${STYLES}/${a.id}`, { definition: { fonts: { size: 14 } } });
  assert.equal((await owner.get(`${STYLES}/${b.body.id}`)).body.definition, { fonts: { size: 10 } });
  const badName = await owner.post(`${STYLES}/${a.id}/copy`, { name: '', extra: 1 });
  assert.is(badName.status, 400);
  assert.is((await owner.post(`${STYLES}/00000000-0000-4000-8000-000000000000/copy`, {})).status, 404);
});

test('keeps at most one default preset per organization', async () => {
  const a = await createPreset(owner, { name: 'Default A', isDefault: true });
  assert.is(a.isDefault, true);
  const b = await createPreset(owner, { name: 'Default B', isDefault: true });
  const defaults = async () => (await owner.get(`${STYLES}?source=workspace`)).body.items.filter((p: any) => p.isDefault).map((p: any) => p.id);
  assert.equal(await defaults(), [b.id]);
  const again = await patch(owner, `${STYLES}/${a.id}`, { isDefault: true });
  assert.is(again.body.isDefault, true);
  assert.equal(await defaults(), [a.id]);
  // The flag moving away is not a new version of the other preset.
  assert.is((await owner.get(`${STYLES}/${b.id}`)).body.version, 1);
  // Another organization's default is its own business.
  const theirs = await createPreset(otherOrg, { name: 'Their default', isDefault: true });
  assert.equal(await defaults(), [a.id]);
  assert.is((await otherOrg.get(`${STYLES}/${theirs.id}`)).body.isDefault, true);
  await patch(owner, `${STYLES}/${a.id}`, { isDefault: false });
  assert.equal(await defaults(), []);
});

test("makes another organization's presets invisible (404) and leaves them out of its list", async () => {
  const mine = await createPreset(owner, { name: 'Private' });
  const url = `${STYLES}/${mine.id}`;
  assert.is((await otherOrg.get(url)).status, 404);
  assert.is((await patch(otherOrg, url, { name: 'stolen' })).status, 404);
  assert.is((await del(otherOrg, url)).status, 404);
  assert.is((await otherOrg.post(`${url}/copy`, {})).status, 404);
  const theirs = (await otherOrg.get(STYLES)).body.items.map((p: any) => p.id);
  assert.not.ok(theirs.includes(mine.id));
  assert.ok(theirs.includes('system:modern-report'));
  assert.is((await owner.get(url)).body.name, 'Private');
});

test('lets member keys read and write workspace presets (any key of the organization)', async () => {
  const p = await createPreset(member, { name: 'By a member' });
  assert.is((await patch(member, `${STYLES}/${p.id}`, { name: 'Renamed by a member' })).status, 200);
  assert.is((await owner.get(`${STYLES}/${p.id}`)).body.name, 'Renamed by a member');
  assert.is((await del(member, `${STYLES}/${p.id}`)).status, 204);
  assert.is((await owner.withKey(null).get(STYLES)).status, 401);
});

test('DELETE answers 204, then the preset is gone (404)', async () => {
  const p = await createPreset(owner, { name: 'Short-lived' });
  const r = await del(owner, `${STYLES}/${p.id}`);
  assert.is(r.status, 204);
  assert.is(r.bytes.length, 0);
  assert.is((await owner.get(`${STYLES}/${p.id}`)).status, 404);
  assert.is((await del(owner, `${STYLES}/${p.id}`)).status, 404);
});

test('keeps workspace presets across a restart', async () => {
  const p = await createPreset(owner, { name: 'Durable', isDefault: true });
  await patch(owner, `${STYLES}/${p.id}`, { tags: ['kept'] });
  assert.is(await server.stop(), 0);
  server = await startServer({ dataDir });
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  member = new ApiClient(server.baseUrl, member.key);
  otherOrg = new ApiClient(server.baseUrl, otherOrg.key);
  const again = await owner.get(`${STYLES}/${p.id}`);
  assert.is(again.status, 200);
  assert.is(again.body.version, 2);
  assert.equal(again.body.tags, ['kept']);
  assert.is(again.body.isDefault, true);
});

// ---------------------------------------------------------------- rendering with a preset

async function renderFonts(api: ApiClient, defaults: unknown, extra: Record<string, unknown> = {}): Promise<string> {
  const config = {
    document: { type: 'pdf', title: 'Preset check' },
    sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Heading' }, { type: 'text', text: 'Body text in the preset font.' }] }],
    ...(defaults === undefined ? {} : { defaults }),
  };
  const created = await api.post('/api/v1/dev/render', { config, ...extra });
  assert.is(created.status, 202, created.bytes.toString());
  const deadline = Date.now() + 60_000;
  let job: any;
  for (;;) {
    job = (await api.get(`/api/v1/dev/render/${created.body.jobId}`)).body;
    if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
    if (Date.now() > deadline) throw new Error(`render ${job.jobId} still ${job.status}`);
    await sleep(50);
  }
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.warnings, []);
  const pdf = await api.download(job.downloadUrl);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-styles-'));
  try {
    const file = path.join(dir, 'out.pdf');
    await writeFile(file, pdf.bytes);
    return (await promisify(execFile)('pdffonts', [file])).stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('a built-in preset given as defaults changes the embedded font (pdffonts)', async () => {
  const serif = (await owner.get(`${STYLES}/system:classic-serif`)).body.definition;
  const sans = (await owner.get(`${STYLES}/system:modern-report`)).body.definition;
  const academic = (await owner.get(`${STYLES}/system:academic-paper`)).body.definition;
  const serifFonts = await renderFonts(owner, serif);
  const sansFonts = await renderFonts(owner, sans);
  assert.match(serifFonts, 'NotoSerif');
  assert.not.match(serifFonts, /NotoSans-|NotoSans\b/);
  assert.match(sansFonts, 'NotoSans');
  assert.not.match(sansFonts, 'NotoSerif');
  assert.match(await renderFonts(owner, academic), /NewCM|NewComputerModern/);
});

test('POST /render takes a stylePresetId beneath config.defaults; another organization\'s preset is 400 STYLE_NOT_FOUND', async () => {
  assert.match(await renderFonts(owner, undefined, { stylePresetId: 'system:classic-serif' }), 'NotoSerif');
  // config.defaults goes over the preset field by field: the family changes, the rest of the preset stays.
  const overridden = await renderFonts(owner, { fonts: { family: 'Noto Sans Mono' } }, { stylePresetId: 'system:classic-serif' });
  assert.match(overridden, 'NotoSansMono');
  const mine = await owner.post(STYLES, { name: 'Private serif', definition: { fonts: { family: 'Noto Serif' } } });
  assert.is(mine.status, 201);
  const config = { document: { type: 'pdf' }, sections: [] };
  const refused = await otherOrg.post('/api/v1/dev/render', { config, stylePresetId: mine.body.id });
  assert.is(refused.status, 400, refused.bytes.toString());
  assert.equal(refused.body.errors.map((e: any) => [e.path, e.code]), [['stylePresetId', 'STYLE_NOT_FOUND']]);
  const badDefaults = await owner.post('/api/v1/dev/render', { config: { ...config, defaults: { fonts: { size: 500 } } }, stylePresetId: 'system:classic-serif' });
  assert.is(badDefaults.status, 400);
  assert.equal(badDefaults.body.errors.map((e: any) => e.path), ['config.defaults.fonts.size']);
});

test('every built-in preset renders without warnings', async () => {
  for (const id of SYSTEM_IDS) {
    const definition = (await owner.get(`${STYLES}/${id}`)).body.definition;
    const fonts = await renderFonts(owner, definition);
    assert.ok(fonts.split('\n').length > 2, id);
  }
});

test.run();
