// Webhook endpoints and deliveries on PostgreSQL: migration 0007, the fan-out a job's finishing statement runs, and the
// queue of deliveries that any node claims (FOR UPDATE SKIP LOCKED: each due delivery goes to one node at a time).
import type pg from 'pg';
import { copy, page, put, readAll, readOwn, transaction } from './pg-rows.js';
import { attemptedDelivery, healthChange } from '../webhook-records.js';
import type { JobLease, PageKey, WebhookAttemptOutcome, WebhookEndpointChange } from '../store.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEvent } from '../../model.js';

/**
 * Migration 0007. An endpoint's `enabled` and `events` are columns, so that the fan-out inside a job's finishing
 * statement reads the index on org_id and nothing else: an organization without endpoints costs one index probe.
 * A delivery's lease is in columns of its own; the due index holds only PENDING deliveries.
 */
export const WEBHOOKS_SQL = `
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, enabled boolean NOT NULL, events text[] NOT NULL,
  created_at timestamptz NOT NULL, data json NOT NULL
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id);
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, endpoint_id text NOT NULL, status text NOT NULL,
  next_attempt_at timestamptz, created_at timestamptz NOT NULL, lease_owner text, lease_until timestamptz, data json NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id COLLATE "C" DESC);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
`;

/** The parameters (as `$n` texts) of a fan-out: the event's id, name and instant, the organization and the subject's id. */
export interface FanOutParams {
  eventId: string;
  event: string;
  at: string;
  orgId: string;
  subjectId: string;
}

/**
 * INSERT of one PENDING delivery per enabled, matching endpoint of the organization, for each row of `gate` (the CTE
 * of the finished job: none when the finish wrote nothing) and only when an event id is given. The record is built
 * in SQL as the embedded store builds it (webhook-records.ts queuedDelivery); the subquery keeps one uuid per row.
 */
export function fanOutSql(p: FanOutParams, kind: 'job' | 'bulk', gate: string): string {
  return `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, status, next_attempt_at, created_at, data)
  SELECT e.did, e.org_id, e.id, 'PENDING', ${p.at}::text::timestamptz, ${p.at}::text::timestamptz, json_build_object(
    'id', e.did, 'orgId', e.org_id, 'endpointId', e.id, 'eventId', ${p.eventId}::text, 'event', ${p.event}::text, 'eventCreatedAt', ${p.at}::text,
    'subject', json_build_object('kind', '${kind}', 'id', ${p.subjectId}::text), 'status', 'PENDING', 'attempts', 0, 'nextAttemptAt', ${p.at}::text,
    'lease', NULL, 'attemptsLog', '[]'::json, 'createdAt', ${p.at}::text, 'updatedAt', ${p.at}::text, 'redeliveryOf', NULL)
  FROM ${gate} CROSS JOIN (
    SELECT gen_random_uuid()::text AS did, id, org_id FROM webhook_endpoints
    WHERE ${p.eventId}::text IS NOT NULL AND org_id = ${p.orgId}::text AND enabled AND (cardinality(events) = 0 OR ${p.event}::text = ANY (events))
  ) AS e`;
}

const BULK_FAN_OUT = fanOutSql({ eventId: '$1', event: '$2', at: '$3', orgId: '$4', subjectId: '$5' }, 'bulk', '(VALUES (1)) AS gate (one)');

/** The deliveries of a bulk job's event, in the caller's transaction (the one that finishes the bulk job). */
export async function fanOutBulk(tx: pg.PoolClient, orgId: string, bulkId: string, event: WebhookEvent | undefined): Promise<void> {
  if (event) await tx.query(BULK_FAN_OUT, [event.id, event.event, event.createdAt, orgId, bulkId]);
}

const CLAIM_SQL = `
UPDATE webhook_deliveries SET lease_owner = $2, lease_until = $3
WHERE id IN (
  SELECT id FROM webhook_deliveries
  WHERE status = 'PENDING' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
  ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED
)
RETURNING data`;

export class PgWebhooks {
  constructor(private readonly pool: pg.Pool) {}

  async createEndpoint(endpoint: WebhookEndpointRecord): Promise<void> {
    await put(this.pool, 'webhook_endpoints', copy(endpoint));
  }

  getEndpoint(orgId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    return readOwn(this.pool, 'webhook_endpoints', orgId, id);
  }

  listEndpoints(orgId: string, limit: number, after?: PageKey): Promise<WebhookEndpointRecord[]> {
    return page(this.pool, 'webhook_endpoints', 'org_id = $1', [orgId], limit, after);
  }

  updateEndpoint(orgId: string, id: string, change: (current: WebhookEndpointRecord) => WebhookEndpointChange, at: string, expectedVersion?: number): Promise<WebhookEndpointRecord | 'conflict' | undefined> {
    return transaction(this.pool, async (tx) => {
      const ep = await readOwn(tx, 'webhook_endpoints', orgId, id, true);
      if (!ep) return undefined;
      if (expectedVersion !== undefined && expectedVersion !== ep.version) return 'conflict';
      const updated = { ...ep, ...copy(change(copy(ep))), version: ep.version + 1, updatedAt: at };
      await put(tx, 'webhook_endpoints', updated);
      return updated;
    });
  }

  deleteEndpoint(orgId: string, id: string): Promise<boolean> {
    // The endpoint's row first, as an attempt locks it first (webhook-records' health): the two never deadlock.
    return transaction(this.pool, async (tx) => {
      const { rowCount } = await tx.query('DELETE FROM webhook_endpoints WHERE id = $1 AND org_id = $2', [id, orgId]);
      if (!rowCount) return false;
      await tx.query('DELETE FROM webhook_deliveries WHERE endpoint_id = $1', [id]);
      return true;
    });
  }

  async createDelivery(delivery: WebhookDeliveryRecord): Promise<void> {
    await put(this.pool, 'webhook_deliveries', { ...copy(delivery), lease: null });
  }

  getDelivery(orgId: string, id: string): Promise<WebhookDeliveryRecord | undefined> {
    return readOwn(this.pool, 'webhook_deliveries', orgId, id);
  }

  listDeliveries(orgId: string, endpointId: string, limit: number, after?: PageKey): Promise<WebhookDeliveryRecord[]> {
    return page(this.pool, 'webhook_deliveries', 'org_id = $1 AND endpoint_id = $2', [orgId, endpointId], limit, after);
  }

  async claim(now: string, lease: JobLease, limit: number): Promise<WebhookDeliveryRecord[]> {
    const until = new Date(Date.parse(now) + lease.ms).toISOString();
    const claimed = await readAll<WebhookDeliveryRecord>(this.pool, CLAIM_SQL, [now, lease.owner, until, limit]);
    return claimed.map((d) => ({ ...d, lease: { owner: lease.owner, until } })).sort((a, b) => a.nextAttemptAt!.localeCompare(b.nextAttemptAt!) || a.createdAt.localeCompare(b.createdAt));
  }

  recordAttempt(id: string, owner: string, outcome: WebhookAttemptOutcome): Promise<WebhookDeliveryRecord | undefined> {
    return transaction(this.pool, async (tx) => {
      const { rows: [seen] } = await tx.query<{ org_id: string; endpoint_id: string }>('SELECT org_id, endpoint_id FROM webhook_deliveries WHERE id = $1', [id]);
      if (!seen) return undefined;
      // The endpoint is locked before the delivery (as deleteEndpoint does), so its health moves one attempt at a time.
      const ep = await readOwn(tx, 'webhook_endpoints', seen.org_id, seen.endpoint_id, true);
      const { rows: [held] } = await tx.query<{ data: WebhookDeliveryRecord }>('SELECT data FROM webhook_deliveries WHERE id = $1 AND lease_owner = $2 FOR UPDATE', [id, owner]);
      if (!held) return undefined;
      const health = ep ? healthChange(ep, outcome, outcome.entry.at) : { disabled: false };
      const next = attemptedDelivery(held.data, outcome, health.disabled);
      await tx.query('UPDATE webhook_deliveries SET status = $2, next_attempt_at = $3, data = $4, lease_owner = NULL, lease_until = NULL WHERE id = $1', [id, next.status, next.nextAttemptAt, JSON.stringify(next)]);
      if (ep && health.change) await put(tx, 'webhook_endpoints', { ...ep, ...health.change, ...(health.disabled ? { updatedAt: outcome.entry.at } : {}) });
      return next;
    });
  }

  async deleteDeliveriesBefore(instant: string): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM webhook_deliveries WHERE created_at < $1', [instant]);
    return rowCount ?? 0;
  }
}
