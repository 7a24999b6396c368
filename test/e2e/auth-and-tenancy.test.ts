// API keys, roles, organization isolation (404 across organizations), wrong token kinds and the admin CLI.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, admin, OWNER_KEY, cleanup, tempDir, ON_POSTGRES, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf } from '../fixtures/pdfs.js';

const dataDir = tempDir();
let server: RunningServer;
let owner: ApiClient;
let member: ApiClient;
let otherOrg: ApiClient;
let defaultOrgId: string;
let otherOrgId: string;

test.before(async () => {
  // First start creates the default organization with the bootstrap owner key.
  const first = await startServer({ dataDir });
  const busy = await admin(dataDir, ['org', 'list']);
  if (ON_POSTGRES) {
    assert.is(busy.code, 0, 'on PostgreSQL the admin CLI works while servers run');
  } else {
    assert.is(busy.code, 2, 'the admin CLI refuses while the server holds the data dir');
    assert.match(busy.stderr, 'in use');
  }
  assert.is(await first.stop(), 0);

  const orgs = await admin(dataDir, ['org', 'list']);
  defaultOrgId = orgs.json[0].id;
  const created = await admin(dataDir, ['org', 'create', '--name', 'Other Org', '--credits', '40']);
  assert.is(created.code, 0, created.stderr);
  otherOrgId = created.json.id;
  assert.is(created.json.balance, 40);
  const otherKey = await admin(dataDir, ['key', 'create', '--org', otherOrgId, '--role', 'owner']);
  const memberKey = await admin(dataDir, ['key', 'create', '--org', defaultOrgId, '--role', 'member', '--name', 'ci member']);
  assert.match(memberKey.json.key, /^ak_[A-Za-z0-9]{43}$/);

  server = await startServer({ dataDir });
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  member = new ApiClient(server.baseUrl, memberKey.json.key);
  otherOrg = new ApiClient(server.baseUrl, otherKey.json.key);
});

test.after(async () => {
  await server.stop();
  cleanup(dataDir);
});

test('answers 401 UNAUTHENTICATED without credentials or with an unknown key', async () => {
  const none = await owner.withKey(null).get('/api/v1/dev/credits');
  assert.is(none.status, 401);
  assert.is(none.body.code, 'UNAUTHENTICATED');
  assert.is(none.headers.get('content-type'), 'application/problem+json');
  const unknown = await owner.withKey('ak_' + 'x'.repeat(43)).get('/api/v1/dev/credits');
  assert.is(unknown.status, 401);
  const malformed = await owner.withKey('not-a-key').get('/api/v1/dev/credits');
  assert.is(malformed.status, 401);
});

test('answers 401 WRONG_TOKEN_KIND for resource tokens, login JWTs and third-party bearer tokens', async () => {
  const anon = owner.withKey(null);
  for (const token of ['mcp_rt_abcdef123456', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'ghp_thirdpartytoken123', OWNER_KEY]) {
    const r = await anon.get('/api/v1/dev/credits', { Authorization: `Bearer ${token}` });
    assert.is(r.status, 401, token);
    assert.is(r.body.code, 'WRONG_TOKEN_KIND', token);
  }
});

test("makes another organization's files and jobs invisible (404)", async () => {
  const fileId = await owner.uploadId(await makePdf(2), 'mine.pdf');
  const job = await owner.waitForJob((await owner.post('/api/v1/dev/tools/pdf/split', { fileId, ranges: ['1'] })).body.id);
  assert.is(job.status, 'COMPLETED');
  assert.is((await otherOrg.get(`/api/v1/dev/tools/files/${fileId}`)).status, 404);
  assert.is((await otherOrg.get(`/api/v1/dev/tools/jobs/${job.id}`)).status, 404);
  assert.is((await otherOrg.get(`/api/v1/dev/tools/files/${job.outputFileId}/download`)).status, 404);
  const useIt = await otherOrg.post('/api/v1/dev/tools/pdf/split', { fileId, ranges: ['1'] });
  assert.is(useIt.status, 404);
  assert.is(useIt.body.code, 'NOT_FOUND');
  // The same ids work for their owner.
  assert.is((await owner.get(`/api/v1/dev/tools/jobs/${job.id}`)).status, 200);
});

test("refuses a download token of one organization's file for another file", async () => {
  const a = await owner.uploadId(await makePdf(1), 'a.pdf');
  const job = await owner.waitForJob((await owner.post('/api/v1/dev/tools/pdf/rotate', { fileId: a, angle: 90 })).body.id);
  const url = new URL(job.downloadUrl);
  const otherFile = await otherOrg.uploadId(await makePdf(1), 'theirs.pdf');
  const swapped = `${server.baseUrl}/api/v1/dev/tools/files/${otherFile}/download${url.search}`;
  assert.is((await owner.withKey(null).download(swapped)).status, 401);
  // Flip one character of the signature (in the middle, where every bit counts), and the last one.
  const i = job.downloadUrl.length - 10;
  const flip = (c: string) => (c === 'A' ? 'B' : 'A');
  const tampered = job.downloadUrl.slice(0, i) + flip(job.downloadUrl[i]) + job.downloadUrl.slice(i + 1);
  assert.is((await owner.withKey(null).download(tampered)).status, 401);
  const lastFlipped = job.downloadUrl.replace(/.$/, flip);
  assert.is((await owner.withKey(null).download(lastFlipped)).status, 401);
  assert.is((await owner.withKey(null).download(job.downloadUrl)).status, 200);
});

test('lets members use the tools but not manage keys (403 FORBIDDEN)', async () => {
  const fileId = await member.uploadId(await makePdf(1), 'm.pdf');
  assert.is((await member.post('/api/v1/dev/tools/pdf/rotate', { fileId, angle: 180 })).status, 202);
  const r = await member.post('/api/v1/dev/api-keys', { name: 'x', role: 'member' });
  assert.is(r.status, 403);
  assert.is(r.body.code, 'FORBIDDEN');
  assert.is((await member.get('/api/v1/dev/api-keys')).status, 403);
});

test('lets an owner create and revoke keys, and an admin create only keys up to admin', async () => {
  const created = await owner.post('/api/v1/dev/api-keys', { name: 'ops', role: 'admin' });
  assert.is(created.status, 201);
  assert.match(created.body.key, /^ak_/);
  const adminApi = owner.withKey(created.body.key);
  assert.is((await adminApi.post('/api/v1/dev/api-keys', { name: 'boss', role: 'owner' })).status, 403);
  const m = await adminApi.post('/api/v1/dev/api-keys', { name: 'worker', role: 'member' });
  assert.is(m.status, 201);
  const listing = await owner.get('/api/v1/dev/api-keys');
  assert.ok(listing.body.items.every((k: Record<string, unknown>) => !('key' in k) && !('hash' in k)), 'keys are never listed');
  assert.is((await owner.request('DELETE', `/api/v1/dev/api-keys/${m.body.id}`)).status, 204);
  assert.is((await owner.withKey(m.body.key).get('/api/v1/dev/credits')).status, 401);
  // Keys of another organization cannot be revoked: they are not found.
  assert.is((await otherOrg.request('DELETE', `/api/v1/dev/api-keys/${created.body.id}`)).status, 404);
});

test('reports each organization its own balance', async () => {
  const mine = await owner.get('/api/v1/dev/credits');
  const theirs = await otherOrg.get('/api/v1/dev/credits');
  assert.is(mine.body.orgId, defaultOrgId);
  assert.is(theirs.body.orgId, otherOrgId);
  assert.is(theirs.body.balance, 40);
});

test.run();
