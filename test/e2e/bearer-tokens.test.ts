// Bearer access: a trusted integration client exchanges a resource token (RFC 8693) for an mcp_at_ token.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, admin, OWNER_KEY, cleanup, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf } from '../fixtures/pdfs.js';

const dataDir = tempDir();
let server: RunningServer;
let owner: ApiClient;
let clientId: string;
let clientSecret: string;
let resourceToken: string;
let resourceTokenId: string;
let orgId: string;

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const RT_TYPE = 'urn:quire:params:oauth:token-type:resource-token';

async function exchange(fields: Record<string, string>, id = clientId, secret = clientSecret): Promise<{ status: number; body: any }> {
  const r = await fetch(`${server.baseUrl}/api/v1/dev/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: r.status, body: await r.json() };
}

test.before(async () => {
  const first = await startServer({ dataDir });
  await first.stop();
  orgId = (await admin(dataDir, ['org', 'list'])).json[0].id;
  const client = await admin(dataDir, ['client', 'create', '--name', 'Assistant integration']);
  assert.is(client.code, 0, client.stderr);
  clientId = client.json.clientId;
  clientSecret = client.json.clientSecret;
  const token = await admin(dataDir, ['token', 'create', '--org', orgId, '--client', clientId, '--role', 'member']);
  assert.is(token.code, 0, token.stderr);
  resourceToken = token.json.resourceToken;
  resourceTokenId = token.json.id;
  assert.match(resourceToken, /^mcp_rt_/);
  server = await startServer({ dataDir });
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server.stop();
  cleanup(dataDir);
});

test('exchanges a resource token for a short-lived mcp_at_ access token that works on the API', async () => {
  const r = await exchange({ grant_type: GRANT, subject_token: resourceToken, subject_token_type: RT_TYPE, audience: 'quire-developer-api' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.access_token, /^mcp_at_/);
  assert.is(r.body.token_type, 'Bearer');
  assert.is(r.body.expires_in, 900);
  const bearer = owner.withKey(null);
  const auth = { Authorization: `Bearer ${r.body.access_token}` };
  const credits = await bearer.get('/api/v1/dev/credits', auth);
  assert.is(credits.status, 200);
  assert.is(credits.body.orgId, orgId);
  // The token carries the member role of its grant.
  assert.is((await bearer.get('/api/v1/dev/api-keys', auth)).status, 403);
  // And it can run a tool end to end.
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await makePdf(2))]), 'a.pdf');
  const up = await fetch(`${server.baseUrl}/api/v1/dev/tools/files/upload`, { method: 'POST', headers: auth, body: form });
  assert.is(up.status, 201);
  const fileId = ((await up.json()) as { id: string }).id;
  assert.is((await bearer.post('/api/v1/dev/tools/pdf/split', { fileId, ranges: ['1'] }, auth)).status, 202);
});

test('refuses the exchange for a wrong client secret, a wrong grant type or an unknown resource token', async () => {
  const wrongSecret = await exchange({ grant_type: GRANT, subject_token: resourceToken, subject_token_type: RT_TYPE }, clientId, 'mcp_cs_wrong');
  assert.is(wrongSecret.status, 401);
  assert.is(wrongSecret.body.error, 'invalid_client');
  const wrongGrant = await exchange({ grant_type: 'client_credentials', subject_token: resourceToken, subject_token_type: RT_TYPE });
  assert.is(wrongGrant.body.error, 'unsupported_grant_type');
  const unknown = await exchange({ grant_type: GRANT, subject_token: 'mcp_rt_' + 'x'.repeat(43), subject_token_type: RT_TYPE });
  assert.is(unknown.body.error, 'invalid_grant');
  const audience = await exchange({ grant_type: GRANT, subject_token: resourceToken, subject_token_type: RT_TYPE, audience: 'someone-else' });
  assert.is(audience.body.error, 'invalid_target');
});

test('rejects the raw resource token and a forged access token on the API', async () => {
  const anon = owner.withKey(null);
  const raw = await anon.get('/api/v1/dev/credits', { Authorization: `Bearer ${resourceToken}` });
  assert.is(raw.status, 401);
  assert.is(raw.body.code, 'WRONG_TOKEN_KIND');
  const good = (await exchange({ grant_type: GRANT, subject_token: resourceToken, subject_token_type: RT_TYPE })).body.access_token as string;
  const [payload] = good.slice('mcp_at_'.length).split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  claims.role = 'owner';
  const forged = `mcp_at_${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${good.split('.')[1]}`;
  const r = await anon.get('/api/v1/dev/credits', { Authorization: `Bearer ${forged}` });
  assert.is(r.status, 401);
  assert.is(r.body.code, 'UNAUTHENTICATED');
});

test('ends access tokens when their resource token is revoked', async () => {
  const token = (await exchange({ grant_type: GRANT, subject_token: resourceToken, subject_token_type: RT_TYPE })).body.access_token as string;
  await server.stop();
  const revoked = await admin(dataDir, ['token', 'revoke', '--org', orgId, '--id', resourceTokenId]);
  assert.is(revoked.code, 0, revoked.stderr);
  server = await startServer({ dataDir });
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  const r = await owner.withKey(null).get('/api/v1/dev/credits', { Authorization: `Bearer ${token}` });
  assert.is(r.status, 401);
  assert.is((await exchange({ grant_type: GRANT, subject_token: resourceToken, subject_token_type: RT_TYPE })).body.error, 'invalid_grant');
});

test.run();
