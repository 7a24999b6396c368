// Store conformance: organizations, API keys, integration clients and resource tokens.
import * as assert from 'uvu/assert';
import { apiKey, area, client, ids, org, resourceToken, at, twoOrgs, type OpenStore } from './store-conformance-records.js';

export function defineAccountConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'organizations', open, (it) => {
    it('an organization reads back as it was created, and an unknown id reads as undefined', async (store) => {
      const o = org({ balance: 12 });
      await store.createOrganization(o);
      assert.equal(await store.getOrganization(o.id), o);
      assert.is(await store.getOrganization('no-such-org'), undefined);
    });

    it('an id that names a property of every JavaScript object (constructor, __proto__, toString) is data: it finds nothing', async (store) => {
      const o = org();
      await store.createOrganization(o);
      for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        assert.is(await store.getOrganization(id), undefined, id);
        assert.is(await store.getIntegrationClient(id), undefined, id);
        assert.is(await store.getResourceToken(id), undefined, id);
        assert.is(await store.getFile(o.id, id), undefined, id);
        assert.is(await store.getJob(o.id, id), undefined, id);
        assert.is(await store.getJobById(id), undefined, id);
        assert.is(await store.revokeApiKey(o.id, id, at(1)), false, id);
        assert.is(await store.revokeResourceToken(o.id, id, at(1)), false, id);
      }
    });

    it('lists every organization', async (store) => {
      const [a, b] = [org(), org({ name: 'Globex' })];
      await store.createOrganization(a);
      await store.createOrganization(b);
      const listed = await store.listOrganizations();
      assert.equal(ids(listed.filter((o) => o.id === a.id || o.id === b.id)), ids([a, b]));
      assert.equal(listed.find((o) => o.id === b.id), b);
    });
  });

  area(suiteName, 'API keys', open, (it) => {
    it('a key is found by its hash, and an unknown hash finds nothing', async (store) => {
      const o = org();
      await store.createOrganization(o);
      const k = apiKey(o.id);
      await store.createApiKey(k);
      assert.equal(await store.findApiKeyByHash(k.hash), k);
      assert.is(await store.findApiKeyByHash('hash-of-nothing'), undefined);
    });

    it('lists the keys of one organization only', async (store) => {
      const [a, b] = await twoOrgs(store);
      const [k1, k2, other] = [apiKey(a.id), apiKey(a.id, { role: 'member' }), apiKey(b.id)];
      for (const k of [k1, k2, other]) await store.createApiKey(k);
      assert.equal(ids(await store.listApiKeys(a.id)), ids([k1, k2]));
      assert.equal(ids(await store.listApiKeys(b.id)), [other.id]);
      assert.equal(await store.listApiKeys('no-such-org'), []);
    });

    it('revoking sets revokedAt once, is refused for another organization, and a revoked key is still found by its hash', async (store) => {
      const [a, b] = await twoOrgs(store);
      const k = apiKey(a.id);
      await store.createApiKey(k);
      assert.is(await store.revokeApiKey(b.id, k.id, at(1)), false, 'another organization cannot revoke it');
      assert.is((await store.findApiKeyByHash(k.hash))?.revokedAt, null);
      assert.is(await store.revokeApiKey(a.id, k.id, at(2)), true);
      assert.is(await store.revokeApiKey(a.id, k.id, at(3)), false, 'a revoked key is not revoked again');
      assert.is(await store.revokeApiKey(a.id, 'no-such-key', at(3)), false);
      // Authentication reads revokedAt itself: the key stays findable so it can answer "revoked".
      assert.equal(await store.findApiKeyByHash(k.hash), { ...k, revokedAt: at(2) });
      assert.is((await store.listApiKeys(a.id))[0]?.revokedAt, at(2));
    });
  });

  area(suiteName, 'integration clients', open, (it) => {
    it('a client reads back by id and is listed; an unknown id reads as undefined', async (store) => {
      const [c1, c2] = [client(), client({ name: 'other' })];
      await store.createIntegrationClient(c1);
      await store.createIntegrationClient(c2);
      assert.equal(await store.getIntegrationClient(c1.id), c1);
      assert.is(await store.getIntegrationClient('no-such-client'), undefined);
      const listed = await store.listIntegrationClients();
      assert.equal(ids(listed.filter((c) => c.id === c1.id || c.id === c2.id)), ids([c1, c2]));
    });
  });

  area(suiteName, 'resource tokens', open, (it) => {
    it('a token is found by its hash and by its id; unknown ones read as undefined', async (store) => {
      const o = org();
      await store.createOrganization(o);
      const c = client();
      await store.createIntegrationClient(c);
      const t = resourceToken(o.id, c.id);
      await store.createResourceToken(t);
      assert.equal(await store.findResourceTokenByHash(t.hash), t);
      assert.equal(await store.getResourceToken(t.id), t);
      assert.is(await store.findResourceTokenByHash('hash-of-nothing'), undefined);
      assert.is(await store.getResourceToken('no-such-token'), undefined);
    });

    it('lists the tokens of one organization only', async (store) => {
      const [a, b] = await twoOrgs(store);
      const c = client();
      await store.createIntegrationClient(c);
      const [t1, t2, other] = [resourceToken(a.id, c.id), resourceToken(a.id, c.id), resourceToken(b.id, c.id)];
      for (const t of [t1, t2, other]) await store.createResourceToken(t);
      assert.equal(ids(await store.listResourceTokens(a.id)), ids([t1, t2]));
      assert.equal(ids(await store.listResourceTokens(b.id)), [other.id]);
    });

    it('revoking sets revokedAt once and is refused for another organization', async (store) => {
      const [a, b] = await twoOrgs(store);
      const c = client();
      await store.createIntegrationClient(c);
      const t = resourceToken(a.id, c.id);
      await store.createResourceToken(t);
      assert.is(await store.revokeResourceToken(b.id, t.id, at(1)), false);
      assert.is((await store.getResourceToken(t.id))?.revokedAt, null);
      assert.is(await store.revokeResourceToken(a.id, t.id, at(2)), true);
      assert.is(await store.revokeResourceToken(a.id, t.id, at(3)), false);
      assert.is(await store.revokeResourceToken(a.id, 'no-such-token', at(3)), false);
      assert.is((await store.findResourceTokenByHash(t.hash))?.revokedAt, at(2));
      assert.is((await store.listResourceTokens(a.id))[0]?.revokedAt, at(2));
    });
  });
}
