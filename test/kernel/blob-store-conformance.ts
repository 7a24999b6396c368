// One behaviour for every BlobStore (the embedded disk store, PostgreSQL): bytes in and out whole or streamed, in one
// chunk or many, scratch files adopted, worker outputs kept, missing blobs failing, deletion.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { writeBlobSync, type BlobStore } from '../../kernel/store/blob-store.js';

export type OpenBlobStore = () => Promise<{ blobs: BlobStore; cleanup: () => Promise<void> }>;

async function drain(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts);
}

export function defineBlobStoreConformance(name: string, open: OpenBlobStore): void {
  const test = suite(`${name}: blob store`);
  let blobs: BlobStore;
  let cleanup: () => Promise<void>;
  test.before.each(async () => {
    ({ blobs, cleanup } = await open());
  });
  test.after.each(async () => cleanup());

  test('bytes put come back whole and streamed, from an empty file to several megabytes', async () => {
    for (const size of [0, 1, 1024 * 1024, 3 * 1024 * 1024 + 17]) {
      const id = randomUUID();
      const bytes = randomBytes(size);
      await blobs.put(id, bytes);
      assert.ok((await blobs.get(id)).equals(bytes), `get, ${size} bytes`);
      assert.ok((await drain(await blobs.openRead(id))).equals(bytes), `openRead, ${size} bytes`);
    }
  });

  test('a scratch file adopted becomes the blob and is gone from the scratch folder', async () => {
    const temp = blobs.tempPath();
    const bytes = randomBytes(2 * 1024 * 1024 + 5);
    await writeFile(temp, bytes);
    assert.ok((await blobs.readTemp(temp)).equals(bytes));
    const id = randomUUID();
    await blobs.adopt(temp, id);
    assert.not.ok(existsSync(temp));
    assert.ok((await blobs.get(id)).equals(bytes));
  });

  test('what a worker writes at its target is the blob once kept (a store without targets takes the bytes by put)', async () => {
    const id = randomUUID();
    const bytes = randomBytes(1500 * 1024);
    const target = blobs.target(id);
    if (target) {
      writeBlobSync(target, bytes);
      await blobs.keep(target, id);
    } else {
      await blobs.put(id, bytes);
    }
    assert.ok((await blobs.get(id)).equals(bytes));
    assert.ok((await drain(await blobs.openRead(id))).equals(bytes));
  });

  test('a second put replaces the bytes; a deleted blob is gone; deleting twice is fine', async () => {
    const id = randomUUID();
    await blobs.put(id, randomBytes(3 * 1024 * 1024));
    const second = randomBytes(10);
    await blobs.put(id, second);
    assert.ok((await blobs.get(id)).equals(second));
    await blobs.delete(id);
    await blobs.delete(id);
    try {
      await blobs.get(id);
      assert.unreachable('a deleted blob was read');
    } catch (err) {
      assert.instance(err, Error);
    }
  });

  test('a blob never stored fails to read, whole and streamed', async () => {
    const id = randomUUID();
    let failed = false;
    await blobs.get(id).catch(() => (failed = true));
    assert.ok(failed, 'get');
    failed = false;
    try {
      await drain(await blobs.openRead(id));
    } catch {
      failed = true;
    }
    assert.ok(failed, 'openRead');
  });

  test('ids are file ids only: a path is refused', async () => {
    let failed = false;
    await blobs.put('../etc/passwd', Buffer.from('x')).catch(() => (failed = true));
    assert.ok(failed);
    failed = false;
    await blobs.readTemp('/etc/passwd').catch(() => (failed = true));
    assert.ok(failed, 'readTemp outside the scratch folder');
  });

  test.run();
}
