// Integration access: resource tokens (`mcp_rt_`, long-lived, stored hashed) are exchanged (RFC 8693)
// by a trusted client for short-lived, HMAC-signed access tokens (`mcp_at_`) with the Developer API audience.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { signatureMatches } from './hmac-signature.js';
import { generateSecret, hashApiKey, keyPrefix } from './api-keys.js';
import type { Store } from './store/store.js';
import type { Clock } from './clock.js';
import type { Role } from './model.js';

export const ACCESS_TOKEN_AUDIENCE = 'quire-developer-api';
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

export interface AccessClaims {
  /** Resource token the access token was exchanged from; revoking it ends the access token too. */
  rt: string;
  org: string;
  role: Role;
  aud: string;
  /** Unix seconds. */
  exp: number;
}

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(`quire-access.v1\n${payload}`).digest();
}

export function signAccessToken(secret: Buffer, claims: AccessClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `mcp_at_${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** The claims of a genuine, unexpired access token for this API, or null. */
export function verifyAccessToken(secret: Buffer, token: string, nowSeconds: number): AccessClaims | null {
  const m = /^mcp_at_([A-Za-z0-9_-]{10,2048})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  if (!signatureMatches(m[2]!, mac(secret, m[1]!))) return null;
  let claims: AccessClaims;
  try {
    claims = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as AccessClaims;
  } catch {
    return null;
  }
  if (claims.aud !== ACCESS_TOKEN_AUDIENCE || typeof claims.exp !== 'number' || claims.exp < nowSeconds) return null;
  return claims;
}

export async function createIntegrationClient(store: Store, clock: Clock, name: string): Promise<{ clientId: string; clientSecret: string }> {
  const clientSecret = generateSecret('mcp_cs_');
  const clientId = randomUUID();
  await store.createIntegrationClient({ id: clientId, name, secretHash: hashApiKey(clientSecret), createdAt: clock.now().toISOString(), revokedAt: null });
  return { clientId, clientSecret };
}

export async function createResourceToken(store: Store, clock: Clock, orgId: string, clientId: string, role: Role, name: string): Promise<{ id: string; token: string }> {
  const token = generateSecret('mcp_rt_');
  const id = randomUUID();
  await store.createResourceToken({ id, orgId, clientId, role, name, hash: hashApiKey(token), prefix: keyPrefix(token), createdAt: clock.now().toISOString(), revokedAt: null });
  return { id, token };
}

/** Checks a client secret in constant time against its stored hash. */
export function clientSecretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashApiKey(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
