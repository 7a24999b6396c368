// The embedded store counts reusable blocks as users of their assets (also after reopening), releases an asset with
// its last user among documents and blocks, and reads a block stored before blocks kept assets as using none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { LowdbStore } from '../../kernel/store/lowdb-store.js';
import { emptyData } from '../../kernel/store/store-state.js';
import type { AssetRecord, BlockRecord, DocumentRecord } from '../../kernel/model.js';
import { tempDir, cleanup } from '../helpers/quire-server.js';

const NOW = '2030-01-01T00:00:00.000Z';
const ORG = randomUUID();
const dirs: string[] = [];

async function open(dataDir: string): Promise<LowdbStore> {
  const store = new LowdbStore(dataDir);
  await store.init();
  return store;
}

function dir(): string {
  const d = tempDir('quire-block-assets-');
  dirs.push(d);
  return d;
}

const asset = (): AssetRecord => ({ id: randomUUID(), orgId: ORG, mimeType: 'image/png', sizeBytes: 10, sourceImageId: randomUUID(), createdAt: NOW });
const doc = (assetIds: string[]): DocumentRecord => ({ id: randomUUID(), orgId: ORG, name: 'Doc', config: {}, stylePresetId: null, assetIds, version: 1, createdAt: NOW, updatedAt: NOW });
const block = (assetIds?: string[]): BlockRecord => ({
  id: randomUUID(), orgId: ORG, name: 'Block', slug: `block-${randomUUID()}`, category: null, tags: [], description: null, status: 'DRAFT', currentVersion: 1,
  versions: [{ id: randomUUID(), version: 1, title: 'v1', markdown: 'Text.\n', schema: {}, variables: {}, createdAt: NOW, changeNote: null, restoredFromVersion: null, createdBy: null }],
  ...(assetIds ? { assetIds } : {}), createdBy: null, createdAt: NOW, updatedAt: NOW,
});

test.after(() => {
  for (const d of dirs) cleanup(d);
});

test('an asset shared by a document and a block is released with the last of them, also after reopening', async () => {
  const d = dir();
  const s = await open(d);
  const [a, b] = [asset(), asset()];
  const document = doc([a.id]);
  await s.createDocument(document, [a]);
  const blk = block([a.id]);
  await s.createBlock(blk, []);
  // A new version's asset is written in the same write as the version, and the block keeps both.
  await s.updateBlock(ORG, blk.id, (current) => ({ assetIds: [...(current.assetIds ?? []), b.id] }), NOW, [b]);
  assert.ok(await s.getAsset(ORG, b.id));
  await s.close();

  const again = await open(d);
  assert.equal((await again.deleteDocument(ORG, document.id))?.releasedAssets, []);
  assert.ok(await again.getAsset(ORG, a.id), 'the block still uses it');
  assert.equal((await again.deleteBlock(ORG, blk.id))?.releasedAssets.sort(), [a.id, b.id].sort());
  assert.is(await again.getAsset(ORG, a.id), undefined);
  assert.is(await again.getAsset(ORG, b.id), undefined);
  assert.is(await again.deleteBlock(ORG, blk.id), undefined);
  await again.close();
});

test('a block stored before blocks kept assets uses none: it changes, and its deletion releases nothing', async () => {
  const d = dir();
  const a = asset();
  const legacy = block();
  const document = doc([a.id]);
  writeFileSync(path.join(d, 'quire.json'), JSON.stringify({ ...emptyData(), blocks: { [legacy.id]: legacy }, documents: { [document.id]: document }, assets: { [a.id]: a } }));
  const s = await open(d);
  const read = await s.getBlock(ORG, legacy.id);
  assert.ok(read);
  assert.is(read.assetIds, undefined);
  const changed = await s.updateBlock(ORG, legacy.id, (current) => ({ assetIds: [...(current.assetIds ?? []), a.id] }), NOW);
  assert.equal(changed?.assetIds, [a.id]);
  assert.equal((await s.deleteDocument(ORG, document.id))?.releasedAssets, []);
  assert.ok(await s.getAsset(ORG, a.id));
  const other = block();
  await s.createBlock(other, []);
  assert.equal((await s.deleteBlock(ORG, other.id))?.releasedAssets, []);
  assert.equal((await s.deleteBlock(ORG, legacy.id))?.releasedAssets, [a.id]);
  await s.close();
});

test.run();
