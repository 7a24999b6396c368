// The organization's reusable signed webhook endpoints and their deliveries (DESIGN §8; owners and admins only).
import {
  CreateWebhookEndpointSchema,
  CreatedWebhookEndpointSchema,
  RotatedWebhookEndpointSchema,
  UpdateWebhookEndpointSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  type CreateWebhookEndpoint,
  type UpdateWebhookEndpoint,
} from '../../contracts/webhooks.js';
import { requireRole } from '../auth.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { ifMatchOf, pageOf } from './documents.js';

const tag = 'Webhook endpoints';
const base = `${API_PREFIX}/webhook-endpoints`;
const one = `${base}/:endpointId`;
const orgOf = (ctx: RouteContext) => ctx.principal!.orgId;
const etag = (version: number) => ({ ETag: `"${version}"` });
/** Every route answers 403 to a member key before anything else is read. */
const admins = (ctx: RouteContext) => requireRole(ctx.principal!, 'admin');
const LIMIT_QUERY = { name: 'limit', description: 'Items per page, 1 to 200 (default 50).', schema: { type: 'integer', minimum: 1, maximum: 200 } };
const CURSOR_QUERY = { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: { type: 'string' } };
const ROLE_NOTE = 'Owner and admin keys only (403 FORBIDDEN for a member key).';

export function webhookEndpointRoutes(): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: base,
      idempotent: true,
      auth: 'key',
      preValidation: admins,
      body: { mismatch: 'The request body does not match POST /webhook-endpoints.', limit: 16 * 1024 },
      handler: async (ctx: RouteContext<CreateWebhookEndpoint>) => {
        const created = await ctx.services.webhooks.create(orgOf(ctx), ctx.body);
        sendJson(ctx.res, 201, created, { Location: `${base}/${created.id}`, ...etag(created.version) });
      },
      doc: {
        tag,
        summary: 'Register a webhook endpoint (the signing secret is in this answer only)',
        description: `Every job.completed and job.failed event of the organization's render, bulk-render and tools jobs that \`events\` names goes to it, signed (docs/webhooks.md), with retries. The URL must be https and pass the outbound URL policy (400 VALIDATION_FAILED naming \`url\`). ${ROLE_NOTE}`,
        body: CreateWebhookEndpointSchema,
        responses: { 201: CreatedWebhookEndpointSchema },
      },
    },
    {
      method: 'GET',
      path: base,
      auth: 'key',
      preValidation: (ctx) => (admins(ctx), pageOf(ctx)),
      handler: async (ctx, page: ReturnType<typeof pageOf>) => sendJson(ctx.res, 200, await ctx.services.webhooks.list(orgOf(ctx), page)),
      doc: { tag, summary: "The organization's webhook endpoints, newest first (paged; never their secrets)", description: ROLE_NOTE, query: [LIMIT_QUERY, CURSOR_QUERY], responses: { 200: WebhookEndpointListSchema } },
    },
    {
      method: 'GET',
      path: one,
      auth: 'key',
      preValidation: admins,
      handler: async (ctx) => {
        const ep = await ctx.services.webhooks.get(orgOf(ctx), ctx.params.endpointId!);
        sendJson(ctx.res, 200, ep, etag(ep.version));
      },
      doc: { tag, summary: 'A webhook endpoint (ETag: its version)', description: ROLE_NOTE, responses: { 200: WebhookEndpointSchema } },
    },
    {
      method: 'PATCH',
      path: one,
      auth: 'key',
      preValidation: (ctx) => (admins(ctx), ifMatchOf(ctx)),
      body: { mismatch: 'The request body does not match PATCH /webhook-endpoints/{endpointId}.', limit: 16 * 1024 },
      handler: async (ctx: RouteContext<UpdateWebhookEndpoint>, ifMatch: number | undefined) => {
        const ep = await ctx.services.webhooks.update(orgOf(ctx), ctx.params.endpointId!, ctx.body, ifMatch);
        sendJson(ctx.res, 200, ep, etag(ep.version));
      },
      doc: {
        tag,
        summary: 'Change a webhook endpoint: url, events, description, enabled',
        description: `\`enabled: true\` re-enables an endpoint its failures disabled. Send \`If-Match: <version>\` to refuse the change with 412 VERSION_CONFLICT if it changed since you read it. ${ROLE_NOTE}`,
        body: UpdateWebhookEndpointSchema,
        responses: { 200: WebhookEndpointSchema },
      },
    },
    {
      method: 'DELETE',
      path: one,
      auth: 'key',
      preValidation: admins,
      handler: async (ctx) => {
        await ctx.services.webhooks.delete(orgOf(ctx), ctx.params.endpointId!);
        ctx.res.statusCode = 204;
        ctx.res.end();
      },
      doc: { tag, summary: 'Delete a webhook endpoint and its deliveries (nothing else changes)', description: ROLE_NOTE, responses: { 204: null } },
    },
    {
      method: 'POST',
      path: `${one}/rotate-secret`,
      auth: 'key',
      preValidation: admins,
      handler: async (ctx) => sendJson(ctx.res, 200, await ctx.services.webhooks.rotate(orgOf(ctx), ctx.params.endpointId!)),
      doc: {
        tag,
        summary: 'Issue a new signing secret (in this answer only); the previous one keeps signing for 24 hours',
        description: `Until \`previousSecretExpiresAt\` each delivery carries two \`v1\` signatures, the new secret's first. ${ROLE_NOTE}`,
        responses: { 200: RotatedWebhookEndpointSchema },
      },
    },
    {
      method: 'POST',
      path: `${one}/test`,
      idempotent: true,
      auth: 'key',
      preValidation: admins,
      handler: async (ctx) => sendJson(ctx.res, 202, await ctx.services.webhooks.test(orgOf(ctx), ctx.params.endpointId!)),
      doc: { tag, summary: 'Queue a `ping` event to the endpoint', description: `The body is \`{id, event: "ping", orgId, endpointId, createdAt}\`, signed like every event. ${ROLE_NOTE}`, responses: { 202: WebhookDeliverySchema } },
    },
    {
      method: 'GET',
      path: `${one}/deliveries`,
      auth: 'key',
      preValidation: (ctx) => (admins(ctx), pageOf(ctx)),
      handler: async (ctx, page: ReturnType<typeof pageOf>) => sendJson(ctx.res, 200, await ctx.services.webhooks.deliveries(orgOf(ctx), ctx.params.endpointId!, page)),
      doc: { tag, summary: "The endpoint's deliveries, newest first, each with its attempts (kept 30 days)", description: ROLE_NOTE, query: [LIMIT_QUERY, CURSOR_QUERY], responses: { 200: WebhookDeliveryListSchema } },
    },
    {
      method: 'POST',
      path: `${one}/deliveries/:deliveryId/redeliver`,
      idempotent: true,
      auth: 'key',
      preValidation: admins,
      handler: async (ctx) => sendJson(ctx.res, 202, await ctx.services.webhooks.redeliver(orgOf(ctx), ctx.params.endpointId!, ctx.params.deliveryId!)),
      doc: { tag, summary: 'Deliver an event again: a new delivery with the same event id', description: `The body is built afresh from the job as it is now. ${ROLE_NOTE}`, responses: { 202: WebhookDeliverySchema } },
    },
  ];
}
