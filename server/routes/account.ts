// The caller's organization: credit balance and ledger, API keys (owners and admins manage them).
import { HttpError } from '../../contracts/errors.js';
import { createApiKey } from '../../kernel/bootstrap.js';
import { ApiKeySchema, CreateApiKeySchema, CreditsSchema } from '../../contracts/common.js';
import { Type } from '@sinclair/typebox';
import type { ApiKeyRecord, Role } from '../../kernel/model.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { requireRole, roleAtLeast } from '../auth.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';

async function credits(ctx: RouteContext): Promise<void> {
  const { store } = ctx.kernel;
  const orgId = ctx.principal!.orgId;
  const org = await store.getOrganization(orgId);
  if (!org) throw new HttpError('NOT_FOUND', 'The organization no longer exists.');
  const limitText = ctx.query.get('limit');
  const limit = limitText === null ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw new HttpError('VALIDATION_FAILED', 'limit must be an integer from 1 to 500.', [{ path: 'query.limit', message: 'must be an integer from 1 to 500', code: 'INVALID_FIELD' }]);
  }
  const reserved = await ctx.kernel.jobs.reserved(orgId);
  const entries = (await store.listLedger(orgId, limit)).map(({ orgId: _o, ...e }) => e);
  sendJson(ctx.res, 200, { orgId, balance: org.balance, reserved, available: org.balance - reserved, entries });
}

function keyView(k: ApiKeyRecord) {
  return { id: k.id, name: k.name, role: k.role, prefix: k.prefix, createdAt: k.createdAt, revokedAt: k.revokedAt };
}

async function listKeys(ctx: RouteContext): Promise<void> {
  requireRole(ctx.principal!, 'admin');
  const keys = await ctx.kernel.store.listApiKeys(ctx.principal!.orgId);
  sendJson(ctx.res, 200, { items: keys.map(keyView) });
}

/** The body matched CreateApiKeySchema (the route's rule, after the role check). */
async function createKey(ctx: RouteContext<{ name: string; role: Role }>): Promise<void> {
  const p = ctx.principal!;
  const body = ctx.body;
  if (!roleAtLeast(p.role, body.role)) throw new HttpError('FORBIDDEN', `A ${p.role} key cannot create ${body.role} keys.`);
  const { id, key } = await createApiKey(ctx.kernel.store, ctx.kernel.clock, p.orgId, body.role, body.name);
  const rec = (await ctx.kernel.store.listApiKeys(p.orgId)).find((k) => k.id === id)!;
  sendJson(ctx.res, 201, { ...keyView(rec), key });
}

async function revokeKey(ctx: RouteContext): Promise<void> {
  const p = ctx.principal!;
  requireRole(p, 'admin');
  const id = ctx.params.keyId!;
  const target = (await ctx.kernel.store.listApiKeys(p.orgId)).find((k) => k.id === id);
  if (!target || target.revokedAt) throw new HttpError('NOT_FOUND', `API key ${id} was not found.`);
  if (!roleAtLeast(p.role, target.role)) throw new HttpError('FORBIDDEN', `A ${p.role} key cannot revoke ${target.role} keys.`);
  await ctx.kernel.store.revokeApiKey(p.orgId, id, ctx.kernel.clock.now().toISOString());
  ctx.res.statusCode = 204;
  ctx.res.end();
}

export function accountRoutes(): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: `${API_PREFIX}/credits`,
      auth: 'key',
      handler: credits,
      doc: {
        tag: 'Account',
        summary: "The organization's credit balance and recent ledger entries",
        query: [{ name: 'limit', description: 'Ledger entries to return, newest first (1–500, default 50).', schema: { type: 'integer', minimum: 1, maximum: 500 } }],
        responses: { 200: CreditsSchema },
      },
    },
    { method: 'GET', path: `${API_PREFIX}/api-keys`, auth: 'key', handler: listKeys, doc: { tag: 'Account', summary: "The organization's API keys (admin or owner)", responses: { 200: Type.Object({ items: Type.Array(ApiKeySchema) }) } } },
    {
      method: 'POST',
      path: `${API_PREFIX}/api-keys`,
      auth: 'key',
      idempotent: true,
      // Only admins and owners create keys: the role answers before the body.
      preValidation: (ctx) => requireRole(ctx.principal!, 'admin'),
      body: { mismatch: 'The body does not describe an API key.', limit: 16 * 1024 },
      handler: createKey,
      doc: { tag: 'Account', summary: 'Create an API key (admin or owner; the key is shown once)', body: CreateApiKeySchema, responses: { 201: ApiKeySchema } },
    },
    { method: 'DELETE', path: `${API_PREFIX}/api-keys/:keyId`, auth: 'key', handler: revokeKey, doc: { tag: 'Account', summary: 'Revoke an API key (admin or owner)', responses: { 204: null } } },
  ];
}
