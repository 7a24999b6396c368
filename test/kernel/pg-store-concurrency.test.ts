// What PostgreSQL adds to the Store's semantics: writes racing on two stores (two nodes) over one database stay as exact
// as the embedded store's single process makes them — one charge per job, balances, version numbers, one default preset,
// a shared asset released once — and what one node writes the other reads at once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { PgStore } from '../../kernel/store/postgres/pg-store.js';
import type { AssetRecord, BlockRecord, DocumentRecord, JobRecord, LedgerEntry, StylePresetRecord } from '../../kernel/model.js';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.js';

const NOW = '2030-01-01T00:00:00.000Z';
let cluster: ThrowawayPostgres;
/** Two stores on one database, as two servers would be. */
let a: PgStore;
let b: PgStore;

async function newOrg(balance = 0): Promise<string> {
  const id = randomUUID();
  await a.createOrganization({ id, name: 'Org', plan: 'free', balance, createdAt: NOW });
  return id;
}

const job = (orgId: string): JobRecord => ({
  id: randomUUID(), orgId, pluginId: 'render-pdf', action: 'render.pdf', status: 'PROCESSING', params: { title: 'T' }, inputFileIds: [], outputFileId: null,
  error: null, errorCode: null, result: null, webhook: null, estimatedCredits: 3, chargedCredits: 0, attempts: 1, progress: 0, createdAt: NOW, startedAt: NOW, completedAt: null,
});
const charge = (orgId: string, jobId: string, amount: number): Omit<LedgerEntry, 'balanceAfter'> => ({ id: randomUUID(), orgId, amount, kind: amount < 0 ? 'charge' : 'grant', jobId, action: 'render.pdf', note: null, createdAt: NOW });
const asset = (orgId: string): AssetRecord => ({ id: randomUUID(), orgId, mimeType: 'image/png', sizeBytes: 10, sourceImageId: randomUUID(), createdAt: NOW });
const doc = (orgId: string, assetIds: string[]): DocumentRecord => ({ id: randomUUID(), orgId, name: 'Doc', config: {}, stylePresetId: null, assetIds, version: 1, createdAt: NOW, updatedAt: NOW });

test.before(async () => {
  cluster = await startPostgres();
  a = new PgStore(cluster.url, 4);
  b = new PgStore(cluster.url, 4);
  await Promise.all([a.init(), b.init()]);
});

test.after(async () => {
  await a?.close();
  await b?.close();
  await cluster?.stop();
});

test('a job finished by two nodes at once is finished and charged once; the other finish is refused', async () => {
  const orgId = await newOrg(10);
  const j = job(orgId);
  await a.createJob(j);
  const finish = (s: PgStore) => s.finishJob(j.id, { status: 'COMPLETED', completedAt: NOW, chargedCredits: 3 }, charge(orgId, j.id, -3));
  const outcomes = await Promise.allSettled([finish(a), finish(b)]);
  assert.equal(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
  const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
  assert.match(String(refused.reason), /already COMPLETED/);
  const ledger = await b.listLedger(orgId, 10);
  assert.equal(ledger.map((e) => [e.jobId, e.amount, e.balanceAfter]), [[j.id, -3, 7]]);
  assert.is((await a.getOrganization(orgId))?.balance, 7);
});

test('ledger entries added on two nodes at once all count: the balance is their sum and each balanceAfter is a distinct step', async () => {
  const orgId = await newOrg(0);
  const amounts = Array.from({ length: 20 }, (_, i) => i + 1);
  const written = await Promise.all(amounts.map((n, i) => (i % 2 ? a : b).addLedgerEntry(charge(orgId, randomUUID(), n))));
  assert.is((await a.getOrganization(orgId))?.balance, 210);
  assert.is(new Set(written.map((e) => e.balanceAfter)).size, 20);
  // Newest first: each entry's balanceAfter is the previous one's plus its amount.
  const ledger = (await b.listLedger(orgId, 100)).reverse();
  let balance = 0;
  for (const e of ledger) assert.is(e.balanceAfter, (balance += e.amount));
});

test('versions appended by two nodes at once each get their own number', async () => {
  const orgId = await newOrg();
  const block: BlockRecord = {
    id: randomUUID(), orgId, name: 'Terms', slug: 'terms', category: null, tags: [], description: null, status: 'DRAFT', currentVersion: 1,
    versions: [{ id: randomUUID(), version: 1, title: 'v1', markdown: 'One.\n', schema: {}, variables: {}, createdAt: NOW, changeNote: null, restoredFromVersion: null, createdBy: null }],
    assetIds: [], createdBy: null, createdAt: NOW, updatedAt: NOW,
  };
  await a.createBlock(block, []);
  const append = (s: PgStore) =>
    s.updateBlock(orgId, block.id, (current) => {
      const version = current.currentVersion + 1;
      return { currentVersion: version, versions: [...current.versions, { ...current.versions[0]!, id: randomUUID(), version, title: `v${version}` }] };
    }, NOW);
  await Promise.all(Array.from({ length: 10 }, (_, i) => append(i % 2 ? a : b)));
  const stored = await b.getBlock(orgId, block.id);
  assert.is(stored?.currentVersion, 11);
  assert.equal(stored?.versions.map((v) => v.version), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
});

test('presets made default on two nodes at once leave exactly one default', async () => {
  const orgId = await newOrg();
  const preset = (i: number): StylePresetRecord => ({ id: randomUUID(), orgId, name: `P${i}`, description: null, category: null, tags: [], isDefault: true, definition: {}, version: 1, createdAt: NOW, updatedAt: NOW });
  await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).createStylePreset(preset(i))));
  const presets = await a.listStylePresets(orgId);
  assert.is(presets.length, 6);
  assert.is(presets.filter((p) => p.isDefault).length, 1);
});

test('two documents sharing an asset, deleted on two nodes at once, release it exactly once', async () => {
  const orgId = await newOrg();
  const shared = asset(orgId);
  const first = doc(orgId, [shared.id]);
  const second = doc(orgId, [shared.id]);
  await a.createDocument(first, [shared]);
  await b.createDocument(second, []);
  const [x, y] = await Promise.all([a.deleteDocument(orgId, first.id), b.deleteDocument(orgId, second.id)]);
  assert.equal([...x!.releasedAssets, ...y!.releasedAssets], [shared.id]);
  assert.is(await a.getAsset(orgId, shared.id), undefined);
});

test('a job staged on one node is visible to the other when staging resolves, and counts in its outstanding estimate', async () => {
  const orgId = await newOrg();
  const j = { ...job(orgId), status: 'PENDING' as const, startedAt: null };
  const { durable } = await a.stageJob(j);
  assert.is((await b.getJob(orgId, j.id))?.id, j.id);
  assert.is(await b.outstandingEstimate(orgId), 3);
  await durable;
});

test('admissions for one organization on two nodes at once never overspend its balance', async () => {
  const orgId = await newOrg(20);
  const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).admitJob(job(orgId), { cost: 3, held: 0 })));
  assert.is(outcomes.filter((o) => o.admitted).length, 6, 'six jobs of 3 credits fit in 20, whichever node admits them');
  assert.is(await a.outstandingEstimate(orgId), 18);
});

test('due webhook deliveries claimed by two nodes at once each go to exactly one of them', async () => {
  const orgId = await newOrg();
  const endpointId = randomUUID();
  await a.createWebhookEndpoint({
    id: endpointId, orgId, url: 'https://hooks.example.com/q', events: [], description: null, enabled: true, disabledReason: null,
    secrets: [{ secret: `whsec_${randomUUID()}`, createdAt: NOW, expiresAt: null }], failingSince: null, version: 1, createdAt: NOW, updatedAt: NOW,
  });
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const id = randomUUID();
    ids.push(id);
    await (i % 2 ? a : b).createWebhookDelivery({
      id, orgId, endpointId, eventId: randomUUID(), event: 'ping', eventCreatedAt: NOW, subject: { kind: 'ping', id: endpointId }, payload: { event: 'ping' },
      status: 'PENDING', attempts: 0, nextAttemptAt: NOW, lease: null, attemptsLog: [], createdAt: NOW, updatedAt: NOW, redeliveryOf: null,
    });
  }
  const claimed: string[] = [];
  // Each node claims a few at a time, both at once, until nothing is left: SKIP LOCKED hands every delivery to one.
  for (;;) {
    const [x, y] = await Promise.all([a.claimWebhookDeliveries('2030-01-01T00:00:01.000Z', { owner: 'node-a', ms: 60_000 }, 4), b.claimWebhookDeliveries('2030-01-01T00:00:01.000Z', { owner: 'node-b', ms: 60_000 }, 4)]);
    if (!x.length && !y.length) break;
    claimed.push(...x.map((d) => d.id), ...y.map((d) => d.id));
  }
  assert.is(claimed.length, ids.length, 'no delivery was claimed twice');
  assert.equal([...claimed].sort(), [...ids].sort());
});

test('records read back are the caller\'s own: changing one changes nothing stored', async () => {
  const orgId = await newOrg();
  const d = doc(orgId, []);
  await a.createDocument(d, []);
  d.name = 'changed after the write';
  const read = (await a.getDocument(orgId, d.id))!;
  assert.is(read.name, 'Doc');
  read.name = 'changed after the read';
  (read.config as Record<string, unknown>).x = 1;
  assert.equal(await b.getDocument(orgId, d.id), { ...d, name: 'Doc' });
});

test.run();
