// Rate limiting per API key: RateLimit-* headers on every answer, 429 with Retry-After past the budget.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OWNER_KEY, type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started), { env: { QUIRE_RATE_LIMIT_PER_MINUTE: '5' } });

test('answers 429 RATE_LIMITED with Retry-After after the per-minute budget of a key', async () => {
  const remaining: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await api.get('/api/v1/dev/credits');
    assert.is(r.status, 200);
    assert.is(r.headers.get('ratelimit-limit'), '5');
    remaining.push(Number(r.headers.get('ratelimit-remaining')));
  }
  assert.equal(remaining, [4, 3, 2, 1, 0]);
  const refused = await api.get('/api/v1/dev/credits');
  assert.is(refused.status, 429);
  assert.is(refused.body.code, 'RATE_LIMITED');
  const retryAfter = Number(refused.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= 12, String(retryAfter));
  assert.ok(Number(refused.headers.get('ratelimit-reset')) >= 1);
});

test('keeps each key its own budget, and leaves health checks unlimited', async () => {
  const created = await api.withKey(OWNER_KEY).request('POST', '/api/v1/dev/api-keys', { name: 'second', role: 'member' });
  // The owner key is out of budget here, so the key is made before this test only if allowed; otherwise wait for a token.
  let second: string;
  if (created.status === 201) second = created.body.key;
  else {
    assert.is(created.status, 429);
    await new Promise((r) => setTimeout(r, Number(created.headers.get('retry-after')) * 1000 + 100));
    const again = await api.request('POST', '/api/v1/dev/api-keys', { name: 'second', role: 'member' });
    assert.is(again.status, 201);
    second = again.body.key;
  }
  const other = api.withKey(second);
  assert.is((await other.get('/api/v1/dev/credits')).status, 200);
  for (let i = 0; i < 20; i++) assert.is((await api.withKey(null).get('/healthz')).status, 200);
});

test.run();
