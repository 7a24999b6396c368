// Store conformance: idempotency keys are taken once, held under a lease, completed, released, expire, and find the job admitted with them.
import * as assert from 'uvu/assert';
import type { IdempotencyClaim, StoredResponse } from '../../kernel/store/store.js';
import { area, at, bulkJob, id, job, org, type OpenStore } from './store-conformance-records.js';

const N = 8;

/** A claim made at minute `minute`, its lease lasting `leaseMinutes`, the key kept 24 h. */
const claim = (minute: number, owner = id(), leaseMinutes = 1): IdempotencyClaim => ({ owner, now: at(minute), leaseUntil: at(minute + leaseMinutes), expiresAt: at(minute + 24 * 60) });
const answer: StoredResponse = { status: 202, headers: { 'Content-Type': 'application/json; charset=utf-8', Location: '/api/v1/render/x' }, body: Buffer.from('{"jobId":"x"}').toString('base64') };

export function defineIdempotencyConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'idempotency keys', open, (it) => {
    it('a new key is started; while its lease holds it is in flight; once completed it answers done with the stored answer', async (store) => {
      const o = org();
      const first = claim(0);
      assert.equal(await store.beginIdempotency(o.id, 'k1', first), { state: 'started' });
      assert.equal(await store.beginIdempotency(o.id, 'k1', claim(0.5)), { state: 'in-flight', leaseUntil: first.leaseUntil });
      assert.ok(await store.completeIdempotency(o.id, 'k1', first.owner, { fingerprint: 'f1', response: answer }));
      assert.equal(await store.beginIdempotency(o.id, 'k1', claim(2)), { state: 'done', fingerprint: 'f1', response: answer });
    });

    it('keys are per organization: the same key of another organization is independent', async (store) => {
      const [a, b] = [org(), org()];
      assert.equal((await store.beginIdempotency(a.id, 'shared', claim(0))).state, 'started');
      assert.equal((await store.beginIdempotency(b.id, 'shared', claim(0))).state, 'started');
    });

    it('renewing extends the lease; a lapsed lease is taken over by the next caller, and the old owner can no longer renew, complete or release', async (store) => {
      const o = org();
      const first = claim(0);
      await store.beginIdempotency(o.id, 'k', first);
      assert.ok(await store.renewIdempotency(o.id, 'k', first.owner, at(5)));
      assert.equal(await store.beginIdempotency(o.id, 'k', claim(3)), { state: 'in-flight', leaseUntil: at(5) });
      const second = claim(6);
      assert.equal(await store.beginIdempotency(o.id, 'k', second), { state: 'taken-over' });
      assert.not.ok(await store.renewIdempotency(o.id, 'k', first.owner, at(10)));
      assert.not.ok(await store.completeIdempotency(o.id, 'k', first.owner, { fingerprint: 'old', response: answer }));
      await store.releaseIdempotency(o.id, 'k', first.owner);
      assert.equal(await store.beginIdempotency(o.id, 'k', claim(6.5)), { state: 'in-flight', leaseUntil: second.leaseUntil });
      assert.ok(await store.completeIdempotency(o.id, 'k', second.owner, { fingerprint: 'new', response: answer }));
      assert.equal(await store.beginIdempotency(o.id, 'k', claim(8)), { state: 'done', fingerprint: 'new', response: answer });
    });

    it('a released key is started again; a done key cannot be released', async (store) => {
      const o = org();
      const first = claim(0);
      await store.beginIdempotency(o.id, 'k', first);
      await store.releaseIdempotency(o.id, 'k', first.owner);
      const second = claim(0.1);
      assert.equal(await store.beginIdempotency(o.id, 'k', second), { state: 'started' });
      await store.completeIdempotency(o.id, 'k', second.owner, { fingerprint: 'f', response: answer });
      await store.releaseIdempotency(o.id, 'k', second.owner);
      assert.is((await store.beginIdempotency(o.id, 'k', claim(1))).state, 'done');
    });

    it('an expired key counts as absent, and the sweep deletes expired keys only', async (store) => {
      const o = org();
      const old = claim(0);
      await store.beginIdempotency(o.id, 'old', old);
      await store.completeIdempotency(o.id, 'old', old.owner, { fingerprint: 'f', response: answer });
      const young = claim(60);
      await store.beginIdempotency(o.id, 'young', young);
      await store.completeIdempotency(o.id, 'young', young.owner, { fingerprint: 'f', response: answer });
      assert.is(await store.deleteIdempotencyExpiredBy(at(24 * 60 + 1)), 1);
      assert.equal(await store.beginIdempotency(o.id, 'old', claim(24 * 60 + 2)), { state: 'started' });
      assert.is((await store.beginIdempotency(o.id, 'young', claim(24 * 60 + 2))).state, 'done');
      // Past its expiry a record not yet swept is replaced as if absent.
      assert.equal(await store.beginIdempotency(o.id, 'young', claim(25 * 60 + 1)), { state: 'started' });
    });

    it('of concurrent begins of one key exactly one is started, and of concurrent takeovers of a lapsed key exactly one takes it', async (store) => {
      const o = org();
      const begun = await Promise.all(Array.from({ length: N }, () => store.beginIdempotency(o.id, 'race', claim(0))));
      assert.is(begun.filter((b) => b.state === 'started').length, 1);
      assert.is(begun.filter((b) => b.state === 'in-flight').length, N - 1);
      const taken = await Promise.all(Array.from({ length: N }, () => store.beginIdempotency(o.id, 'race', claim(2))));
      assert.is(taken.filter((b) => b.state === 'taken-over').length, 1);
      assert.is(taken.filter((b) => b.state === 'in-flight').length, N - 1);
    });

    it('a job or bulk job admitted with a key is found by it, in its organization only', async (store) => {
      const [a, b] = [org({ balance: 100 }), org({ balance: 100 })];
      await store.createOrganization(a);
      await store.createOrganization(b);
      const j = job(a.id, { idempotencyKey: 'job-key' });
      assert.ok((await store.admitJob(j, { cost: 3, held: 0 })).admitted);
      const item = job(a.id);
      const bulk = bulkJob(a.id, [item], { idempotencyKey: 'bulk-key' });
      item.bulk = { id: bulk.id, index: 0 };
      assert.ok((await store.admitBulkJob(bulk, [item], { cost: 3, held: 0 })).admitted);
      const foundJob = await store.findJobByIdempotencyKey(a.id, 'job-key');
      assert.is(foundJob?.kind === 'job' && foundJob.job.id, j.id);
      const foundBulk = await store.findJobByIdempotencyKey(a.id, 'bulk-key');
      assert.is(foundBulk?.kind === 'bulk' && foundBulk.bulk.id, bulk.id);
      assert.is(await store.findJobByIdempotencyKey(b.id, 'job-key'), undefined);
      assert.is(await store.findJobByIdempotencyKey(a.id, 'unknown'), undefined);
    });

    it('keys and their answers survive a reopen', async (store, opened) => {
      if (!opened.reopen) return;
      const o = org();
      const done = claim(0);
      await store.beginIdempotency(o.id, 'done', done);
      await store.completeIdempotency(o.id, 'done', done.owner, { fingerprint: 'f', response: answer });
      const flying = claim(0, id(), 10);
      await store.beginIdempotency(o.id, 'flying', flying);
      const reopened = await opened.reopen();
      assert.equal(await reopened.beginIdempotency(o.id, 'done', claim(1)), { state: 'done', fingerprint: 'f', response: answer });
      assert.equal(await reopened.beginIdempotency(o.id, 'flying', claim(1)), { state: 'in-flight', leaseUntil: flying.leaseUntil });
    });
  });
}
