// The embedded store's idempotency keys: each decision made on the in-memory state and the journal operations it needs.
import { ops, type Data, type StoreOp } from './store-state.js';
import type { IdempotencyBegin, IdempotencyClaim, IdempotencyDone, IdempotencyRecord, IdempotentJob } from './store.js';

/** The record's id: an organization id never holds ':', so `<orgId>:<key>` is unique whatever the key holds. */
export const idempotencyId = (orgId: string, key: string): string => `${orgId}:${key}`;

function record(data: Data, orgId: string, key: string): IdempotencyRecord | undefined {
  const id = idempotencyId(orgId, key);
  return Object.hasOwn(data.idempotencyKeys, id) ? data.idempotencyKeys[id] : undefined;
}

/** What beginIdempotency answers and the change it makes (none when the key is held or done). */
export function beginKey(data: Data, orgId: string, key: string, claim: IdempotencyClaim): { outcome: IdempotencyBegin; changes: StoreOp[] } {
  const rec = record(data, orgId, key);
  if (!rec || rec.expiresAt <= claim.now) {
    const fresh: IdempotencyRecord = { id: idempotencyId(orgId, key), orgId, key, owner: claim.owner, state: 'in-flight', leaseUntil: claim.leaseUntil, createdAt: claim.now, expiresAt: claim.expiresAt, fingerprint: null, response: null };
    return { outcome: { state: 'started' }, changes: [ops.put('idempotencyKeys', fresh)] };
  }
  if (rec.state === 'done') return { outcome: { state: 'done', fingerprint: rec.fingerprint!, response: structuredClone(rec.response!) }, changes: [] };
  if (rec.leaseUntil > claim.now) return { outcome: { state: 'in-flight', leaseUntil: rec.leaseUntil }, changes: [] };
  return { outcome: { state: 'taken-over' }, changes: [ops.patch('idempotencyKeys', rec.id, { owner: claim.owner, leaseUntil: claim.leaseUntil })] };
}

/** The change that renews, completes or releases the caller's in-flight record; null when the record is not the caller's. */
export function ownedKeyChange(data: Data, orgId: string, key: string, owner: string, change: { leaseUntil: string } | IdempotencyDone | 'release'): StoreOp | null {
  const rec = record(data, orgId, key);
  if (!rec || rec.state !== 'in-flight' || rec.owner !== owner) return null;
  if (change === 'release') return ops.del('idempotencyKeys', rec.id);
  if ('leaseUntil' in change) return ops.patch('idempotencyKeys', rec.id, { leaseUntil: change.leaseUntil });
  return ops.patch('idempotencyKeys', rec.id, { state: 'done', fingerprint: change.fingerprint, response: structuredClone(change.response) });
}

export function expiredKeyChanges(data: Data, instant: string): StoreOp[] {
  return Object.values(data.idempotencyKeys).filter((r) => r.expiresAt <= instant).map((r) => ops.del('idempotencyKeys', r.id));
}

/**
 * The job or bulk job admitted with the key. A scan: it is looked for only when a request finds its key's server died
 * mid-request, which is rare enough not to keep an index in memory for it.
 */
export function jobByKey(data: Data, orgId: string, key: string): IdempotentJob | undefined {
  const bulk = Object.values(data.bulkJobs).find((b) => b.orgId === orgId && b.idempotencyKey === key);
  if (bulk) return { kind: 'bulk', bulk: structuredClone(bulk) };
  const job = Object.values(data.jobs).find((j) => j.orgId === orgId && j.idempotencyKey === key);
  return job && { kind: 'job', job: structuredClone(job) };
}
