// GET /jobs over HTTP: an organization's render, tools and bulk render jobs in one list, newest first, with their error,
// poll path, download link (read back by qpdf and pdftotext) and bulk counts; filters, paging, bad queries answer 400,
// and another organization's jobs never appear.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, mainAndOtherOrg, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { BULK, saveLetter, waitForBulk } from '../helpers/bulk-jobs.js';
import { makePdf, truncatedPdf } from '../fixtures/pdfs.js';
import { qpdfPageCount } from '../fixtures/pdf-readers.js';
import { pdftotextLayout } from '../helpers/poppler.js';

type Json = Record<string, any>;
const API = '/api/v1/dev';

let dataDir: string;
let server: RunningServer;
let owner: ApiClient;
let other: ApiClient;
/** The jobs made in `before`, oldest first. */
const made: { render: Json; merge: Json; failed: Json; bulk: Json } = {} as never;

test.before(async () => {
  dataDir = tempDir('quire-job-list-');
  const orgs = await mainAndOtherOrg(dataDir, { main: 1000, other: 10 });
  server = await startServer({ dataDir });
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  other = owner.withKey(orgs.otherKey);

  const render = await owner.post(`${API}/render/markdown?wait=30`, { content: '# Listed report\n\nRendered for the job list.\n' });
  assert.is(render.status, 200, render.bytes.toString());
  made.render = render.body;
  const a = await owner.uploadId(await makePdf(1, { label: 'A' }), 'a.pdf');
  const b = await owner.uploadId(await makePdf(2, { label: 'B' }), 'b.pdf');
  const merge = await owner.post(`${API}/tools/pdf/merge`, { fileIds: [a, b] });
  assert.is(merge.status, 202, merge.bytes.toString());
  made.merge = await owner.waitForJob(merge.body.id);
  const bad = await owner.uploadId(await truncatedPdf(), 'bad.pdf');
  const rotate = await owner.post(`${API}/tools/pdf/rotate`, { fileId: bad, angle: 90 });
  assert.is(rotate.status, 202, rotate.bytes.toString());
  made.failed = await owner.waitForJob(rotate.body.id);
  assert.is(made.failed.status, 'FAILED');
  const documentId = await saveLetter(owner);
  const bulk = await owner.post(BULK, { documentId, items: [{ name: 'Ada' }, { name: 'Grace' }] });
  assert.is(bulk.status, 202, bulk.bytes.toString());
  made.bulk = await waitForBulk(owner, bulk.body.bulkJobId);
  // The other organization's render, at the same time: never in the owner's list.
  assert.is((await other.post(`${API}/render/markdown?wait=30`, { content: '# Theirs\n' })).status, 200);
});

test.after(async () => {
  await server?.stop();
  cleanup(dataDir);
});

const list = async (query = '', api = owner) => {
  const r = await api.get(`${API}/jobs${query}`);
  assert.is(r.status, 200, r.bytes.toString());
  return r.body as { items: Json[]; nextCursor: string | null };
};

test('lists the render, tools and bulk jobs newest first, each with its poll path, error, download link and bulk counts', async () => {
  const { items, nextCursor } = await list();
  assert.is(nextCursor, null);
  assert.equal(items.map((i) => [i.kind, i.id]), [
    ['bulk', made.bulk.bulkJobId],
    ['tools', made.failed.id],
    ['tools', made.merge.id],
    ['render', made.render.jobId],
  ]);
  const [bulk, failed, merge, render] = items as [Json, Json, Json, Json];
  assert.equal([bulk.action, bulk.status, bulk.items, bulk.progress, bulk.statusPath], ['bulk-render', 'COMPLETED', { total: 2, completed: 2, failed: 0 }, 100, `/bulk-render/${made.bulk.bulkJobId}`]);
  assert.equal([failed.action, failed.status, failed.errorCode, failed.error, failed.downloadUrl], ['pdf.rotate', 'FAILED', made.failed.errorCode, made.failed.error, null]);
  assert.ok(failed.errorCode && failed.error);
  assert.equal([merge.action, merge.status, merge.statusPath, merge.finishedAt], ['pdf.merge', 'COMPLETED', `/tools/jobs/${made.merge.id}`, made.merge.completedAt]);
  assert.equal([render.action, render.status, render.statusPath, render.createdAt, render.creditCost], ['render.pdf', 'COMPLETED', `/render/${made.render.jobId}`, made.render.createdAt, made.render.creditCost]);

  // Each poll path answers for the job; each download link gives its bytes, without a key.
  for (const item of items) assert.is((await owner.get(`${API}${item.statusPath}`)).status, 200, item.statusPath);
  const merged = await owner.withKey(null).download(merge.downloadUrl);
  assert.is(merged.status, 200);
  assert.is(await qpdfPageCount(merged.bytes), 3);
  const rendered = await owner.withKey(null).download(render.downloadUrl);
  assert.match(await pdftotextLayout(rendered.bytes), 'Rendered for the job list.');
  const zip = await owner.withKey(null).download(bulk.downloadUrl);
  assert.is(zip.status, 200);
  assert.equal([...zip.bytes.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04], 'a ZIP');
});

test('filters by kind and status, several comma-separated', async () => {
  const ids = async (q: string) => (await list(q)).items.map((i) => i.id);
  assert.equal(await ids('?kind=tools'), [made.failed.id, made.merge.id]);
  assert.equal(await ids('?kind=render,bulk'), [made.bulk.bulkJobId, made.render.jobId]);
  assert.equal(await ids('?status=FAILED'), [made.failed.id]);
  assert.equal(await ids('?status=COMPLETED&kind=tools'), [made.merge.id]);
  assert.equal(await ids('?status=PENDING,PROCESSING'), []);
});

test('pages with limit and the opaque cursor until nextCursor is null', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  const sizes: number[] = [];
  do {
    const page: { items: Json[]; nextCursor: string | null } = await list(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    sizes.push(page.items.length);
    seen.push(...page.items.map((i) => i.id));
    cursor = page.nextCursor;
  } while (cursor);
  assert.equal(sizes, [3, 1]);
  assert.equal(seen, (await list()).items.map((i) => i.id));
});

test('another organization sees only its own job', async () => {
  const { items } = await list('', other);
  assert.is(items.length, 1);
  assert.is(items[0]!.kind, 'render');
  assert.not.ok(Object.values(made).some((m) => [m.id, m.jobId, m.bulkJobId].includes(items[0]!.id)));
});

test('a bad limit, kind, status or cursor answers 400 VALIDATION_FAILED naming the parameter, and no key 401', async () => {
  for (const [q, path] of [
    ['?limit=0', 'query.limit'],
    ['?limit=101', 'query.limit'],
    ['?limit=x', 'query.limit'],
    ['?kind=pdf', 'query.kind'],
    ['?status=QUEUED', 'query.status'],
    ['?status=COMPLETED,done', 'query.status'],
    ['?cursor=bm9wZQ', 'query.cursor'],
  ]) {
    const r = await owner.get(`${API}/jobs${q}`);
    assert.is(r.status, 400, q);
    assert.is(r.body.code, 'VALIDATION_FAILED', q);
    assert.is(r.body.errors[0].path, path, q);
  }
  assert.is((await owner.withKey(null).get(`${API}/jobs`)).status, 401);
});

test.run();
