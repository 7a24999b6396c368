// Store conformance: returned records are the caller's own copies, and a representative set of writes survives a reopen.
import * as assert from 'uvu/assert';
import type { Store } from '../../kernel/store/store.js';
import { apiKey, area, asset, at, block, bulkJob, client, document, file, job, ledgerEntry, org, preset, resourceToken, template, type OpenStore } from './store-conformance-records.js';

/** Mutates a returned job's params, which a store may hand out frozen (then the attempt throws, which is fine too). */
function tryMutate(change: () => void): void {
  try {
    change();
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
  }
}

export function defineDurabilityConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'returned records are copies', open, (it) => {
    it('mutating records read from the store changes nothing stored', async (store) => {
      const o = org({ balance: 5 });
      await store.createOrganization(o);
      const k = apiKey(o.id);
      await store.createApiKey(k);
      const f = file(o.id);
      await store.createFile(f);
      const p = preset(o.id);
      await store.createStylePreset(p);
      const img = asset(o.id);
      const d = document(o.id, { assetIds: [img.id] });
      await store.createDocument(d, [img]);
      const t = template(o.id);
      await store.createTemplate(t, []);
      const blk = block(o.id);
      await store.createBlock(blk, []);
      const entry = await store.addLedgerEntry(ledgerEntry(o.id, 1));

      Object.assign((await store.getOrganization(o.id))!, { balance: 1000, name: 'X' });
      (await store.listOrganizations())[0]!.balance = 2000;
      (await store.findApiKeyByHash(k.hash))!.revokedAt = at(1);
      (await store.listApiKeys(o.id))[0]!.role = 'member';
      (await store.getFile(o.id, f.id))!.expiresAt = at(-100);
      const readPreset = (await store.getStylePreset(o.id, p.id))!;
      readPreset.tags.push('mutated');
      readPreset.isDefault = true;
      const readDoc = (await store.getDocument(o.id, d.id))!;
      (readDoc.config as { doc: { title: string } }).doc.title = 'Mutated';
      readDoc.assetIds.push('other');
      (await store.listDocuments(o.id, 10))[0]!.name = 'Mutated';
      (await store.getTemplate(o.id, t.id))!.config.extra = true;
      (await store.getBlock(o.id, blk.id))!.versions[0]!.markdown = 'Mutated.\n';
      (await store.listBlocks(o.id))[0]!.tags.push('mutated');
      (await store.getAsset(o.id, img.id))!.sizeBytes = 0;
      (await store.listLedger(o.id, 1))[0]!.amount = 99;

      assert.equal(await store.getOrganization(o.id), { ...o, balance: 6 });
      assert.equal(await store.findApiKeyByHash(k.hash), k);
      assert.equal(await store.getFile(o.id, f.id), f);
      assert.equal(await store.listFilesExpiredBy(at(0)), []);
      assert.equal(await store.getStylePreset(o.id, p.id), p);
      assert.equal(await store.getDocument(o.id, d.id), d);
      assert.equal(await store.getTemplate(o.id, t.id), t);
      assert.equal(await store.getBlock(o.id, blk.id), blk);
      assert.equal(await store.getAsset(o.id, img.id), img);
      assert.equal(await store.listLedger(o.id, 1), [entry]);
    });

    it('mutating a job or bulk job read or returned from the store changes nothing stored', async (store) => {
      const o = org();
      await store.createOrganization(o);
      const j = job(o.id, { inputFileIds: ['in-1'] });
      await store.createJob(j);
      const bulk = bulkJob(o.id, []);
      await (await store.stageBulkJob(bulk, [])).durable;

      const read = (await store.getJob(o.id, j.id))!;
      read.status = 'FAILED';
      read.inputFileIds.push('in-2');
      tryMutate(() => ((read.params.doc as { title: string }).title = 'Mutated'));
      const updated = await store.updateJob(j.id, { progress: 10 });
      updated.progress = 99;
      tryMutate(() => ((updated.params.doc as { title: string }).title = 'Mutated'));
      (await store.listJobsByStatus(['PENDING'])).find((x) => x.id === j.id)!.attempts = 7;
      (await store.getBulkJob(o.id, bulk.id))!.items.push({ index: 9, jobId: null, error: 'x', filename: 'x.pdf' });

      assert.equal(await store.getJobById(j.id), { ...j, progress: 10 });
      assert.is(await store.outstandingEstimate(o.id), 3);
      assert.equal(await store.getBulkJob(o.id, bulk.id), bulk);
    });

    it('mutating a record after handing it to the store changes nothing stored', async (store) => {
      const o = org();
      await store.createOrganization(o);
      const j = job(o.id);
      const jobCopy = structuredClone(j);
      await store.createJob(j);
      (j.params.doc as { title: string }).title = 'Mutated';
      j.inputFileIds.push('late');
      const d = document(o.id);
      const docCopy = structuredClone(d);
      await store.createDocument(d, []);
      (d.config as { doc: { title: string } }).doc.title = 'Mutated';
      const blk = block(o.id);
      const blockCopy = structuredClone(blk);
      await store.createBlock(blk, []);
      blk.versions[0]!.title = 'Mutated';
      const p = preset(o.id);
      const presetCopy = structuredClone(p);
      await store.createStylePreset(p);
      p.tags.push('late');
      const change = { name: 'Renamed', config: { doc: { title: 'Changed' } } };
      const outcome = await store.updateDocument(o.id, d.id, change, [], at(1));
      change.config.doc.title = 'Mutated';
      if (typeof outcome === 'object') (outcome.document.config as { doc: { title: string } }).doc.title = 'Mutated';
      const returnedPreset = await store.updateStylePreset(o.id, p.id, {}, at(1));
      returnedPreset?.tags.push('mutated');

      assert.equal(await store.getJob(o.id, j.id), jobCopy);
      assert.equal(await store.getDocument(o.id, d.id), { ...docCopy, name: 'Renamed', config: { doc: { title: 'Changed' } }, version: 2, updatedAt: at(1) });
      assert.equal(await store.getBlock(o.id, blk.id), blockCopy);
      assert.equal(await store.getStylePreset(o.id, p.id), { ...presetCopy, version: 2, updatedAt: at(1) });
    });
  });

  area(suiteName, 'durability', open, (it) => {
    it('a representative set of writes reads back the same after the store is reopened', async (store, opened) => {
      const o = org({ balance: 0 });
      await store.createOrganization(o);
      await store.addLedgerEntry(ledgerEntry(o.id, 50));
      const k = apiKey(o.id);
      await store.createApiKey(k);
      await store.revokeApiKey(o.id, k.id, at(1));
      const c = client();
      await store.createIntegrationClient(c);
      const rt = resourceToken(o.id, c.id);
      await store.createResourceToken(rt);
      const expiring = file(o.id, { expiresAt: at(1) });
      await store.createFile(expiring);
      const charged = job(o.id, { estimatedCredits: 4 });
      await store.createJob(charged);
      const out = file(o.id, { kind: 'OUTPUT' });
      await store.finishJob(charged.id, { status: 'COMPLETED', outputFileId: out.id, chargedCredits: 4, completedAt: at(2) }, ledgerEntry(o.id, -4, charged.id), out);
      const staged = job(o.id, { estimatedCredits: 6, createdAt: at(3) });
      await (await store.stageJob(staged)).durable;
      const [firstPreset, secondPreset] = [preset(o.id, { isDefault: true }), preset(o.id, { createdAt: at(1) })];
      await store.createStylePreset(firstPreset);
      await store.createStylePreset(secondPreset);
      await store.updateStylePreset(o.id, secondPreset.id, { isDefault: true }, at(2));
      const [shared, dropped, blockOnly] = [asset(o.id), asset(o.id), asset(o.id)];
      const d = document(o.id, { assetIds: [shared.id, dropped.id] });
      await store.createDocument(d, [shared, dropped]);
      await store.updateDocument(o.id, d.id, { assetIds: [shared.id], name: 'Kept' }, [], at(4), 1);
      await store.createTemplate(template(o.id, { assetIds: [shared.id] }), []);
      const blk = block(o.id, { assetIds: [shared.id] });
      await store.createBlock(blk, []);
      await store.updateBlock(o.id, blk.id, (current) => ({ assetIds: [...(current.assetIds ?? []), blockOnly.id], status: 'ACTIVE' }), at(5), [blockOnly]);
      const bulkJobs = [job(o.id, { estimatedCredits: 1 })];
      const bulk = bulkJob(o.id, bulkJobs);
      await (await store.stageBulkJob(bulk, bulkJobs)).durable;
      const finishedBulk = bulkJob(o.id, []);
      await (await store.stageBulkJob(finishedBulk, [])).durable;
      const zip = file(o.id, { kind: 'OUTPUT', filename: 'bulk.zip' });
      await store.finishBulkJob(finishedBulk.id, { status: 'COMPLETED', outputFileId: zip.id, completedAt: at(6) }, zip);

      const named = { assetIds: [shared.id, dropped.id, blockOnly.id], bulkIds: [bulk.id, finishedBulk.id] };
      const before = await readEverything(store, o.id, named);
      // Without reopen (a store that keeps nothing across instances) the same reads are checked on the same store.
      const again = opened.reopen ? await opened.reopen() : store;
      assert.equal(await readEverything(again, o.id, named), before);
      assert.is(before.org?.balance, 46);
      assert.is(before.outstanding, 7);
      assert.equal(before.ledger.map((e) => e.balanceAfter), [46, 50]);
      assert.is(before.presets.find((p) => p.isDefault)?.id, secondPreset.id);
      assert.equal(before.assets, [shared, undefined, blockOnly]);
      assert.is(before.bulkJobs[1]?.status, 'COMPLETED');
      assert.is(before.block?.status, 'ACTIVE');

      // The indexes a store derives (hashes, asset users, unfinished estimates) work after the reopen too.
      assert.equal(await again.deleteDocument(o.id, d.id), { releasedAssets: [] });
      assert.equal((await again.deleteBlock(o.id, blk.id))?.releasedAssets, [blockOnly.id]);
      assert.is(await again.findAssetBySource(o.id, blockOnly.sourceImageId!), undefined);
      await again.finishJob(staged.id, { status: 'FAILED', completedAt: at(7) }, null);
      assert.is(await again.outstandingEstimate(o.id), 1);
    });
  });
}

/** Everything the durability test wrote, read back through the interface. */
async function readEverything(store: Store, orgId: string, named: { assetIds: string[]; bulkIds: string[] }) {
  const [org] = (await store.listOrganizations()).filter((x) => x.id === orgId);
  // Sorted where the interface leaves the order open (or ties it, as jobs created at the same instant).
  const byId = <T extends { id: string }>(records: T[]): T[] => records.sort((a, b) => a.id.localeCompare(b.id));
  const apiKeys = byId(await store.listApiKeys(orgId));
  const tokens = byId(await store.listResourceTokens(orgId));
  const documents = await store.listDocuments(orgId, 100);
  const blocks = await store.listBlocks(orgId);
  const jobs = byId((await store.listJobsByStatus(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'])).filter((j) => j.orgId === orgId));
  const unfinishedBulk = byId((await store.listUnfinishedBulkJobs()).filter((b) => b.orgId === orgId));
  const files = byId((await store.listFilesExpiredBy('9999-12-31T23:59:59.999Z')).filter((f) => f.orgId === orgId));
  return {
    org,
    orgById: await store.getOrganization(orgId),
    apiKeys,
    keyByHash: await store.findApiKeyByHash(apiKeys[0]!.hash),
    clients: byId(await store.listIntegrationClients()),
    tokens,
    tokenByHash: await store.findResourceTokenByHash(tokens[0]!.hash),
    files,
    jobs,
    outstanding: await store.outstandingEstimate(orgId),
    ledger: await store.listLedger(orgId, 10),
    presets: await store.listStylePresets(orgId),
    documents,
    documentCount: await store.countDocuments(orgId),
    templates: await store.listTemplates(orgId),
    blocks,
    block: blocks[0],
    assets: await Promise.all(named.assetIds.map((id) => store.getAsset(orgId, id))),
    assetsBySource: await Promise.all(named.assetIds.map(async (id) => {
      const a = await store.getAsset(orgId, id);
      return a?.sourceImageId ? store.findAssetBySource(orgId, a.sourceImageId) : undefined;
    })),
    unfinishedBulk,
    bulkJobs: await Promise.all(named.bulkIds.map((id) => store.getBulkJob(orgId, id))),
  };
}
