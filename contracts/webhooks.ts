// JSON Schemas of the webhook endpoint API (DESIGN §8): an organization's reusable signed endpoints and their deliveries.
import { Type, type Static } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** The events an endpoint may filter on; `ping` is sent by POST …/test only. */
export const WebhookEventNameSchema = Type.Union([Type.Literal('job.completed'), Type.Literal('job.failed')]);

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'Where deliveries are POSTed: https (http and private hosts only when the server allows private networks, for development). Checked by the outbound URL policy at creation, change and every delivery; redirects are not followed.' });
const Events = Type.Array(WebhookEventNameSchema, { uniqueItems: true, maxItems: 2, description: 'Events to receive; empty or absent: every event.' });
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);

export const CreateWebhookEndpointSchema = Type.Object(
  { url: Url, events: Type.Optional(Events), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })) },
  { additionalProperties: false },
);
export type CreateWebhookEndpoint = Static<typeof CreateWebhookEndpointSchema>;

export const UpdateWebhookEndpointSchema = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean({ description: 'true re-enables an endpoint its failures disabled (and clears `disabledReason` and `failingSince`).' })) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookEndpoint = Static<typeof UpdateWebhookEndpointSchema>;

const endpointFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(WebhookEventNameSchema),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([Type.String(), Type.Null()], { description: 'Why its failures disabled it (after failing for 3 days by default).' }),
  failingSince: Type.Union([Timestamp, Type.Null()], { description: 'Since when its deliveries fail without a success.' }),
  version: Type.Integer({ minimum: 1 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const WebhookEndpointSchema = Type.Object(endpointFields);
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;

const Secret = Type.String({ pattern: '^whsec_', description: 'The signing secret: shown only in this answer; keep it.' });

export const CreatedWebhookEndpointSchema = Type.Object({ ...endpointFields, secret: Secret });

export const RotatedWebhookEndpointSchema = Type.Object({
  ...endpointFields,
  secret: Secret,
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], { description: 'Until then deliveries carry a second v1 signature made with the previous secret.' }),
});

export const WebhookEndpointListSchema = Type.Object({ items: Type.Array(WebhookEndpointSchema), nextCursor: Type.Union([Type.String(), Type.Null()]) });

export const WebhookAttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: Timestamp,
  status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status; null when none came." }),
  durationMs: Type.Integer({ minimum: 0 }),
  response: Type.String({ description: "The first KiB of the receiver's answer." }),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const WebhookDeliverySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  endpointId: Type.String({ format: 'uuid' }),
  eventId: Type.String({ description: 'The `Quire-Event-Id` (and body `id`): the same in every attempt and redelivery.' }),
  event: Type.Union([WebhookEventNameSchema, Type.Literal('ping')]),
  subject: Type.Object({ kind: Type.Union([Type.Literal('job'), Type.Literal('bulk'), Type.Literal('ping')]), id: Type.String() }),
  status: Type.Union([Type.Literal('PENDING'), Type.Literal('DELIVERED'), Type.Literal('FAILED')]),
  attempts: Type.Integer({ minimum: 0 }),
  nextAttemptAt: NullableTimestamp,
  attemptsLog: Type.Array(WebhookAttemptSchema),
  redeliveryOf: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const WebhookDeliveryListSchema = Type.Object({ items: Type.Array(WebhookDeliverySchema), nextCursor: Type.Union([Type.String(), Type.Null()]) });
