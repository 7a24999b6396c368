// What both stores decide alike about webhook deliveries: which endpoints an event goes to, the PENDING delivery a
// job's finish queues for each, and how an attempt's outcome moves its endpoint's health.
import { randomUUID } from 'node:crypto';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEvent } from '../model.js';
import type { WebhookAttemptOutcome, WebhookEndpointChange } from './store.js';

/** An endpoint receives an event when it is enabled and its filter is empty (every event) or names the event. */
export function endpointWants(endpoint: WebhookEndpointRecord, event: WebhookEvent['event']): boolean {
  return endpoint.enabled && (endpoint.events.length === 0 || endpoint.events.includes(event));
}

/** The PENDING delivery of `event` to `endpoint`, due at once. */
export function queuedDelivery(endpoint: WebhookEndpointRecord, event: WebhookEvent, subject: WebhookDeliveryRecord['subject']): WebhookDeliveryRecord {
  return {
    id: randomUUID(),
    orgId: endpoint.orgId,
    endpointId: endpoint.id,
    eventId: event.id,
    event: event.event,
    eventCreatedAt: event.createdAt,
    subject,
    status: 'PENDING',
    attempts: 0,
    nextAttemptAt: event.createdAt,
    lease: null,
    attemptsLog: [],
    createdAt: event.createdAt,
    updatedAt: event.createdAt,
    redeliveryOf: null,
  };
}

/**
 * The endpoint's change after an attempt at `at` (undefined: none), and whether it disabled the endpoint. A success
 * clears `failingSince`; a failure sets it when unset and disables the endpoint once now − failingSince reaches
 * `disableAfterMs`. Health moves do not count as versions (a client's If-Match still holds).
 */
export function healthChange(endpoint: WebhookEndpointRecord, outcome: WebhookAttemptOutcome, at: string): { change?: WebhookEndpointChange; disabled: boolean } {
  const health = outcome.health;
  if (!health) return { disabled: false };
  if (health.ok) return endpoint.failingSince ? { change: { failingSince: null }, disabled: false } : { disabled: false };
  const since = endpoint.failingSince ?? at;
  if (endpoint.enabled && Date.parse(at) - Date.parse(since) >= health.disableAfterMs) {
    return { change: { failingSince: since, enabled: false, disabledReason: `failing since ${since}: last error ${health.reason}` }, disabled: true };
  }
  return endpoint.failingSince ? { disabled: false } : { change: { failingSince: since }, disabled: false };
}

/** The delivery after the attempt: its log entry appended; FAILED when the attempt disabled its endpoint. */
export function attemptedDelivery(delivery: WebhookDeliveryRecord, outcome: WebhookAttemptOutcome, disabled: boolean): WebhookDeliveryRecord {
  const ended = disabled && outcome.patch.status === 'PENDING';
  return {
    ...delivery,
    ...outcome.patch,
    ...(ended ? { status: 'FAILED' as const, nextAttemptAt: null } : {}),
    lease: null,
    attemptsLog: [...delivery.attemptsLog, outcome.entry],
  };
}
