// File bytes in PostgreSQL (`blob_chunks`): every node of a deployment reads every file without a shared disk. A file
// is stored as 1 MiB chunks, written and read one chunk at a time, so no file is ever held in memory whole.
import path from 'node:path';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import pg from 'pg';
import type { BlobStore, BlobTarget } from '../blob-store.js';
import { prepared } from './pg-rows.js';

/** Bytes per stored chunk: big enough that a 50 MB upload is 50 rows, small enough to hold one in memory. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;

const ID = /^[0-9a-f-]{36}$/;

export class PgBlobStore implements BlobStore {
  readonly #pool: pg.Pool;
  readonly #tmpDir: string;

  /** `scratchDir`: a local folder for uploads and worker outputs before they are stored (emptied at start). */
  constructor(url: string, scratchDir: string, options: { poolSize?: number } = {}) {
    this.#pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 4 });
    // An idle connection the server closed is discarded by the pool; without a listener its error would end the process.
    this.#pool.on('error', () => undefined);
    this.#tmpDir = path.join(scratchDir, 'tmp');
  }

  async init(): Promise<void> {
    await rm(this.#tmpDir, { recursive: true, force: true });
    await mkdir(this.#tmpDir, { recursive: true });
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  tempPath(): string {
    return path.join(this.#tmpDir, randomUUID());
  }

  async readTemp(tempFile: string): Promise<Buffer> {
    if (path.dirname(tempFile) !== this.#tmpDir) throw new Error('Not a temp file of this store.');
    return readFile(tempFile);
  }

  /** A worker's output is not written to a scratch file first: the bytes it answers with are `put` (one statement). */
  target(id: string): undefined {
    checkId(id);
    return undefined;
  }

  async keep(): Promise<void> {
    throw new Error('PgBlobStore gives no targets to keep.');
  }

  async adopt(tempFile: string, id: string): Promise<void> {
    try {
      await this.#write(id, chunksOfFile(tempFile));
    } finally {
      await rm(tempFile, { force: true });
    }
  }

  /** Stores a copy of a file that stays where it is (migrate-to-postgres copies a data dir's blobs with it). */
  async copyFile(file: string, id: string): Promise<void> {
    await this.#write(id, chunksOfFile(file));
  }

  async put(id: string, bytes: Uint8Array): Promise<void> {
    await this.#write(id, chunksOfBytes(bytes));
  }

  /** In an ArrayBuffer of its own, as a file read from disk is: a worker is handed it (moved, not copied). */
  async get(id: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const chunk of this.#chunks(id)) parts.push(chunk);
    const whole = Buffer.allocUnsafeSlow(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) at += p.copy(whole, at);
    return whole;
  }

  async openRead(id: string): Promise<Readable> {
    return Readable.from(this.#chunks(id), { objectMode: false });
  }

  async delete(id: string): Promise<void> {
    checkId(id);
    await this.#pool.query('DELETE FROM blob_chunks WHERE id = $1', [id]);
  }

  /**
   * Replaces the blob with the chunks given, in one transaction: a reader sees the old bytes or the new, never a mix.
   * A blob of one chunk (most outputs) is one statement: its chunk is written over any old first chunk, and the old
   * later chunks go in the same statement.
   */
  async #write(id: string, chunks: AsyncIterable<Buffer>): Promise<void> {
    checkId(id);
    const it = chunks[Symbol.asyncIterator]();
    const first = await it.next();
    const second = first.done ? first : await it.next();
    // An empty file is one empty chunk, so that it exists.
    if (second.done) {
      await prepared(this.#pool, 'blob_put_one', PUT_ONE_SQL, [id, first.done ? Buffer.alloc(0) : first.value]);
      return;
    }
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM blob_chunks WHERE id = $1', [id]);
      let seq = 0;
      const insert = (chunk: Buffer) => prepared(client, 'blob_insert', 'INSERT INTO blob_chunks (id, seq, bytes) VALUES ($1, $2, $3)', [id, seq++, chunk]);
      await insert(first.value);
      await insert(second.value);
      for (let next = await it.next(); !next.done; next = await it.next()) await insert(next.value);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** The blob's chunks in order, one query each (no chunk is fetched before it is wanted); a missing blob throws. */
  async *#chunks(id: string): AsyncGenerator<Buffer> {
    checkId(id);
    for (let seq = 0; ; seq++) {
      const { rows } = await prepared<{ bytes: Buffer }>(this.#pool, 'blob_chunk', 'SELECT bytes FROM blob_chunks WHERE id = $1 AND seq = $2', [id, seq]);
      if (!rows[0]) {
        if (seq === 0) throw Object.assign(new Error(`Blob ${id} is not stored.`), { code: 'ENOENT' });
        return;
      }
      yield rows[0].bytes;
    }
  }
}

// The chunks of the statement's snapshot with seq > 0 are the old blob's: the new chunk 0 is not among them.
const PUT_ONE_SQL = `
WITH chunk AS (
  INSERT INTO blob_chunks (id, seq, bytes) VALUES ($1, 0, $2) ON CONFLICT (id, seq) DO UPDATE SET bytes = EXCLUDED.bytes RETURNING id
)
DELETE FROM blob_chunks WHERE id = $1 AND seq > 0`;

function checkId(id: string): void {
  if (!ID.test(id)) throw new Error(`Invalid blob id ${JSON.stringify(id)}`);
}

async function* chunksOfBytes(bytes: Uint8Array): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < bytes.byteLength; offset += BLOB_CHUNK_BYTES) {
    yield Buffer.from(bytes.buffer, bytes.byteOffset + offset, Math.min(BLOB_CHUNK_BYTES, bytes.byteLength - offset));
  }
}

/** The file's bytes in chunks of BLOB_CHUNK_BYTES, read one at a time. */
async function* chunksOfFile(file: string): AsyncGenerator<Buffer> {
  const fh = await open(file, 'r');
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(BLOB_CHUNK_BYTES);
      let filled = 0;
      while (filled < BLOB_CHUNK_BYTES) {
        const { bytesRead } = await fh.read(buffer, filled, BLOB_CHUNK_BYTES - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled === 0) return;
      yield buffer.subarray(0, filled);
      if (filled < BLOB_CHUNK_BYTES) return;
    }
  } finally {
    await fh.close();
  }
}

/** The migration that creates the chunk table (migration 2 in kernel/store/postgres/migrations.ts). */
export const BLOB_CHUNKS_SQL = `
CREATE TABLE blob_chunks (
  id text NOT NULL,
  seq integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (id, seq)
);
ALTER TABLE blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;
`;
