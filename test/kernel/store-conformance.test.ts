// The embedded LowdbStore meets the Store conformance suite, reopened from its data dir for the durability checks.
import { defineStoreConformance } from './store-conformance.js';
import { lowdbStores } from './store-openers.js';

defineStoreConformance('LowdbStore', lowdbStores('quire-store-conformance-'));
