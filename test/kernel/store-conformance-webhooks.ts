// Store conformance: webhook endpoints and deliveries — the fan-out in the write that finishes a job or a bulk job,
// claims under a lease, attempts with the endpoint's health, deletion with the endpoint, and the 30-day sweep.
import * as assert from 'uvu/assert';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../kernel/model.js';
import type { WebhookAttemptOutcome } from '../../kernel/store/store.js';
import { area, at, bulkJob, id, job, ledgerEntry, twoOrgs, type OpenStore } from './store-conformance-records.js';

const endpoint = (orgId: string, over: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  id: id(), orgId, url: 'https://hooks.example.com/q', events: [], description: null, enabled: true, disabledReason: null,
  secrets: [{ secret: `whsec_${id()}`, createdAt: at(0), expiresAt: null }], failingSince: null, version: 1, createdAt: at(0), updatedAt: at(0), ...over,
});

const ping = (ep: WebhookEndpointRecord, over: Partial<WebhookDeliveryRecord> = {}): WebhookDeliveryRecord => ({
  id: id(), orgId: ep.orgId, endpointId: ep.id, eventId: id(), event: 'ping', eventCreatedAt: at(1), subject: { kind: 'ping', id: ep.id },
  payload: { event: 'ping' }, status: 'PENDING', attempts: 0, nextAttemptAt: at(1), lease: null, attemptsLog: [], createdAt: at(1), updatedAt: at(1), redeliveryOf: null, ...over,
});

const failed = (attempt: number, when: string, next: string | null): WebhookAttemptOutcome => ({
  patch: { status: next ? 'PENDING' : 'FAILED', attempts: attempt, nextAttemptAt: next, updatedAt: when },
  entry: { attempt, at: when, status: 500, durationMs: 3, response: 'no', error: 'receiver answered HTTP 500' },
  health: { ok: false, disableAfterMs: 60 * 60_000, reason: 'receiver answered HTTP 500' },
});

const lease = (owner: string) => ({ owner, ms: 60_000 });

export function defineWebhookConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'webhooks', open, (it) => {
    it('endpoints read back for their organization only, newest first by pages, and change by version', async (store) => {
      const [a, b] = await twoOrgs(store);
      const older = endpoint(a.id, { createdAt: at(1), events: ['job.failed'] });
      const newer = endpoint(a.id, { createdAt: at(2) });
      for (const e of [older, newer, endpoint(b.id)]) await store.createWebhookEndpoint(e);
      assert.equal(await store.getWebhookEndpoint(a.id, older.id), older);
      assert.is(await store.getWebhookEndpoint(b.id, older.id), undefined);
      assert.equal(await store.listWebhookEndpoints(a.id, 10), [newer, older]);
      assert.equal(await store.listWebhookEndpoints(a.id, 10, { createdAt: newer.createdAt, id: newer.id }), [older]);
      const changed = await store.updateWebhookEndpoint(a.id, older.id, (current) => ({ description: `was v${current.version}` }), at(3), 1);
      assert.equal(changed, { ...older, description: 'was v1', version: 2, updatedAt: at(3) });
      assert.is(await store.updateWebhookEndpoint(a.id, older.id, () => ({ enabled: false }), at(4), 1), 'conflict');
      assert.is(await store.updateWebhookEndpoint(b.id, older.id, () => ({ enabled: false }), at(4)), undefined);
      assert.equal(await store.getWebhookEndpoint(a.id, older.id), changed);
    });

    it("finishJob queues one PENDING delivery per enabled, matching endpoint of the job's organization, in its write", async (store) => {
      const [a, b] = await twoOrgs(store);
      await store.addLedgerEntry(ledgerEntry(a.id, 10));
      const every = endpoint(a.id);
      const failures = endpoint(a.id, { events: ['job.failed'] });
      const off = endpoint(a.id, { enabled: false });
      const others = endpoint(b.id);
      for (const e of [every, failures, off, others]) await store.createWebhookEndpoint(e);
      const j = job(a.id);
      await store.createJob(j);
      const event = { id: id(), event: 'job.completed' as const, createdAt: at(2) };
      await store.finishJob(j.id, { status: 'COMPLETED', completedAt: at(2) }, ledgerEntry(a.id, -3, j.id), undefined, event);
      const queued = await store.listWebhookDeliveries(a.id, every.id, 10);
      assert.is(queued.length, 1);
      assert.equal({ ...queued[0]!, id: 'x' }, {
        id: 'x', orgId: a.id, endpointId: every.id, eventId: event.id, event: 'job.completed', eventCreatedAt: at(2), subject: { kind: 'job', id: j.id },
        status: 'PENDING', attempts: 0, nextAttemptAt: at(2), lease: null, attemptsLog: [], createdAt: at(2), updatedAt: at(2), redeliveryOf: null,
      });
      for (const e of [failures, off]) assert.equal(await store.listWebhookDeliveries(a.id, e.id, 10), []);
      assert.equal(await store.listWebhookDeliveries(b.id, others.id, 10), []);
      // Without an event, or when the finish is refused, nothing is queued.
      const quiet = job(a.id);
      await store.createJob(quiet);
      await store.finishJob(quiet.id, { status: 'FAILED', completedAt: at(3) }, null);
      let refused = false;
      await store.finishJob(quiet.id, { status: 'FAILED', completedAt: at(4) }, null, undefined, { id: id(), event: 'job.failed', createdAt: at(4) }).catch(() => (refused = true));
      assert.ok(refused);
      assert.is((await store.listWebhookDeliveries(a.id, failures.id, 10)).length, 0);
      assert.is((await store.listWebhookDeliveries(a.id, every.id, 10)).length, 1);
    });

    it('finishBulkJob (and stageBulkJob of a bulk job failed at creation) queues the bulk event in its write', async (store) => {
      const [a] = await twoOrgs(store);
      const ep = endpoint(a.id);
      await store.createWebhookEndpoint(ep);
      const items = [job(a.id)];
      const bulk = bulkJob(a.id, items);
      await (await store.stageBulkJob(bulk, items)).durable;
      const event = { id: id(), event: 'job.failed' as const, createdAt: at(5) };
      await store.finishBulkJob(bulk.id, { status: 'FAILED', completedAt: at(5) }, undefined, event);
      const [d] = await store.listWebhookDeliveries(a.id, ep.id, 10);
      assert.equal(d?.subject, { kind: 'bulk', id: bulk.id });
      assert.is(d?.eventId, event.id);
      assert.is(d?.event, 'job.failed');
      // A bulk job failed at creation: staged with its event, in one write.
      const born = bulkJob(a.id, [], { status: 'FAILED', completedAt: at(6) });
      const early = { id: id(), event: 'job.failed' as const, createdAt: at(6) };
      await (await store.stageBulkJob(born, [], early)).durable;
      const [newest] = await store.listWebhookDeliveries(a.id, ep.id, 1);
      assert.equal([newest?.eventId, newest?.subject], [early.id, { kind: 'bulk', id: born.id }]);
    });

    it('a due delivery is claimed by one owner until its lease lapses; an attempt by the holder is written with the health', async (store) => {
      const [a] = await twoOrgs(store);
      const ep = endpoint(a.id);
      await store.createWebhookEndpoint(ep);
      const due = ping(ep);
      const later = ping(ep, { nextAttemptAt: at(30), createdAt: at(2) });
      await store.createWebhookDelivery(due);
      await store.createWebhookDelivery(later);
      const [one, two] = await Promise.all([store.claimWebhookDeliveries(at(2), lease('n1'), 5), store.claimWebhookDeliveries(at(2), lease('n2'), 5)]);
      assert.equal([...one!, ...two!].map((d) => d.id), [due.id], 'one claim gets it, the other nothing; the later one is not due');
      const holder = one!.length ? 'n1' : 'n2';
      assert.is([...one!, ...two!][0]!.lease?.owner, holder);
      assert.equal(await store.claimWebhookDeliveries(at(2), lease('n3'), 5), [], 'held');
      assert.is(await store.recordWebhookAttempt(due.id, 'n3', failed(1, at(2), at(3))), undefined, 'not the holder');
      const written = await store.recordWebhookAttempt(due.id, holder, failed(1, at(2), at(3)));
      assert.is(written?.status, 'PENDING');
      assert.is(written?.attempts, 1);
      assert.is(written?.attemptsLog.length, 1);
      assert.is((await store.getWebhookEndpoint(a.id, ep.id))?.failingSince, at(2), 'the first failure sets failingSince');
      assert.is((await store.getWebhookEndpoint(a.id, ep.id))?.version, 1, 'health is no version');
      // Lapsed: a lease taken at at(3) for 60 s is free again at at(5).
      assert.is((await store.claimWebhookDeliveries(at(3), lease('n1'), 5)).length, 1);
      const retaken = await store.claimWebhookDeliveries(at(5), lease('n2'), 5);
      assert.equal(retaken.map((d) => d.id), [due.id]);
      const ok: WebhookAttemptOutcome = { patch: { status: 'DELIVERED', attempts: 2, nextAttemptAt: null, updatedAt: at(5) }, entry: { attempt: 2, at: at(5), status: 200, durationMs: 2, response: 'ok', error: null }, health: { ok: true } };
      const delivered = await store.recordWebhookAttempt(due.id, 'n2', ok);
      assert.equal(delivered?.attemptsLog.map((e) => e.status), [500, 200]);
      assert.equal(await store.getWebhookDelivery(a.id, due.id), { ...delivered, lease: null });
      assert.is((await store.getWebhookEndpoint(a.id, ep.id))?.failingSince, null, 'a success clears failingSince');
      assert.equal(await store.claimWebhookDeliveries(at(6), lease('n1'), 5), [], 'a delivered one is never claimed again');
    });

    it('a failure past disableAfterMs disables the endpoint with a reason and ends the delivery FAILED', async (store) => {
      const [a] = await twoOrgs(store);
      const ep = endpoint(a.id, { failingSince: at(0) });
      await store.createWebhookEndpoint(ep);
      const d = ping(ep);
      await store.createWebhookDelivery(d);
      await store.claimWebhookDeliveries(at(2), lease('n1'), 1);
      const written = await store.recordWebhookAttempt(d.id, 'n1', { ...failed(1, at(90), at(91)) });
      assert.is(written?.status, 'FAILED');
      assert.is(written?.nextAttemptAt, null);
      const now = await store.getWebhookEndpoint(a.id, ep.id);
      assert.is(now?.enabled, false);
      assert.is(now?.disabledReason, `failing since ${at(0)}: last error receiver answered HTTP 500`);
    });

    it('deleting an endpoint deletes its deliveries in the same write; the sweep deletes deliveries older than an instant', async (store) => {
      const [a] = await twoOrgs(store);
      const gone = endpoint(a.id);
      const kept = endpoint(a.id);
      for (const e of [gone, kept]) await store.createWebhookEndpoint(e);
      const d1 = ping(gone);
      const old = ping(kept, { createdAt: at(1) });
      const recent = ping(kept, { createdAt: at(10) });
      for (const d of [d1, old, recent]) await store.createWebhookDelivery(d);
      assert.is(await store.deleteWebhookEndpoint(a.id, gone.id), true);
      assert.is(await store.deleteWebhookEndpoint(a.id, gone.id), false);
      assert.is(await store.getWebhookDelivery(a.id, d1.id), undefined);
      assert.is(await store.deleteWebhookDeliveriesBefore(at(5)), 1);
      assert.equal((await store.listWebhookDeliveries(a.id, kept.id, 10)).map((d) => d.id), [recent.id]);
      assert.is(await store.getWebhookDelivery('another-org', recent.id), undefined);
    });
  });
}
