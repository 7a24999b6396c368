// RFC 8693 token exchange: a trusted integration client trades a resource token for a short-lived access token.
import { Type } from '@sinclair/typebox';
import type { ServerResponse } from 'node:http';
import { ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_TTL_SECONDS, clientSecretMatches, signAccessToken } from '../../kernel/access-tokens.js';
import { hashApiKey } from '../../kernel/api-keys.js';
import { HttpError } from '../../contracts/errors.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { API_PREFIX } from '../paths.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const RESOURCE_TOKEN_TYPE = 'urn:quire:params:oauth:token-type:resource-token';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** OAuth endpoints answer in the RFC 6749 error format, which OAuth client libraries understand. */
function oauthError(res: ServerResponse, status: number, error: string, description: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  if (status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="quire-token-exchange"');
  res.end(JSON.stringify({ error, error_description: description }));
}

/** The token request is a form (RFC 6749), not JSON: read here, with no body rule. */
async function readForm(ctx: RouteContext): Promise<URLSearchParams> {
  const type = (ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 16 * 1024) throw new HttpError('PAYLOAD_TOO_LARGE', 'The token request exceeds 16 KB.');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (type === 'application/json') {
    const body = JSON.parse(text || '{}') as Record<string, unknown>;
    return new URLSearchParams(Object.entries(body).filter(([, v]) => typeof v === 'string') as Array<[string, string]>);
  }
  return new URLSearchParams(text);
}

async function exchange(ctx: RouteContext): Promise<void> {
  const { res, kernel } = ctx;
  let form: URLSearchParams;
  try {
    form = await readForm(ctx);
  } catch {
    return oauthError(res, 400, 'invalid_request', 'The body must be application/x-www-form-urlencoded (or JSON) token request parameters.');
  }
  let clientId = form.get('client_id');
  let clientSecret = form.get('client_secret');
  const basic = /^Basic\s+(\S+)$/i.exec(ctx.req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    clientId = decodeURIComponent(decoded.slice(0, colon));
    clientSecret = decodeURIComponent(decoded.slice(colon + 1));
  }
  const client = clientId && /^[0-9a-f-]{36}$/.test(clientId) ? await kernel.store.getIntegrationClient(clientId) : undefined;
  if (!client || client.revokedAt || !clientSecret || !clientSecretMatches(clientSecret, client.secretHash)) {
    return oauthError(res, 401, 'invalid_client', 'Unknown integration client or wrong client secret; the operator registers clients with the admin CLI.');
  }
  if (form.get('grant_type') !== TOKEN_EXCHANGE_GRANT) {
    return oauthError(res, 400, 'unsupported_grant_type', `grant_type must be ${TOKEN_EXCHANGE_GRANT}.`);
  }
  const subjectType = form.get('subject_token_type');
  if (subjectType !== RESOURCE_TOKEN_TYPE) {
    return oauthError(res, 400, 'invalid_request', `subject_token_type must be ${RESOURCE_TOKEN_TYPE}.`);
  }
  const audience = form.get('audience');
  if (audience !== null && audience !== ACCESS_TOKEN_AUDIENCE) {
    return oauthError(res, 400, 'invalid_target', `audience must be ${ACCESS_TOKEN_AUDIENCE}.`);
  }
  const subject = form.get('subject_token') ?? '';
  const grant = subject.startsWith('mcp_rt_') ? await kernel.store.findResourceTokenByHash(hashApiKey(subject)) : undefined;
  if (!grant || grant.revokedAt || grant.clientId !== client.id) {
    return oauthError(res, 400, 'invalid_grant', 'The resource token is unknown, revoked, or was issued to another client.');
  }
  const exp = Math.floor(kernel.clock.now().getTime() / 1000) + ACCESS_TOKEN_TTL_SECONDS;
  const accessToken = signAccessToken(kernel.secret, { rt: grant.id, org: grant.orgId, role: grant.role, aud: ACCESS_TOKEN_AUDIENCE, exp });
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify({ access_token: accessToken, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS }));
}

export function oauthRoutes(): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/oauth/token`,
      auth: 'none',
      handler: exchange,
      doc: {
        tag: 'Auth',
        summary: 'Token exchange (RFC 8693) for trusted integration clients',
        description: `Client authentication: HTTP Basic client_id:client_secret. Form fields: grant_type=${TOKEN_EXCHANGE_GRANT}, subject_token=<mcp_rt_…>, subject_token_type=${RESOURCE_TOKEN_TYPE}, optional audience=${ACCESS_TOKEN_AUDIENCE}. Errors use the RFC 6749 format.`,
        body: Type.Object({
          grant_type: Type.Literal(TOKEN_EXCHANGE_GRANT),
          subject_token: Type.String(),
          subject_token_type: Type.Literal(RESOURCE_TOKEN_TYPE),
          audience: Type.Optional(Type.Literal(ACCESS_TOKEN_AUDIENCE)),
        }),
        responses: {
          200: Type.Object({ access_token: Type.String(), issued_token_type: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer() }),
        },
      },
    },
  ];
}
