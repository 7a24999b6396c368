// First start on an empty data dir: a default organization with credits and an owner key.
import { randomUUID } from 'node:crypto';
import type { Store } from './store/store.js';
import type { Clock } from './clock.js';
import type { QuireConfig } from './config.js';
import type { Logger } from './logger.js';
import { generateApiKey, hashApiKey, keyPrefix } from './api-keys.js';
import { OPERATOR_KEYS_ORG_ID, type Role } from './model.js';

export async function createOrganization(store: Store, clock: Clock, name: string, credits: number, plan = 'Team'): Promise<string> {
  const id = randomUUID();
  const now = clock.now().toISOString();
  await store.createOrganization({ id, name, plan, balance: 0, createdAt: now });
  if (credits > 0) await store.addLedgerEntry({ id: randomUUID(), orgId: id, amount: credits, kind: 'grant', jobId: null, action: null, note: 'initial grant', createdAt: now });
  return id;
}

export async function createApiKey(store: Store, clock: Clock, orgId: string, role: Role, name: string, key = generateApiKey()): Promise<{ id: string; key: string }> {
  const id = randomUUID();
  await store.createApiKey({ id, orgId, name, role, hash: hashApiKey(key), prefix: keyPrefix(key), createdAt: clock.now().toISOString(), revokedAt: null });
  return { id, key };
}

/**
 * An operator key (docs/operators.md): stored hashed like any key, under OPERATOR_KEYS_ORG_ID (no organization), with
 * the lowest role; what it may call is decided by its `operator` flag, not by the role.
 */
export async function createOperatorKey(store: Store, clock: Clock, name: string): Promise<{ id: string; key: string }> {
  const id = randomUUID();
  const key = generateApiKey();
  await store.createApiKey({ id, orgId: OPERATOR_KEYS_ORG_ID, name, role: 'member', hash: hashApiKey(key), prefix: keyPrefix(key), createdAt: clock.now().toISOString(), revokedAt: null, operator: true });
  return { id, key };
}

/** Servers starting at once on one database take turns here (Store.bootstrapOnce): one default organization in all. */
export function bootstrap(store: Store, clock: Clock, config: QuireConfig, log: Logger): Promise<void> {
  return store.bootstrapOnce(() => bootstrapNow(store, clock, config, log));
}

async function bootstrapNow(store: Store, clock: Clock, config: QuireConfig, log: Logger): Promise<void> {
  const orgs = await store.listOrganizations();
  if (orgs.length === 0) {
    const orgId = await createOrganization(store, clock, 'Default organization', config.bootstrapCredits);
    const { key } = await createApiKey(store, clock, orgId, 'owner', 'bootstrap owner key', config.bootstrapApiKey);
    if (config.bootstrapApiKey) {
      log.info({ orgId }, 'created the default organization with the owner key from QUIRE_BOOTSTRAP_API_KEY');
    } else {
      // Shown once, like every key; it is stored only as a hash.
      log.warn({ orgId, apiKey: key }, 'created the default organization; this owner API key is shown only now');
    }
    return;
  }
  if (config.bootstrapApiKey && !(await store.findApiKeyByHash(hashApiKey(config.bootstrapApiKey)))) {
    const first = orgs.sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0]!;
    await createApiKey(store, clock, first.id, 'owner', 'bootstrap owner key', config.bootstrapApiKey);
    log.info({ orgId: first.id }, 'added the QUIRE_BOOTSTRAP_API_KEY owner key to the first organization');
  }
}
