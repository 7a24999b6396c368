// Store conformance: files, jobs (staging, finishing with a charge and an output), and the credit ledger.
import * as assert from 'uvu/assert';
import { area, at, bulkJob, file, ids, job, ledgerEntry, org, rejects, twoOrgs, type OpenStore } from './store-conformance-records.js';

export function defineJobConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'files', open, (it) => {
    it('a file reads back for its organization only', async (store) => {
      const [a, b] = [org(), org()];
      const f = file(a.id);
      await store.createFile(f);
      assert.equal(await store.getFile(a.id, f.id), f);
      assert.is(await store.getFile(b.id, f.id), undefined);
      assert.is(await store.getFile(a.id, 'no-such-file'), undefined);
    });

    it('a deleted file reads as undefined, and deleting an unknown file does nothing', async (store) => {
      const o = org();
      const [f, kept] = [file(o.id), file(o.id)];
      await store.createFile(f);
      await store.createFile(kept);
      await store.deleteFile(f.id);
      await store.deleteFile('no-such-file');
      assert.is(await store.getFile(o.id, f.id), undefined);
      assert.equal(await store.getFile(o.id, kept.id), kept);
    });

    it('lists the files of every organization that expire at or before the instant', async (store) => {
      const [a, b] = [org(), org()];
      const [early, exact, late, otherOrg] = [file(a.id, { expiresAt: at(1) }), file(a.id, { expiresAt: at(5) }), file(a.id, { expiresAt: at(6) }), file(b.id, { expiresAt: at(2) })];
      for (const f of [early, exact, late, otherOrg]) await store.createFile(f);
      const expired = await store.listFilesExpiredBy(at(5));
      assert.equal(ids(expired), ids([early, exact, otherOrg]));
      assert.equal(expired.find((f) => f.id === exact.id), exact);
    });
  });

  area(suiteName, 'jobs', open, (it) => {
    it('a created job reads back scoped to its organization, and by id alone', async (store) => {
      const [a, b] = [org(), org()];
      await store.createOrganization(a);
      const j = job(a.id, { webhook: { webhookUrl: 'https://example.com/hook' }, bulk: { id: 'bulk-1', index: 2 }, warnings: [{ path: '/x', message: 'm', code: 'C' }] });
      await store.createJob(j);
      assert.equal(await store.getJob(a.id, j.id), j);
      assert.is(await store.getJob(b.id, j.id), undefined);
      assert.equal(await store.getJobById(j.id), j);
      assert.is(await store.getJobById('no-such-job'), undefined);
    });

    it('a staged job is visible and counted once stageJob resolves, and durable resolves', async (store) => {
      const o = org();
      await store.createOrganization(o);
      const j = job(o.id, { estimatedCredits: 7 });
      const { durable } = await store.stageJob(j);
      assert.equal(await store.getJob(o.id, j.id), j);
      assert.is(await store.outstandingEstimate(o.id), 7);
      await durable;
      assert.equal(await store.getJobById(j.id), j);
    });

    it('updateJob returns the patched record and later reads see it; an unknown job rejects', async (store) => {
      const o = org();
      const j = job(o.id);
      await store.createJob(j);
      const patched = await store.updateJob(j.id, { status: 'PROCESSING', startedAt: at(1), attempts: 1, progress: 40 });
      const expected = { ...j, status: 'PROCESSING' as const, startedAt: at(1), attempts: 1, progress: 40 };
      assert.equal(patched, expected);
      assert.equal(await store.getJob(o.id, j.id), expected);
      await rejects(() => store.updateJob('no-such-job', { progress: 1 }));
    });

    it('claimJob takes a PENDING job once: the claim returns the patched record with the attempt counted, a second claim gets undefined', async (store) => {
      const o = org();
      const j = job(o.id, { attempts: 1 });
      await store.createJob(j);
      const started = { status: 'PROCESSING' as const, startedAt: at(1), progress: 10 };
      const claim = await store.claimJob(j.id, started, { owner: 'node-a', ms: 30_000 });
      assert.ok(claim);
      await claim.durable;
      const expected = { ...j, ...started, attempts: 2 };
      assert.equal(claim.job, expected);
      assert.equal(await store.getJobById(j.id), expected);
      assert.is(await store.claimJob(j.id, started, { owner: 'node-b', ms: 30_000 }), undefined);
      assert.equal(await store.getJobById(j.id), expected, 'the second claim changed nothing');
    });

    it('a job changed after its claim finishes with the change kept (the finish works from the stored job)', async (store) => {
      const o = org();
      const j = job(o.id);
      await store.createJob(j);
      assert.ok(await store.claimJob(j.id, { status: 'PROCESSING', progress: 10 }, { owner: 'node-a', ms: 30_000 }));
      await store.updateJob(j.id, { progress: 55 });
      const done = await store.finishJob(j.id, { status: 'COMPLETED', completedAt: at(3) }, null);
      const expected = { ...j, status: 'COMPLETED' as const, progress: 55, attempts: 1, completedAt: at(3) };
      assert.equal(done, expected);
      assert.equal(await store.getJobById(j.id), expected);
    });

    it('claimJob leaves a job that is not PENDING, or unknown, alone', async (store) => {
      const o = org();
      const [processing, completed] = [job(o.id, { status: 'PROCESSING', attempts: 1 }), job(o.id, { status: 'COMPLETED', completedAt: at(2) })];
      for (const j of [processing, completed]) await store.createJob(j);
      for (const j of [processing, completed]) {
        assert.is(await store.claimJob(j.id, { status: 'PROCESSING', progress: 9 }), undefined);
        assert.equal(await store.getJobById(j.id), j);
      }
      assert.is(await store.claimJob('no-such-job', { status: 'PROCESSING' }), undefined);
    });

    it('of two claims made at once, exactly one gets the job', async (store) => {
      const o = org();
      const j = job(o.id);
      await store.createJob(j);
      const claims = await Promise.all(['node-a', 'node-b'].map((owner, i) => store.claimJob(j.id, { status: 'PROCESSING', progress: 10 + i }, { owner, ms: 30_000 })));
      const won = claims.filter((c) => c !== undefined);
      assert.is(won.length, 1);
      assert.equal(await store.getJobById(j.id), won[0]!.job);
    });

    it('finishJob with a charge writes the job, one ledger entry, the balance and the output file together', async (store) => {
      const o = org({ balance: 100 });
      await store.createOrganization(o);
      const j = job(o.id, { status: 'PROCESSING', estimatedCredits: 5 });
      await store.createJob(j);
      const out = file(o.id, { kind: 'OUTPUT', sourceAction: 'render.pdf', filename: 'out.pdf' });
      const charge = ledgerEntry(o.id, -5, j.id);
      const patch = { status: 'COMPLETED' as const, outputFileId: out.id, chargedCredits: 5, progress: 100, completedAt: at(2), result: { pages: 1 } };
      const finished = await store.finishJob(j.id, patch, charge, out);
      assert.equal(finished, { ...j, ...patch });
      assert.equal(await store.getJob(o.id, j.id), { ...j, ...patch });
      assert.equal(await store.getFile(o.id, out.id), out);
      assert.is((await store.getOrganization(o.id))?.balance, 95);
      assert.equal(await store.listLedger(o.id, 10), [{ ...charge, balanceAfter: 95 }]);
      assert.is(await store.outstandingEstimate(o.id), 0);
    });

    it('a finished job never moves again: a second finishJob rejects and charges nothing', async (store) => {
      const o = org({ balance: 10 });
      await store.createOrganization(o);
      const j = job(o.id);
      await store.createJob(j);
      await store.finishJob(j.id, { status: 'COMPLETED', completedAt: at(1) }, ledgerEntry(o.id, -3, j.id));
      await rejects(() => store.finishJob(j.id, { status: 'FAILED', completedAt: at(2) }, ledgerEntry(o.id, -3, j.id)));
      assert.is((await store.getJob(o.id, j.id))?.status, 'COMPLETED');
      assert.is((await store.getOrganization(o.id))?.balance, 7);
      assert.is((await store.listLedger(o.id, 10)).length, 1);
      await rejects(() => store.finishJob('no-such-job', { status: 'FAILED' }, null));
    });

    it('finishJob without a charge leaves the ledger and the balance alone', async (store) => {
      const o = org({ balance: 10 });
      await store.createOrganization(o);
      const j = job(o.id);
      await store.createJob(j);
      const finished = await store.finishJob(j.id, { status: 'FAILED', error: 'boom', errorCode: 'INTERNAL', completedAt: at(1) }, null);
      assert.is(finished.status, 'FAILED');
      assert.is(finished.error, 'boom');
      assert.is((await store.getOrganization(o.id))?.balance, 10);
      assert.equal(await store.listLedger(o.id, 10), []);
    });

    it('a finishJob whose charge cannot be written writes nothing: the job stays unfinished and the output file absent', async (store) => {
      const o = org();
      await store.createOrganization(o);
      const j = job(o.id);
      await store.createJob(j);
      const out = file(o.id, { kind: 'OUTPUT' });
      await rejects(() => store.finishJob(j.id, { status: 'COMPLETED', completedAt: at(1) }, ledgerEntry('no-such-org', -3, j.id), out));
      assert.equal(await store.getJob(o.id, j.id), j);
      assert.is(await store.getFile(o.id, out.id), undefined);
      assert.is(await store.outstandingEstimate(o.id), 3);
    });

    it('lists the jobs in the given statuses, oldest first', async (store) => {
      const o = org();
      const newer = job(o.id, { createdAt: at(3) });
      const older = job(o.id, { createdAt: at(1), status: 'PROCESSING' });
      const done = job(o.id, { createdAt: at(2), status: 'COMPLETED', completedAt: at(4) });
      for (const j of [newer, older, done]) await store.createJob(j);
      const unfinished = (await store.listJobsByStatus(['PENDING', 'PROCESSING'])).filter((j) => j.orgId === o.id);
      assert.equal(unfinished.map((j) => j.id), [older.id, newer.id]);
      assert.equal(unfinished[0], older);
      assert.equal((await store.listJobsByStatus(['COMPLETED'])).filter((j) => j.orgId === o.id).map((j) => j.id), [done.id]);
      assert.equal((await store.listJobsByStatus([])).filter((j) => j.orgId === o.id), []);
    });

    it('admitJob stages a job only when the balance covers its cost beyond the unfinished estimates and what is held', async (store) => {
      const o = org({ balance: 10 });
      await store.createOrganization(o);
      await store.createJob(job(o.id, { estimatedCredits: 4 }));
      const fits = job(o.id, { estimatedCredits: 5 });
      const admitted = await store.admitJob(fits, { cost: 5, held: 1 });
      assert.ok(admitted.admitted);
      await admitted.durable;
      assert.equal(await store.getJobById(fits.id), fits);
      const over = job(o.id, { estimatedCredits: 1 });
      assert.equal(await store.admitJob(over, { cost: 1, held: 1 }), { admitted: false, credit: { balance: 10, outstanding: 9 } });
      assert.is(await store.getJobById(over.id), undefined, 'a refused job is not written');
      assert.equal(await store.admitJob(job('no-such-org'), { cost: 0, held: 0 }), { admitted: false, credit: undefined });
    });

    it('admitBulkJob stages the bulk job and its jobs only when their cost together fits', async (store) => {
      const o = org({ balance: 6 });
      await store.createOrganization(o);
      const jobs = [job(o.id), job(o.id)];
      const refused = await store.admitBulkJob(bulkJob(o.id, jobs), jobs, { cost: 7, held: 0 });
      assert.equal(refused, { admitted: false, credit: { balance: 6, outstanding: 0 } });
      assert.is(await store.getJobById(jobs[0]!.id), undefined);
      const bulk = bulkJob(o.id, jobs);
      const admitted = await store.admitBulkJob(bulk, jobs, { cost: 6, held: 0 });
      assert.ok(admitted.admitted);
      assert.equal(await store.getBulkJob(o.id, bulk.id), bulk);
      assert.is(await store.outstandingEstimate(o.id), 6);
    });

    it('creditState reads the balance and the outstanding estimate together; undefined for an unknown organization', async (store) => {
      const [a] = await twoOrgs(store);
      await store.addLedgerEntry(ledgerEntry(a.id, 40));
      const org = await store.getOrganization(a.id);
      await store.createJob(job(a.id, { estimatedCredits: 3 }));
      await store.createJob(job(a.id, { estimatedCredits: 4, status: 'PROCESSING' }));
      assert.equal(await store.creditState(a.id), { balance: org!.balance, outstanding: 7 });
      assert.is(await store.creditState('no-such-org'), undefined);
    });

    it('outstandingEstimate sums the estimates of the organization\'s pending and processing jobs only', async (store) => {
      const [a, b] = await twoOrgs(store);
      assert.is(await store.outstandingEstimate(a.id), 0);
      const pending = job(a.id, { estimatedCredits: 2 });
      const processing = job(a.id, { estimatedCredits: 5, status: 'PROCESSING' });
      const done = job(a.id, { estimatedCredits: 11, status: 'COMPLETED', completedAt: at(1) });
      const otherOrg = job(b.id, { estimatedCredits: 13 });
      for (const j of [pending, processing, done, otherOrg]) await store.createJob(j);
      assert.is(await store.outstandingEstimate(a.id), 7);
      assert.is(await store.outstandingEstimate(b.id), 13);
      await store.updateJob(pending.id, { status: 'PROCESSING' });
      assert.is(await store.outstandingEstimate(a.id), 7, 'a job that starts is still unfinished');
      await store.finishJob(processing.id, { status: 'COMPLETED', completedAt: at(2) }, null);
      assert.is(await store.outstandingEstimate(a.id), 2);
      await store.finishJob(pending.id, { status: 'FAILED', completedAt: at(2) }, null);
      assert.is(await store.outstandingEstimate(a.id), 0);
    });

    it('deleteJobsFinishedBefore deletes the jobs completed strictly before the instant and counts them', async (store) => {
      const o = org();
      const old1 = job(o.id, { status: 'COMPLETED', completedAt: at(1) });
      const old2 = job(o.id, { status: 'FAILED', completedAt: at(2) });
      const atInstant = job(o.id, { status: 'COMPLETED', completedAt: at(3) });
      const unfinished = job(o.id, { status: 'PROCESSING' });
      for (const j of [old1, old2, atInstant, unfinished]) await store.createJob(j);
      assert.is(await store.deleteJobsFinishedBefore(at(3)), 2);
      assert.is(await store.getJobById(old1.id), undefined);
      assert.is(await store.getJobById(old2.id), undefined);
      assert.equal(await store.getJobById(atInstant.id), atInstant);
      assert.equal(await store.getJobById(unfinished.id), unfinished);
      assert.is(await store.deleteJobsFinishedBefore(at(3)), 0);
    });
  });

  area(suiteName, 'ledger', open, (it) => {
    it('each entry adds its amount to the balance and records the balance after it', async (store) => {
      const o = org({ balance: 20 });
      await store.createOrganization(o);
      const grant = ledgerEntry(o.id, 50);
      assert.equal(await store.addLedgerEntry(grant), { ...grant, balanceAfter: 70 });
      const charge = ledgerEntry(o.id, -80, 'job-1');
      assert.equal(await store.addLedgerEntry(charge), { ...charge, balanceAfter: -10 }, 'a balance may go below zero');
      assert.is((await store.getOrganization(o.id))?.balance, -10);
    });

    it('an entry for an unknown organization rejects', async (store) => {
      await rejects(() => store.addLedgerEntry(ledgerEntry('no-such-org', 5)));
    });

    it('lists an organization\'s entries newest written first, at most limit', async (store) => {
      const [a, b] = await twoOrgs(store);
      // One createdAt for all: the order is the order of writing, not a sort on the timestamp.
      const written = [];
      for (const amount of [1, 2, 3, 4]) {
        written.push(await store.addLedgerEntry(ledgerEntry(a.id, amount)));
        await store.addLedgerEntry(ledgerEntry(b.id, 100));
      }
      assert.equal(await store.listLedger(a.id, 10), [...written].reverse());
      assert.equal((await store.listLedger(a.id, 2)).map((e) => e.amount), [4, 3]);
      assert.equal((await store.listLedger(a.id, 10)).map((e) => e.balanceAfter), [10, 6, 3, 1]);
      assert.is((await store.listLedger(b.id, 10)).length, 4);
      assert.equal(await store.listLedger('no-such-org', 10), []);
    });
  });
}
