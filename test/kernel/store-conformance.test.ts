// The embedded LowdbStore meets the Store conformance suite, reopened from its data dir for the durability checks.
import { LowdbStore } from '../../kernel/store/lowdb-store.js';
import type { Store } from '../../kernel/store/store.js';
import { cleanup, tempDir } from '../helpers/quire-server.js';
import { defineStoreConformance } from './store-conformance.js';

async function openLowdb(dataDir: string): Promise<LowdbStore> {
  const store = new LowdbStore(dataDir);
  await store.init();
  return store;
}

defineStoreConformance('LowdbStore', async () => {
  const dataDir = tempDir('quire-store-conformance-');
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
});
