// PgStore meets the Store conformance suite: each test on a new database of one throw-away cluster, reopened by a new store on it.
import { PgStore } from '../../kernel/store/postgres/pg-store.js';
import { startPostgres } from '../helpers/postgres.js';
import { defineStoreConformance } from './store-conformance.js';

// Started once for the file; the harness reaps it when the process exits, after the last suite.
const cluster = await startPostgres();
let databases = 0;

async function openPg(url: string): Promise<PgStore> {
  const store = new PgStore(url, 4);
  await store.init();
  return store;
}

defineStoreConformance('PgStore', async () => {
  const url = await cluster.database(`conformance_${++databases}`);
  let current = await openPg(url);
  return {
    store: current,
    reopen: async () => {
      await current.close();
      current = await openPg(url);
      return current;
    },
    cleanup: async () => {
      await current.close();
    },
  };
});
