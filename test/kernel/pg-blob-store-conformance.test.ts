// The blob store conformance suite against PgBlobStore: file bytes in chunks on a throw-away PostgreSQL cluster.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PgBlobStore } from '../../kernel/store/postgres/pg-blob-store.js';
import { migrate } from '../../kernel/store/postgres/migrations.js';
import { startPostgres } from '../helpers/postgres.js';
import { defineBlobStoreConformance } from './blob-store-conformance.js';

// Started once for the file; the harness reaps it when the process exits.
const cluster = await startPostgres();
const url = await cluster.database('blobs');
const pool = new pg.Pool({ connectionString: url, max: 1 });
await migrate(pool);
await pool.end();

defineBlobStoreConformance('PgBlobStore', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'quire-pg-blobs-'));
  const blobs = new PgBlobStore(url, dir);
  await blobs.init();
  return {
    blobs,
    cleanup: async () => {
      await blobs.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
