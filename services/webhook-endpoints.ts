// An organization's webhook endpoints (DESIGN §8, docs/webhooks.md): create with a secret shown once, list, read,
// change, delete, rotate the secret (the previous one signs too for 24 h), ping, and the deliveries with redelivery.
import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError } from '../contracts/errors.js';
import { decodeCursor, encodeCursor, type PageRequest } from './document-service.js';
import type { CreateWebhookEndpoint, UpdateWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from '../contracts/webhooks.js';
import type { UrlPolicy } from '../sdk/url-policy.js';
import type { QuireConfig } from '../kernel/config.js';
import type { Clock } from '../kernel/clock.js';
import type { EventBus } from '../kernel/events.js';
import type { Store, WebhookEndpointChange } from '../kernel/store/store.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../kernel/model.js';

/** How long a rotated-out secret still signs. */
const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;
/** Endpoints an organization may keep. */
const MAX_ENDPOINTS = 50;

/** `whsec_` and 32 random bytes (base64url). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The API's view of an endpoint: everything but its organization and its secrets. */
export function endpointView(e: WebhookEndpointRecord): WebhookEndpoint {
  return { id: e.id, url: e.url, events: e.events, description: e.description, enabled: e.enabled, disabledReason: e.disabledReason, failingSince: e.failingSince, version: e.version, createdAt: e.createdAt, updatedAt: e.updatedAt };
}

export function deliveryView(d: WebhookDeliveryRecord): WebhookDelivery {
  return { id: d.id, endpointId: d.endpointId, eventId: d.eventId, event: d.event, subject: d.subject, status: d.status, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt, attemptsLog: d.attemptsLog, redeliveryOf: d.redeliveryOf, createdAt: d.createdAt, updatedAt: d.updatedAt };
}

const fieldError = (path: string, message: string, detail: string) => new HttpError('VALIDATION_FAILED', detail, [{ path, message, code: 'INVALID_FIELD' }]);

@injectable()
export class WebhookEndpoints {
  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.UrlPolicy) private readonly policy: UrlPolicy,
    @inject(TOKENS.Events) private readonly events: EventBus,
  ) {}

  async create(orgId: string, body: CreateWebhookEndpoint): Promise<WebhookEndpoint & { secret: string }> {
    await this.#checkUrl(body.url);
    if ((await this.store.listWebhookEndpoints(orgId, MAX_ENDPOINTS)).length >= MAX_ENDPOINTS) {
      throw new HttpError('VALIDATION_FAILED', `An organization keeps at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`, [{ path: 'url', message: `at most ${MAX_ENDPOINTS} endpoints`, code: 'LIMIT_EXCEEDED' }]);
    }
    const now = this.clock.now().toISOString();
    const secret = newSecret();
    const rec: WebhookEndpointRecord = {
      id: randomUUID(),
      orgId,
      url: body.url,
      events: body.events ?? [],
      description: body.description ?? null,
      enabled: body.enabled ?? true,
      disabledReason: null,
      secrets: [{ secret, createdAt: now, expiresAt: null }],
      failingSince: null,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.createWebhookEndpoint(rec);
    return { ...endpointView(rec), secret };
  }

  async list(orgId: string, page: PageRequest): Promise<{ items: WebhookEndpoint[]; nextCursor: string | null }> {
    const rows = await this.store.listWebhookEndpoints(orgId, page.limit + 1, page.cursor === null ? undefined : decodeCursor(page.cursor));
    return paged(rows, page.limit, endpointView);
  }

  async get(orgId: string, id: string): Promise<WebhookEndpoint> {
    return endpointView(await this.#find(orgId, id));
  }

  async update(orgId: string, id: string, body: UpdateWebhookEndpoint, ifMatch: number | undefined): Promise<WebhookEndpoint> {
    if (body.url !== undefined) await this.#checkUrl(body.url);
    const change = (current: WebhookEndpointRecord): WebhookEndpointChange => ({
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.events !== undefined ? { events: body.events } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      // Enabling (again) starts its health afresh; disabling by hand is no failure.
      ...(body.enabled === true && !current.enabled ? { disabledReason: null, failingSince: null } : {}),
    });
    return endpointView(await this.#update(orgId, id, change, ifMatch));
  }

  async delete(orgId: string, id: string): Promise<void> {
    if (!(await this.store.deleteWebhookEndpoint(orgId, id))) throw notFound(id);
  }

  /** A new current secret; the previous one signs too for 24 h (older ones are dropped). */
  async rotate(orgId: string, id: string): Promise<WebhookEndpoint & { secret: string; previousSecretExpiresAt: string | null }> {
    const now = this.clock.now();
    const at = now.toISOString();
    const expiresAt = new Date(now.getTime() + PREVIOUS_SECRET_MS).toISOString();
    const secret = newSecret();
    let previous: string | null = null;
    const rec = await this.#update(orgId, id, (current) => {
      const [head] = current.secrets;
      previous = head ? expiresAt : null;
      return { secrets: [{ secret, createdAt: at, expiresAt: null }, ...(head ? [{ ...head, expiresAt }] : [])] };
    });
    return { ...endpointView(rec), secret, previousSecretExpiresAt: previous };
  }

  /** Queues a `ping` to the endpoint (enabled or not: a disabled one answers FAILED "endpoint disabled"). */
  async test(orgId: string, id: string): Promise<WebhookDelivery> {
    const ep = await this.#find(orgId, id);
    const now = this.clock.now().toISOString();
    const eventId = randomUUID();
    const payload = { id: eventId, event: 'ping', orgId, endpointId: ep.id, createdAt: now };
    return this.#queue({ ...fresh(orgId, ep.id, now), eventId, event: 'ping', eventCreatedAt: now, subject: { kind: 'ping', id: ep.id }, payload, redeliveryOf: null });
  }

  async deliveries(orgId: string, id: string, page: PageRequest): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
    await this.#find(orgId, id);
    const rows = await this.store.listWebhookDeliveries(orgId, id, page.limit + 1, page.cursor === null ? undefined : decodeCursor(page.cursor));
    return paged(rows, page.limit, deliveryView);
  }

  /** A new delivery of the same event (same event id and body source), whatever became of the first. */
  async redeliver(orgId: string, id: string, deliveryId: string): Promise<WebhookDelivery> {
    await this.#find(orgId, id);
    const original = await this.store.getWebhookDelivery(orgId, deliveryId);
    if (!original || original.endpointId !== id) throw new HttpError('NOT_FOUND', `Delivery ${deliveryId} of webhook endpoint ${id} was not found (unknown, older than 30 days, or another endpoint's).`);
    const now = this.clock.now().toISOString();
    const { eventId, event, eventCreatedAt, subject, payload } = original;
    return this.#queue({ ...fresh(orgId, id, now), eventId, event, eventCreatedAt, subject, ...(payload ? { payload } : {}), redeliveryOf: original.id });
  }

  async #queue(delivery: WebhookDeliveryRecord): Promise<WebhookDelivery> {
    await this.store.createWebhookDelivery(delivery);
    this.events.emit('webhooks.queued');
    return deliveryView(delivery);
  }

  async #update(orgId: string, id: string, change: (current: WebhookEndpointRecord) => WebhookEndpointChange, ifMatch?: number): Promise<WebhookEndpointRecord> {
    const outcome = await this.store.updateWebhookEndpoint(orgId, id, change, this.clock.now().toISOString(), ifMatch);
    if (outcome === 'conflict') {
      const now = await this.store.getWebhookEndpoint(orgId, id);
      throw new HttpError('VERSION_CONFLICT', `Webhook endpoint ${id} is at version ${now?.version}, not ${ifMatch}: it changed since you read it. Read it again and send its current version in If-Match.`);
    }
    if (!outcome) throw notFound(id);
    return outcome;
  }

  async #find(orgId: string, id: string): Promise<WebhookEndpointRecord> {
    const ep = await this.store.getWebhookEndpoint(orgId, id);
    if (!ep) throw notFound(id);
    return ep;
  }

  /**
   * https (unless private networks are allowed, for development), then the outbound URL policy with DNS. A name that
   * does not resolve (yet) is accepted: every delivery checks the URL again, and its log says why it could not go.
   */
  async #checkUrl(url: string): Promise<void> {
    const syntax = this.policy.checkSyntax(url, 'url');
    if (!syntax.allowed) throw fieldError('url', syntax.reason, `url is refused by the outbound URL policy: ${syntax.reason}.`);
    if (syntax.url.protocol !== 'https:' && !this.config.allowPrivateNetwork) throw fieldError('url', 'must use https', 'url must use https: deliveries carry signed events.');
    const decision = await this.policy.check(url, 'url');
    if (!decision.allowed && !decision.unresolved) throw fieldError('url', decision.reason, `url is refused by the outbound URL policy: ${decision.reason}.`);
  }
}

function notFound(id: string): HttpError {
  return new HttpError('NOT_FOUND', `Webhook endpoint ${id} was not found (unknown, deleted, or another organization's).`);
}

/** The fields every new delivery starts with. */
function fresh(orgId: string, endpointId: string, now: string): Pick<WebhookDeliveryRecord, 'id' | 'orgId' | 'endpointId' | 'status' | 'attempts' | 'nextAttemptAt' | 'lease' | 'attemptsLog' | 'createdAt' | 'updatedAt'> {
  return { id: randomUUID(), orgId, endpointId, status: 'PENDING', attempts: 0, nextAttemptAt: now, lease: null, attemptsLog: [], createdAt: now, updatedAt: now };
}

/** One page of rows read with one extra (`limit + 1`): the extra says there is a next page. */
export function paged<R extends { createdAt: string; id: string }, V>(rows: R[], limit: number, view: (r: R) => V): { items: V[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items: items.map(view), nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
}
