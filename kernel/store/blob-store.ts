// File bytes on disk under <dataDir>/blobs, named by file id only (never by a client's filename).
import path from 'node:path';
import { mkdir, readFile, rename, rm, writeFile, open } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';

const ID = /^[0-9a-f-]{36}$/;

export class BlobStore {
  readonly dir: string;
  readonly tmpDir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'blobs');
    this.tmpDir = path.join(dataDir, 'tmp');
  }

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await rm(this.tmpDir, { recursive: true, force: true });
    await mkdir(this.tmpDir, { recursive: true });
  }

  #path(id: string): string {
    if (!ID.test(id)) throw new Error(`Invalid blob id ${JSON.stringify(id)}`);
    return path.join(this.dir, id);
  }

  /** A fresh path in the tmp folder for streaming an upload before it is adopted. */
  tempPath(): string {
    return path.join(this.tmpDir, randomUUID());
  }

  async adopt(tempFile: string, id: string): Promise<void> {
    const fh = await open(tempFile, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tempFile, this.#path(id));
  }

  async put(id: string, bytes: Uint8Array): Promise<void> {
    const tmp = this.tempPath();
    await writeFile(tmp, bytes, { flush: true });
    await rename(tmp, this.#path(id));
  }

  async readTemp(tempFile: string): Promise<Buffer> {
    if (path.dirname(tempFile) !== this.tmpDir) throw new Error('Not a temp file of this store.');
    return readFile(tempFile);
  }

  async get(id: string): Promise<Buffer> {
    return readFile(this.#path(id));
  }

  path(id: string): string {
    return this.#path(id);
  }

  async delete(id: string): Promise<void> {
    await rm(this.#path(id), { force: true });
  }
}
