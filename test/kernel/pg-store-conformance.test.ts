// PgStore meets the Store conformance suite: each test on a new database of one throw-away cluster, reopened by a new store on it.
import { startPostgres } from '../helpers/postgres.js';
import { defineStoreConformance } from './store-conformance.js';
import { pgStores } from './store-openers.js';

// Started once for the file; the harness reaps it when the process exits, after the last suite.
const cluster = await startPostgres();

defineStoreConformance('PgStore', pgStores(cluster, 'conformance_'));
