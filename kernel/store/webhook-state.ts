// The embedded store's webhook endpoints and deliveries: reads of its in-memory state, changes as journal operations,
// and the leases of deliveries being attempted (in memory only: one process owns the data dir, and a restart frees them).
import { ops, type Data, type StoreOp } from './store-state.js';
import { before, newestFirst } from './newest-first.js';
import { attemptedDelivery, endpointWants, healthChange, queuedDelivery } from './webhook-records.js';
import type { JobLease, PageKey, WebhookAttemptOutcome, WebhookEndpointChange } from './store.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEvent } from '../model.js';

type Commit = (...changes: StoreOp[]) => Promise<void>;

export class EmbeddedWebhooks {
  readonly #leases = new Map<string, { owner: string; until: string }>();

  constructor(
    private readonly data: () => Data,
    private readonly commit: Commit,
  ) {}

  /** The deliveries of `event` to the organization's matching endpoints, as operations of the finishing write. */
  fanOut(orgId: string, event: WebhookEvent | undefined, subject: WebhookDeliveryRecord['subject']): StoreOp[] {
    if (!event) return [];
    const out: StoreOp[] = [];
    for (const ep of Object.values(this.data().webhookEndpoints)) {
      if (ep.orgId === orgId && endpointWants(ep, event.event)) out.push(ops.put('webhookDeliveries', queuedDelivery(ep, event, subject)));
    }
    return out;
  }

  async createEndpoint(endpoint: WebhookEndpointRecord): Promise<void> {
    await this.commit(ops.put('webhookEndpoints', structuredClone(endpoint)));
  }

  getEndpoint(orgId: string, id: string): WebhookEndpointRecord | undefined {
    const ep = this.#endpoint(orgId, id);
    return ep && structuredClone(ep);
  }

  listEndpoints(orgId: string, limit: number, after?: PageKey): WebhookEndpointRecord[] {
    return Object.values(this.data().webhookEndpoints)
      .filter((e) => e.orgId === orgId && before(e, after))
      .sort(newestFirst)
      .slice(0, limit)
      .map((e) => structuredClone(e));
  }

  async updateEndpoint(orgId: string, id: string, change: (current: WebhookEndpointRecord) => WebhookEndpointChange, at: string, expectedVersion?: number): Promise<WebhookEndpointRecord | 'conflict' | undefined> {
    const ep = this.#endpoint(orgId, id);
    if (!ep) return undefined;
    if (expectedVersion !== undefined && expectedVersion !== ep.version) return 'conflict';
    const patch = { ...structuredClone(change(structuredClone(ep))), version: ep.version + 1, updatedAt: at };
    const durable = this.commit(ops.patch('webhookEndpoints', id, patch));
    const copy = structuredClone(ep);
    await durable;
    return copy;
  }

  async deleteEndpoint(orgId: string, id: string): Promise<boolean> {
    if (!this.#endpoint(orgId, id)) return false;
    const deliveries = Object.values(this.data().webhookDeliveries).filter((d) => d.endpointId === id);
    await this.commit(ops.del('webhookEndpoints', id), ...deliveries.map((d) => ops.del('webhookDeliveries', d.id)));
    return true;
  }

  async createDelivery(delivery: WebhookDeliveryRecord): Promise<void> {
    await this.commit(ops.put('webhookDeliveries', { ...structuredClone(delivery), lease: null }));
  }

  getDelivery(orgId: string, id: string): WebhookDeliveryRecord | undefined {
    const d = this.#delivery(id);
    return d && d.orgId === orgId ? structuredClone(d) : undefined;
  }

  listDeliveries(orgId: string, endpointId: string, limit: number, after?: PageKey): WebhookDeliveryRecord[] {
    return Object.values(this.data().webhookDeliveries)
      .filter((d) => d.orgId === orgId && d.endpointId === endpointId && before(d, after))
      .sort(newestFirst)
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }

  claim(now: string, lease: JobLease, limit: number): WebhookDeliveryRecord[] {
    const due = Object.values(this.data().webhookDeliveries)
      .filter((d) => d.status === 'PENDING' && d.nextAttemptAt !== null && d.nextAttemptAt <= now && !this.#held(d.id, now))
      .sort((a, b) => a.nextAttemptAt!.localeCompare(b.nextAttemptAt!) || a.createdAt.localeCompare(b.createdAt))
      .slice(0, limit);
    const until = new Date(Date.parse(now) + lease.ms).toISOString();
    return due.map((d) => {
      this.#leases.set(d.id, { owner: lease.owner, until });
      return { ...structuredClone(d), lease: { owner: lease.owner, until } };
    });
  }

  async recordAttempt(id: string, owner: string, outcome: WebhookAttemptOutcome): Promise<WebhookDeliveryRecord | undefined> {
    const d = this.#delivery(id);
    if (!d || this.#leases.get(id)?.owner !== owner) return undefined;
    this.#leases.delete(id);
    const ep = this.#endpoint(d.orgId, d.endpointId);
    const health = ep ? healthChange(ep, outcome, outcome.entry.at) : { disabled: false };
    const next = attemptedDelivery(d, outcome, health.disabled);
    const change = health.change && ep ? [ops.patch('webhookEndpoints', ep.id, { ...health.change, ...(health.disabled ? { updatedAt: outcome.entry.at } : {}) })] : [];
    await this.commit(ops.put('webhookDeliveries', structuredClone(next)), ...change);
    return next;
  }

  async deleteDeliveriesBefore(instant: string): Promise<number> {
    const gone = Object.values(this.data().webhookDeliveries).filter((d) => d.createdAt < instant);
    if (gone.length) await this.commit(...gone.map((d) => ops.del('webhookDeliveries', d.id)));
    return gone.length;
  }

  #held(id: string, now: string): boolean {
    const lease = this.#leases.get(id);
    return lease !== undefined && lease.until > now;
  }

  #endpoint(orgId: string, id: string): WebhookEndpointRecord | undefined {
    const eps = this.data().webhookEndpoints;
    const ep = Object.hasOwn(eps, id) ? eps[id] : undefined;
    return ep && ep.orgId === orgId ? ep : undefined;
  }

  #delivery(id: string): WebhookDeliveryRecord | undefined {
    const all = this.data().webhookDeliveries;
    return Object.hasOwn(all, id) ? all[id] : undefined;
  }
}
