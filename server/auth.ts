// Who is calling: an API key (X-API-Key) or a bearer access token; every lookup after this is org-scoped.
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../contracts/errors.js';
import { API_KEY_PATTERN, hashApiKey } from '../kernel/api-keys.js';
import type { Role } from '../kernel/model.js';
import type { Kernel } from '../kernel/kernel.js';
import { verifyAccessToken } from '../kernel/access-tokens.js';

export interface Principal {
  orgId: string;
  role: Role;
  /** Rate-limit bucket and log identity: the key id. */
  subject: string;
  /** Set for an operator key (docs/operators.md): it calls the operator routes and nothing of an organization's. */
  operator?: { keyId: string; name: string };
}

const ROLE_RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

export function requireRole(p: Principal, minimum: Role): void {
  if (ROLE_RANK[p.role] < ROLE_RANK[minimum]) {
    throw new HttpError('FORBIDDEN', `This needs an ${minimum} key or better; the key used is a ${p.role} key.`);
  }
}

/** A route's pre-validation for workspace writes (templates, blocks): an admin or owner key, 403 otherwise, before the body is read. */
export function requireWriter(ctx: { principal: Principal | null }): void {
  requireRole(ctx.principal!, 'admin');
}

/**
 * Operator routes take operator keys only; an operator key takes the operator routes and the routes that say it may
 * read them (the plugin listing) only, so it never reaches an organization's data. 403 FORBIDDEN otherwise.
 */
export function checkOperatorAccess(route: { auth: string; operatorMayCall?: boolean }, p: Principal): void {
  if (route.auth === 'operator' && !p.operator) {
    throw new HttpError('FORBIDDEN', 'This route takes an operator key (npm run admin -- key create --operator); the key used is an organization\'s key.');
  }
  if (route.auth !== 'operator' && p.operator && !route.operatorMayCall) {
    throw new HttpError('FORBIDDEN', 'An operator key calls the /operator routes and GET /plugins only; use an organization\'s key here.');
  }
}

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[minimum];
}

/** Tells apart what a bearer token is, so the wrong kinds get WRONG_TOKEN_KIND rather than a generic 401. */
function bearerKind(token: string): 'access' | 'resource' | 'jwt' | 'api-key' | 'other' {
  if (token.startsWith('mcp_at_')) return 'access';
  if (token.startsWith('mcp_rt_')) return 'resource';
  if (token.startsWith('ak_')) return 'api-key';
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) return 'jwt';
  return 'other';
}

export async function authenticate(req: IncomingMessage, kernel: Kernel): Promise<Principal> {
  const { store } = kernel;
  const apiKey = req.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey) {
    if (!API_KEY_PATTERN.test(apiKey)) throw new HttpError('UNAUTHENTICATED', 'The X-API-Key header is not an API key; keys start with ak_.');
    const rec = await store.findApiKeyByHash(hashApiKey(apiKey));
    if (!rec || rec.revokedAt) throw new HttpError('UNAUTHENTICATED', 'The API key is unknown or revoked.');
    return { orgId: rec.orgId, role: rec.role, subject: `key:${rec.id}`, ...(rec.operator ? { operator: { keyId: rec.id, name: rec.name } } : {}) };
  }
  const authz = req.headers.authorization;
  if (typeof authz === 'string' && authz) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!m) throw new HttpError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <access token>"; or send an API key in X-API-Key.');
    const kind = bearerKind(m[1]!);
    switch (kind) {
      case 'access': {
        const claims = verifyAccessToken(kernel.secret, m[1]!, Math.floor(kernel.clock.now().getTime() / 1000));
        const grant = claims ? await store.getResourceToken(claims.rt) : undefined;
        const client = grant ? await store.getIntegrationClient(grant.clientId) : undefined;
        if (!claims || !grant || grant.revokedAt || grant.orgId !== claims.org || !client || client.revokedAt) {
          throw new HttpError('UNAUTHENTICATED', 'The access token is invalid, expired or revoked; obtain a new one through the token exchange.');
        }
        return { orgId: grant.orgId, role: grant.role, subject: `rt:${grant.id}` };
      }
      case 'resource':
        throw new HttpError('WRONG_TOKEN_KIND', 'A resource token (mcp_rt_) cannot be used on the API; exchange it server-side for an mcp_at_ access token.');
      case 'api-key':
        throw new HttpError('WRONG_TOKEN_KIND', 'API keys go in the X-API-Key header, not in Authorization: Bearer.');
      case 'jwt':
        throw new HttpError('WRONG_TOKEN_KIND', 'Login and third-party JWTs are not accepted; use an API key or an mcp_at_ access token.');
      default:
        throw new HttpError('WRONG_TOKEN_KIND', 'This bearer token is not a Quire access token (mcp_at_); use an API key or an mcp_at_ access token.');
    }
  }
  throw new HttpError('UNAUTHENTICATED', 'No credentials: send an API key in the X-API-Key header.');
}
