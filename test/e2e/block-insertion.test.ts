// Reusable blocks inserted into documents through the HTTP API: linked blocks resolve at every render (current or
// pinned version), snapshots are copied when the document is saved and keep their provenance; the two differ once the
// block changes (read back with pdftotext). Also: the Markdown forms round-trip, status and deletion rules, variables
// against the block's schema, nesting, cycles, other organizations' blocks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { useTenants, type Tenants } from '../helpers/tenants.js';
import type { ApiClient, ApiResponse } from '../helpers/api-client.js';
import { waitForRender } from '../helpers/render-jobs.js';
import { BULK, downloadBulkZip, pdfText, saveLetter, waitForBulk } from '../helpers/bulk-jobs.js';

const API = '/api/v1/dev';
const BLOCKS = `${API}/reusable-blocks`;
const DOCS = `${API}/documents`;

let t: Tenants;
useTenants(test, (started) => (t = started));

async function block(markdown: string, extra: Record<string, unknown> = {}, status: 'ACTIVE' | 'DRAFT' = 'ACTIVE', api: ApiClient = t.owner): Promise<any> {
  const r = await api.post(BLOCKS, { name: `Block ${Math.random().toString(36).slice(2, 8)}`, title: 'Content', markdown, ...extra });
  assert.is(r.status, 201, r.bytes.toString());
  if (status === 'ACTIVE') assert.is((await api.post(`${BLOCKS}/${r.body.id}/status`, { status: 'ACTIVE' })).status, 200);
  return r.body;
}

async function newVersion(id: string, markdown: string, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  return t.owner.post(`${BLOCKS}/${id}/versions`, { title: 'Content', markdown, ...extra });
}

const config = (...content: unknown[]) => ({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Agreement' }, ...content] }] });
const linked = (blockId: string, version?: number) => ({ type: 'blockRef', blockId, mode: 'linked', ...(version ? { version } : {}) });
const snapshot = (blockId: string, version?: number) => ({ type: 'blockRef', blockId, mode: 'snapshot', ...(version ? { version } : {}) });

async function saveDoc(body: unknown, api: ApiClient = t.owner): Promise<any> {
  const r = await api.post(DOCS, body);
  assert.is(r.status, 201, r.bytes.toString());
  return r.body;
}

/** The text of the PDF the render gives (the job must complete). */
async function renderedText(path: string, body: unknown = {}, api: ApiClient = t.owner): Promise<string> {
  const created = await api.post(path, body);
  assert.is(created.status, 202, created.bytes.toString());
  const job = await waitForRender(api, created.body.jobId);
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  const file = await api.download(job.downloadUrl);
  assert.is(file.status, 200);
  return pdfText(file.bytes);
}

function assertRefused(r: ApiResponse, path: string, code: string, words: RegExp): void {
  assert.is(r.status, 400, r.bytes.toString());
  const error = r.body.errors.find((e: any) => e.path === path);
  assert.ok(error, `no error at ${path}: ${r.bytes.toString()}`);
  assert.is(error.code, code);
  assert.match(error.message, words);
}

test('linked follows the block, snapshot keeps the content it copied: they differ once the block changes', async () => {
  const terms = await block('## Payment terms\n\nPay within 30 days. Code ALPHA1.\n');
  const link = await saveDoc({ name: 'Linked', config: config(linked(terms.id)) });
  const pinned = await saveDoc({ name: 'Pinned', config: config(linked(terms.id, 1)) });
  const md = await t.owner.post(`${DOCS}/markdown`, { name: 'Snapshot', content: `# Agreement\n\n::block{id=${terms.id} mode=snapshot}\n` });
  assert.is(md.status, 201, md.bytes.toString());
  const snap = md.body;

  // The snapshot is the block's content now, with where it came from.
  const ref = snap.config.sections[0].content[1];
  assert.equal({ type: ref.type, blockId: ref.blockId, mode: ref.mode, version: ref.version }, { type: 'blockRef', blockId: terms.id, mode: 'snapshot', version: 1 });
  assert.equal(ref.content, [{ type: 'h2', text: 'Payment terms' }, { type: 'text', text: 'Pay within 30 days. Code ALPHA1.' }]);
  // The linked one stays a reference.
  assert.equal(link.config.sections[0].content[1], linked(terms.id));

  assert.match(await renderedText(`${API}/render/document/${link.id}`), /Pay within 30 days\. Code ALPHA1\./);
  assert.is((await newVersion(terms.id, '## Payment terms\n\nPay within 14 days. Code BETA2.\n')).status, 201);

  const linkedText = await renderedText(`${API}/render/document/${link.id}`);
  assert.match(linkedText, /Payment terms Pay within 14 days\. Code BETA2\./);
  assert.not.match(linkedText, /ALPHA1/);
  const snapText = await renderedText(`${API}/render/document/${snap.id}`);
  assert.match(snapText, /Payment terms Pay within 30 days\. Code ALPHA1\./);
  assert.not.match(snapText, /BETA2/);
  const pinnedText = await renderedText(`${API}/render/document/${pinned.id}`);
  assert.match(pinnedText, /ALPHA1/);
  assert.not.match(pinnedText, /BETA2/);

  // A snapshot is the document's to edit: its content changes, its provenance stays.
  const edited = structuredClone(snap.config);
  edited.sections[0].content[1].content[1].text = 'Pay within 60 days. Code EDITED3.';
  const patched = await t.owner.request('PATCH', `${DOCS}/${snap.id}`, { config: edited });
  assert.is(patched.status, 200, patched.bytes.toString());
  assert.match(await renderedText(`${API}/render/document/${snap.id}`), /EDITED3/);

  // Once the block is deleted, the snapshot still renders and the linked reference is refused.
  assert.is((await t.owner.request('DELETE', `${BLOCKS}/${terms.id}`)).status, 204);
  assert.match(await renderedText(`${API}/render/document/${snap.id}`), /EDITED3/);
  assertRefused(await t.owner.post(`${API}/render/document/${link.id}`, {}), 'config.sections[0].content[1]', 'BLOCK_UNAVAILABLE', /not found/);
});

test('Markdown: ::block{id=… mode=linked} and a saved snapshot (:::block … :::) read back and write back unchanged', async () => {
  const inner = await block('Inner clause INNER7.\n');
  const outer = await block(`Outer clause OUTER8.\n\n::block{id=${inner.id} mode=snapshot}\n`);
  const source = `# Terms\n\n::block{id=${outer.id} mode=linked}\n\n::block{id=${outer.id} mode=snapshot version=1}\n\nThe end.\n`;
  const created = await t.owner.post(`${DOCS}/markdown`, { content: source });
  assert.is(created.status, 201, created.bytes.toString());
  const doc = created.body;
  const read = await t.owner.get(`${DOCS}/${doc.id}/markdown`);
  assert.is(read.status, 200);
  assert.is(read.body.format, 'markdown');
  const markdown: string = read.body.markdown;
  assert.ok(markdown.includes(`\n::block{id=${outer.id} mode=linked}\n`), markdown);
  // The snapshot holds the outer block's content and, nested in it, the inner block's (each with its version).
  assert.ok(markdown.includes(`::::block{id=${outer.id} mode=snapshot version=1}\n\nOuter clause OUTER8.\n\n:::block{id=${inner.id} mode=snapshot version=1}\n\nInner clause INNER7.\n\n:::\n\n::::`), markdown);

  const again = await t.owner.request('PATCH', `${DOCS}/${doc.id}/markdown`, { markdown });
  assert.is(again.status, 200, again.bytes.toString());
  assert.is(again.body.version, 2);
  assert.is(JSON.stringify(again.body.config), JSON.stringify(doc.config));
  const text = await renderedText(`${API}/render/document/${doc.id}`);
  assert.match(text, /Terms Outer clause OUTER8\. Inner clause INNER7\. Outer clause OUTER8\. Inner clause INNER7\. The end\./);

  // A container holds a snapshot's content only.
  const wrong = await t.owner.post(`${DOCS}/markdown`, { content: `:::block{id=${outer.id} mode=linked}\n\nText\n\n:::\n` });
  assert.is(wrong.status, 400);
  assert.match(wrong.body.errors[0].message, /write ::block\{id=… mode=linked\} on a line of its own/);
  assert.is(wrong.body.errors[0].line, 1);
});

test('renders insert blocks from JSON and Markdown bodies too (POST /render, /render/markdown)', async () => {
  const b = await block('Clause from a block RENDER5.\n');
  assert.match(await renderedText(`${API}/render`, { config: config(linked(b.id)) }), /Agreement Clause from a block RENDER5\./);
  assert.match(await renderedText(`${API}/render`, { config: config(snapshot(b.id)) }), /RENDER5/);
  assert.match(await renderedText(`${API}/render/markdown`, { content: `Before.\n\n::block{id=${b.id}}\n\nAfter.\n` }), /Before\. Clause from a block RENDER5\. After\./);
  // content belongs to snapshots only.
  assertRefused(await t.owner.post(`${API}/render`, { config: config({ ...linked(b.id), content: [{ type: 'text', text: 'x' }] }) }), 'config.sections[0].content[1].content', 'INVALID_FIELD', /snapshot blocks only/);
  // The elements of a snapshot are checked like any others, at their own paths.
  assertRefused(await t.owner.post(`${API}/render`, { config: config({ ...snapshot(b.id, 1), content: [{ type: 'text', text: 'ok' }, { type: 'h7', text: 'x' }] }) }), 'config.sections[0].content[1].content[1].type', 'INVALID_FIELD', /must be one of|must be/);
});

test('only ACTIVE blocks are inserted: DRAFT and ARCHIVED blocks are refused at render (linked) and at save (snapshot)', async () => {
  const draft = await block('Draft clause DRAFT4.\n', {}, 'DRAFT');
  // A document may link a DRAFT block (it is being prepared): saved with a warning, refused at render until ACTIVE.
  const doc = await saveDoc({ config: config(linked(draft.id)) });
  const warning = doc.warnings.find((w: any) => w.code === 'BLOCK_UNAVAILABLE');
  assert.ok(warning, JSON.stringify(doc.warnings));
  assert.is(warning.path, 'config.sections[0].content[1]');
  assertRefused(await t.owner.post(`${API}/render/document/${doc.id}`, {}), 'config.sections[0].content[1]', 'BLOCK_UNAVAILABLE', /DRAFT.*activate it/);
  assertRefused(await t.owner.post(DOCS, { config: config(snapshot(draft.id)) }), 'config.sections[0].content[1]', 'BLOCK_UNAVAILABLE', /DRAFT/);

  assert.is((await t.owner.post(`${BLOCKS}/${draft.id}/status`, { status: 'ACTIVE' })).status, 200);
  assert.match(await renderedText(`${API}/render/document/${doc.id}`), /DRAFT4/);
  assert.is((await t.owner.post(`${BLOCKS}/${draft.id}/status`, { status: 'ARCHIVED' })).status, 200);
  assertRefused(await t.owner.post(`${API}/render/document/${doc.id}`, {}), 'config.sections[0].content[1]', 'BLOCK_UNAVAILABLE', /ARCHIVED/);
  assertRefused(await t.owner.post(`${API}/render/markdown`, { content: `::block{id=${draft.id} mode=linked}\n` }), 'sections[0].content[0]', 'BLOCK_UNAVAILABLE', /ARCHIVED/);
  // An unknown version is refused wherever it is named.
  assertRefused(await t.owner.post(DOCS, { config: config(linked(draft.id, 9)) }), 'config.sections[0].content[1]', 'BLOCK_UNAVAILABLE', /no version 9/);
});

test("another organization's block is invisible: refused as not found, never rendered", async () => {
  const mine = await block('Secret clause SECRET9.\n');
  const r = await t.other.post(`${API}/render`, { config: config(linked(mine.id)) });
  assertRefused(r, 'config.sections[0].content[1]', 'BLOCK_UNAVAILABLE', /not found/);
  assert.not.match(r.bytes.toString(), /SECRET9/);
  assertRefused(await t.other.post(DOCS, { config: config(snapshot(mine.id)) }), 'config.sections[0].content[1]', 'BLOCK_UNAVAILABLE', /not found/);
});

test("a block's variables: its defaults fill the document's, values are checked against its schema at render", async () => {
  const schema = { type: 'object', properties: { contact: { type: 'string', format: 'email' } }, required: ['contact'] };
  const footer = await block('Questions? Write to {{contact}}.\n', { schema, variables: { contact: 'help@acme.example' } });
  // The default fills in.
  assert.match(await renderedText(`${API}/render`, { config: config(linked(footer.id)) }), /Write to help@acme\.example\./);
  // The document's (or the request's) value wins, and is checked.
  const doc = await saveDoc({ config: { ...config(linked(footer.id)), variables: { contact: 'not an address' } } });
  assert.ok(doc.warnings.some((w: any) => w.path === 'config.variables.contact'), JSON.stringify(doc.warnings));
  const bad = await t.owner.post(`${API}/render/document/${doc.id}`, {});
  assertRefused(bad, 'config.variables.contact', 'INVALID_FIELD', /reusable block ".*" version 1/);
  assert.match(await renderedText(`${API}/render/document/${doc.id}`, { variables: { contact: 'sales@acme.example' } }), /Write to sales@acme\.example\./);
  // A snapshot copies the defaults into the document's variables.
  const snap = await saveDoc({ config: config(snapshot(footer.id)) });
  assert.equal(snap.config.variables, { contact: 'help@acme.example' });
});

test("a bulk render inserts a linked block in every item; an item whose values break the block's schema fails alone", async () => {
  const schema = { type: 'object', properties: { contact: { type: 'string', format: 'email' } } };
  const footer = await block('Write to {{contact}} for KEY{{name}}.\n', { schema, variables: { contact: 'help@acme.example' } });
  const letter = await saveLetter(t.owner, `Dear {{name}},\n\n::block{id=${footer.id}}\n`);
  const created = await t.owner.post(BULK, { documentId: letter, items: [{ name: 'Ada' }, { name: 'Bob', contact: 'nobody' }, { name: 'Cy', contact: 'cy@example.org' }] });
  assert.is(created.status, 202, created.bytes.toString());
  const bulk = await waitForBulk(t.owner, created.body.bulkJobId);
  assert.equal(bulk.items.map((i: any) => i.status), ['COMPLETED', 'FAILED', 'COMPLETED']);
  assert.match(bulk.items[1].error, /variables\.contact/);
  const zip = await downloadBulkZip(t.owner, bulk);
  assert.match(await pdfText(zip.get('letter-001.pdf')!), /Dear Ada, Write to help@acme\.example for KEYAda\./);
  assert.match(await pdfText(zip.get('letter-003.pdf')!), /Dear Cy, Write to cy@example\.org for KEYCy\./);
});

test('blocks nest up to 5 deep; a cycle is refused naming the chain', async () => {
  // b[0] inserts b[1] … inserts b[4]: five levels.
  const chain = [await block('Level five.\n')];
  for (const n of ['four', 'three', 'two', 'one']) chain.unshift(await block(`Level ${n}.\n\n::block{id=${chain[0].id} mode=linked}\n`));
  assert.match(await renderedText(`${API}/render`, { config: config(linked(chain[0].id)) }), /Level one\. Level two\. Level three\. Level four\. Level five\./);
  // A sixth level is refused: in a new block, and in a document.
  const six = await t.owner.post(BLOCKS, { name: 'Level zero', title: 'Zero', markdown: `Zero.\n\n::block{id=${chain[0].id} mode=linked}\n` });
  assert.is(six.status, 400, six.bytes.toString());
  assert.is(six.body.errors[0].code, 'BLOCK_TOO_DEEP');
  const deepDoc = { ...config(), sections: [{ type: 'flow', content: [{ ...snapshot(chain[0].id, 1), content: [linked(chain[0].id)] }] }] };
  assertRefused(await t.owner.post(`${API}/render`, { config: deepDoc }), 'config.sections[0].content[0].content[0].content[1].content[1].content[1].content[1]', 'BLOCK_TOO_DEEP', /more than 5 deep/);

  // A → B, then B → A: refused when B's version is added, naming the chain.
  const b = await block('B text.\n');
  const a = await block(`A text.\n\n::block{id=${b.id} mode=linked}\n`);
  const cycle = await newVersion(b.id, `B text.\n\n::block{id=${a.id} mode=linked}\n`);
  assert.is(cycle.status, 400, cycle.bytes.toString());
  assert.is(cycle.body.errors[0].code, 'BLOCK_CYCLE');
  assert.match(cycle.body.errors[0].message, new RegExp(`"${b.name}" \\(${b.id}\\) → "${a.name}" \\(${a.id}\\) → "${b.name}" \\(${b.id}\\)`));
  // A block cannot insert itself either.
  const self = await newVersion(a.id, `::block{id=${a.id} mode=snapshot}\n`);
  assert.is(self.status, 400);
  assert.is(self.body.errors[0].code, 'BLOCK_CYCLE');
});

test.run();
