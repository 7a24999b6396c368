// How the Store conformance files open a fresh store per test: the embedded store in a temp data dir, PgStore on a new
// database of a throw-away cluster; each reopened over the same data by a new store.
import { LowdbStore } from '../../kernel/store/lowdb-store.js';
import { PgStore } from '../../kernel/store/postgres/pg-store.js';
import type { Store } from '../../kernel/store/store.js';
import type { ThrowawayPostgres } from '../helpers/postgres.js';
import { cleanup, tempDir } from '../helpers/quire-server.js';
import type { OpenStore } from './store-conformance-records.js';

async function openLowdb(dataDir: string): Promise<LowdbStore> {
  const store = new LowdbStore(dataDir);
  await store.init();
  return store;
}

async function openPg(url: string): Promise<PgStore> {
  const store = new PgStore(url, 4);
  await store.init();
  return store;
}

/** A LowdbStore in a new temp data dir (prefix `prefix`), removed on cleanup. */
export function lowdbStores(prefix: string): OpenStore {
  return async () => {
    const dataDir = tempDir(prefix);
    let current: Store = await openLowdb(dataDir);
    return {
      store: current,
      reopen: async () => {
        await current.close();
        current = await openLowdb(dataDir);
        return current;
      },
      cleanup: async () => {
        await current.close();
        cleanup(dataDir);
      },
    };
  };
}

/** A PgStore on a new database of `cluster` (named `<prefix><n>`). */
export function pgStores(cluster: ThrowawayPostgres, prefix: string): OpenStore {
  let databases = 0;
  return async () => {
    const url = await cluster.database(`${prefix}${++databases}`);
    let current: Store = await openPg(url);
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
  };
}
