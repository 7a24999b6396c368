// Where file bytes live (BlobStore), and the embedded kind: on disk under <dataDir>/blobs, named by file id only
// (never by a client's filename).
import path from 'node:path';
import { closeSync, createReadStream, fdatasyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { mkdir, readFile, rename, rm, writeFile, open } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';

/**
 * Where a plugin's worker thread writes a job's output itself (`writeBlobSync`): a fresh temp file, then the
 * blob's path. The main thread and libuv's threads are spared five round trips a job.
 */
export interface BlobTarget {
  tempPath: string;
  path: string;
}

/**
 * `BlobStore.put` for a thread that may block: the bytes go to `tempPath`, are flushed to disk, and the file is
 * renamed to `path`. A failure (disk full) throws with the reason and leaves no partial file at `path`.
 */
export function writeBlobSync(target: BlobTarget, bytes: Uint8Array): void {
  try {
    const fd = openSync(target.tempPath, 'wx', 0o600);
    try {
      for (let offset = 0; offset < bytes.byteLength; ) offset += writeSync(fd, bytes, offset);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(target.tempPath, target.path);
  } catch (err) {
    rmSync(target.tempPath, { force: true });
    throw new Error(`The output file could not be stored (${(err as Error).message}).`, { cause: err });
  }
}

const ID = /^[0-9a-f-]{36}$/;

/**
 * The bytes of files (uploads, outputs, assets), by file id. Uploads and worker outputs are first written to local
 * scratch files (`tempPath`, `target` for a disk store) and then made blobs (`adopt`, `keep`): a store that keeps bytes elsewhere (a
 * database, object storage) copies them there at that point. Reads are whole (`get`, for a worker's input) or
 * streamed (`openRead`, for downloads and ZIPs).
 */
export interface BlobStore {
  init(): Promise<void>;
  /** A fresh local scratch path (an upload streams there before `adopt`); removed at the next start. */
  tempPath(): string;
  /** A scratch file's bytes (only files under this store's scratch folder). */
  readTemp(tempFile: string): Promise<Buffer>;
  /** The scratch file becomes the blob `id` (durably; the scratch file is gone). */
  adopt(tempFile: string, id: string): Promise<void>;
  put(id: string, bytes: Uint8Array): Promise<void>;
  get(id: string): Promise<Buffer>;
  /** The blob's bytes as a stream; a missing blob errors on the stream. */
  openRead(id: string): Promise<Readable>;
  /**
   * Where a worker thread writes the blob `id` itself (writeBlobSync); `keep` makes what it wrote the blob. Undefined
   * when the thread should not write it (a store elsewhere than the disk): the caller `put`s the bytes it answers with.
   */
  target(id: string): BlobTarget | undefined;
  keep(target: BlobTarget, id: string): Promise<void>;
  delete(id: string): Promise<void>;
}

export class DiskBlobStore implements BlobStore {
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

  /** Where a worker thread writes the blob `id` itself (writeBlobSync). */
  target(id: string): BlobTarget {
    return { tempPath: this.tempPath(), path: this.#path(id) };
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

  async openRead(id: string): Promise<Readable> {
    return createReadStream(this.#path(id));
  }

  /** writeBlobSync already renamed the file into place. */
  async keep(): Promise<void> {}

  /** The blob's file (tests and tools that read the data dir). */
  path(id: string): string {
    return this.#path(id);
  }

  async delete(id: string): Promise<void> {
    await rm(this.#path(id), { force: true });
  }
}
