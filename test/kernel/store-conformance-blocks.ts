// Store conformance: reusable blocks (changes computed from the current record, counted assets), assets and bulk jobs.
import * as assert from 'uvu/assert';
import type { BlockRecord } from '../../kernel/model.js';
import { area, asset, at, block, bulkJob, document, file, ids, job, org, rejects, type OpenStore } from './store-conformance-records.js';

const nextVersion = (current: BlockRecord, when: string) => ({
  currentVersion: current.currentVersion + 1,
  versions: [...current.versions, { ...current.versions[current.versions.length - 1]!, id: `v${current.currentVersion + 1}`, version: current.currentVersion + 1, createdAt: when }],
});

export function defineBlockConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'blocks', open, (it) => {
    it('a block is created with its new assets, reads back for its organization only, and is listed oldest first', async (store) => {
      const [a, b] = [org(), org()];
      const img = asset(a.id);
      const later = block(a.id, { createdAt: at(2), updatedAt: at(2), assetIds: [img.id], tags: ['x'] });
      const earlier = block(a.id, { createdAt: at(1), updatedAt: at(1), status: 'ACTIVE' });
      await store.createBlock(later, [img]);
      await store.createBlock(earlier, []);
      await store.createBlock(block(b.id), []);
      assert.equal(await store.getBlock(a.id, later.id), later);
      assert.is(await store.getBlock(b.id, later.id), undefined);
      assert.is(await store.getBlock(a.id, 'no-such-block'), undefined);
      assert.equal(await store.getAsset(a.id, img.id), img);
      assert.equal(await store.listBlocks(a.id), [earlier, later]);
      assert.equal(await store.listBlocks('no-such-org'), []);
    });

    it('updateBlock hands the change the current record and writes what it returns with updatedAt', async (store) => {
      const o = org();
      const blk = block(o.id);
      await store.createBlock(blk, []);
      const seen: BlockRecord[] = [];
      const once = await store.updateBlock(o.id, blk.id, (current) => (seen.push(current), nextVersion(current, at(1))), at(1));
      const twice = await store.updateBlock(o.id, blk.id, (current) => (seen.push(current), { ...nextVersion(current, at(2)), status: 'ACTIVE' }), at(2));
      assert.equal(seen[0], blk);
      assert.equal(seen[1], once, 'the second change sees what the first wrote');
      assert.equal(once, { ...blk, ...nextVersion(blk, at(1)), updatedAt: at(1) });
      assert.is(twice?.currentVersion, 3);
      assert.equal(twice?.versions.map((v) => v.version), [1, 2, 3]);
      assert.is(twice?.status, 'ACTIVE');
      assert.equal(await store.getBlock(o.id, blk.id), twice);
    });

    it('a change that throws writes nothing, not even its new assets, and its error reaches the caller', async (store) => {
      const o = org();
      const blk = block(o.id);
      await store.createBlock(blk, []);
      const img = asset(o.id);
      const refusal = new Error('the block is archived');
      let caught: unknown;
      try {
        await store.updateBlock(o.id, blk.id, () => {
          throw refusal;
        }, at(1), [img]);
      } catch (err) {
        caught = err;
      }
      assert.is(caught, refusal);
      assert.equal(await store.getBlock(o.id, blk.id), blk);
      assert.is(await store.getAsset(o.id, img.id), undefined);
    });

    it('a change that mutates the record it is handed changes only what it returns', async (store) => {
      const o = org();
      const blk = block(o.id);
      await store.createBlock(blk, []);
      const updated = await store.updateBlock(o.id, blk.id, (current) => {
        current.name = 'Mutated';
        current.versions[0]!.markdown = 'Mutated.\n';
        return { description: 'described' };
      }, at(1));
      assert.equal(updated, { ...blk, description: 'described', updatedAt: at(1) });
      assert.equal(await store.getBlock(o.id, blk.id), updated);
    });

    it('an update or delete of an unknown or another organization\'s block is undefined and does not call the change', async (store) => {
      const [a, b] = [org(), org()];
      const blk = block(a.id);
      await store.createBlock(blk, []);
      let calls = 0;
      assert.is(await store.updateBlock(b.id, blk.id, () => (calls++, { name: 'X' }), at(1)), undefined);
      assert.is(await store.updateBlock(a.id, 'no-such-block', () => (calls++, { name: 'X' }), at(1)), undefined);
      assert.is(calls, 0);
      assert.is(await store.deleteBlock(b.id, blk.id), undefined);
      assert.equal(await store.getBlock(a.id, blk.id), blk);
    });

    it('a block counts as a user of its assets: one shared with a document goes with the last of them', async (store) => {
      const o = org();
      const [shared, first, added] = [asset(o.id), asset(o.id), asset(o.id)];
      const d = document(o.id, { assetIds: [shared.id] });
      await store.createDocument(d, [shared]);
      const blk = block(o.id, { assetIds: [shared.id, first.id] });
      await store.createBlock(blk, [first]);
      const updated = await store.updateBlock(o.id, blk.id, (current) => ({ ...nextVersion(current, at(1)), assetIds: [...(current.assetIds ?? []), added.id] }), at(1), [added]);
      assert.equal(updated?.assetIds, [shared.id, first.id, added.id]);
      assert.equal(await store.getAsset(o.id, added.id), added);
      assert.equal(await store.findAssetBySource(o.id, added.sourceImageId!), added);
      assert.equal(await store.deleteDocument(o.id, d.id), { releasedAssets: [] }, 'the block still uses the shared asset');
      assert.equal(await store.getAsset(o.id, shared.id), shared);
      const deleted = await store.deleteBlock(o.id, blk.id);
      assert.equal(deleted?.releasedAssets.sort(), [shared.id, first.id, added.id].sort());
      for (const a of [shared, first, added]) assert.is(await store.getAsset(o.id, a.id), undefined);
      assert.is(await store.getBlock(o.id, blk.id), undefined);
      assert.is(await store.deleteBlock(o.id, blk.id), undefined);
    });
  });

  area(suiteName, 'assets', open, (it) => {
    it('an asset reads back, and is found by its source image, for its organization only', async (store) => {
      const [a, b] = [org(), org()];
      const img = asset(a.id);
      const sourceless = asset(a.id, { sourceImageId: null });
      await store.createDocument(document(a.id, { assetIds: [img.id, sourceless.id] }), [img, sourceless]);
      assert.equal(await store.getAsset(a.id, img.id), img);
      assert.equal(await store.getAsset(a.id, sourceless.id), sourceless);
      assert.is(await store.getAsset(b.id, img.id), undefined);
      assert.is(await store.getAsset(a.id, 'no-such-asset'), undefined);
      assert.equal(await store.findAssetBySource(a.id, img.sourceImageId!), img);
      assert.is(await store.findAssetBySource(b.id, img.sourceImageId!), undefined);
      assert.is(await store.findAssetBySource(a.id, 'no-such-image'), undefined);
    });
  });

  area(suiteName, 'bulk jobs', open, (it) => {
    it('a staged bulk job and its jobs are visible once stageBulkJob resolves, and durable resolves', async (store) => {
      const [a, b] = [org(), org()];
      await store.createOrganization(a);
      const jobs = [job(a.id, { estimatedCredits: 2 }), job(a.id, { estimatedCredits: 3 })];
      const bulk = bulkJob(a.id, jobs);
      jobs.forEach((j, index) => (j.bulk = { id: bulk.id, index }));
      const { durable } = await store.stageBulkJob(bulk, jobs);
      assert.equal(await store.getBulkJob(a.id, bulk.id), bulk);
      for (const j of jobs) assert.equal(await store.getJob(a.id, j.id), j);
      assert.is(await store.outstandingEstimate(a.id), 5);
      assert.is(await store.getBulkJob(b.id, bulk.id), undefined);
      assert.is(await store.getBulkJob(a.id, 'no-such-bulk'), undefined);
      await durable;
    });

    it('lists the pending and processing bulk jobs of every organization', async (store) => {
      const [a, b] = [org(), org()];
      const pending = bulkJob(a.id, []);
      const processing = bulkJob(b.id, [], { status: 'PROCESSING' });
      const done = bulkJob(a.id, [], { status: 'COMPLETED', completedAt: at(1) });
      for (const bulk of [pending, processing, done]) await (await store.stageBulkJob(bulk, [])).durable;
      const mine = new Set([pending.id, processing.id, done.id]);
      const unfinished = (await store.listUnfinishedBulkJobs()).filter((x) => mine.has(x.id));
      assert.equal(ids(unfinished), ids([pending, processing]));
      assert.equal(unfinished.find((x) => x.id === processing.id), processing);
    });

    it('finishBulkJob writes the final state and its ZIP\'s record together, once', async (store) => {
      const o = org();
      const bulk = bulkJob(o.id, [], { status: 'PROCESSING' });
      await (await store.stageBulkJob(bulk, [])).durable;
      const zip = file(o.id, { kind: 'OUTPUT', filename: 'bulk.zip', mimeType: 'application/zip', pageCount: null });
      const patch = { status: 'COMPLETED' as const, outputFileId: zip.id, completedItems: 2, completedAt: at(3), items: [{ index: 0, jobId: null, error: null, filename: 'a.pdf', status: 'COMPLETED' as const }] };
      const finished = await store.finishBulkJob(bulk.id, patch, zip);
      assert.equal(finished, { ...bulk, ...patch });
      assert.equal(await store.getBulkJob(o.id, bulk.id), { ...bulk, ...patch });
      assert.equal(await store.getFile(o.id, zip.id), zip);
      assert.is((await store.listUnfinishedBulkJobs()).find((x) => x.id === bulk.id), undefined);
      await rejects(() => store.finishBulkJob(bulk.id, { status: 'FAILED' }), 'a finished bulk job never moves again');
      assert.is((await store.getBulkJob(o.id, bulk.id))?.status, 'COMPLETED');
      await rejects(() => store.finishBulkJob('no-such-bulk', { status: 'FAILED' }));
    });

    it('deleteJobsFinishedBefore also deletes the bulk jobs finished before the instant', async (store) => {
      const o = org();
      const old = bulkJob(o.id, [], { status: 'COMPLETED', completedAt: at(1) });
      const recent = bulkJob(o.id, [], { status: 'FAILED', completedAt: at(5) });
      const running = bulkJob(o.id, [], { status: 'PROCESSING' });
      for (const bulk of [old, recent, running]) await (await store.stageBulkJob(bulk, [])).durable;
      assert.ok((await store.deleteJobsFinishedBefore(at(3))) >= 1);
      assert.is(await store.getBulkJob(o.id, old.id), undefined);
      assert.equal(await store.getBulkJob(o.id, recent.id), recent);
      assert.equal(await store.getBulkJob(o.id, running.id), running);
    });
  });
}
