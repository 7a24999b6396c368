// The blob store conformance suite against the embedded disk store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DiskBlobStore } from '../../kernel/store/blob-store.js';
import { defineBlobStoreConformance } from './blob-store-conformance.js';

defineBlobStoreConformance('DiskBlobStore', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'quire-blobs-'));
  const blobs = new DiskBlobStore(dir);
  await blobs.init();
  return { blobs, cleanup: () => rm(dir, { recursive: true, force: true }) };
});
