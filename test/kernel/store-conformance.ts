// The Store conformance suite: the contract of kernel/store/store.ts, run against any implementation (issue 24).
import { defineAccountConformance } from './store-conformance-accounts.js';
import { defineBlockConformance } from './store-conformance-blocks.js';
import { defineConcurrencyConformance } from './store-conformance-concurrency.js';
import { defineDurabilityConformance } from './store-conformance-durability.js';
import { defineIdempotencyConformance } from './store-conformance-idempotency.js';
import { defineJobConformance } from './store-conformance-jobs.js';
import type { OpenStore } from './store-conformance-records.js';
import { defineWorkspaceConformance } from './store-conformance-workspace.js';
import { defineWebhookConformance } from './store-conformance-webhooks.js';

export type { OpenedStore, OpenStore } from './store-conformance-records.js';

/**
 * Registers and runs the suite, one uvu suite per area. `open` is called once per test and gives a fresh, empty,
 * initialised store (tests also use unique ids); `cleanup` is awaited after the test, whatever its outcome.
 */
export function defineStoreConformance(suiteName: string, open: OpenStore): void {
  defineAccountConformance(suiteName, open);
  defineJobConformance(suiteName, open);
  defineWorkspaceConformance(suiteName, open);
  defineBlockConformance(suiteName, open);
  defineConcurrencyConformance(suiteName, open);
  defineDurabilityConformance(suiteName, open);
  defineIdempotencyConformance(suiteName, open);
  defineWebhookConformance(suiteName, open);
}
