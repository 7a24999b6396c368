// Store conformance for the job list of GET /jobs (issue 27): an organization's render, tools and bulk jobs, newest
// first, filtered by kind and status and paged, never a bulk job's items nor another organization's jobs; run against
// the embedded store and PostgreSQL.
import * as assert from 'uvu/assert';
import type { Store, JobListRow } from '../../kernel/store/store.js';
import { startPostgres } from '../helpers/postgres.js';
import { area, at, bulkJob, job, twoOrgs, type OpenStore } from './store-conformance-records.js';
import { lowdbStores, pgStores } from './store-openers.js';

const idOf = (r: JobListRow) => (r.kind === 'job' ? r.job.id : r.bulk.id);
const keyOf = (r: JobListRow) => (r.kind === 'job' ? { createdAt: r.job.createdAt, id: r.job.id } : { createdAt: r.bulk.createdAt, id: r.bulk.id });

/** One organization's mix: a tools job written before jobs had a kind, a render job, a bulk job with two items, a failed tools job. */
async function mix(store: Store, orgId: string) {
  const { kind: _k, ...untyped } = job(orgId, { pluginId: 'pdf-merge', action: 'pdf.merge', createdAt: at(1) });
  const oldTools = untyped;
  const render = job(orgId, { createdAt: at(2) });
  const items = [job(orgId, { createdAt: at(3) }), job(orgId, { createdAt: at(3) })];
  const bulk = bulkJob(orgId, items, { createdAt: at(3) });
  items.forEach((j, index) => (j.bulk = { id: bulk.id, index }));
  const failed = job(orgId, { kind: 'tools', pluginId: 'pdf-split', action: 'pdf.split', createdAt: at(4) });
  await store.createJob(oldTools);
  await store.createJob(render);
  await (await store.stageBulkJob(bulk, items)).durable;
  await store.createJob(failed);
  await store.finishJob(failed.id, { status: 'FAILED', error: 'broken input', errorCode: 'INVALID_PDF', completedAt: at(5) }, null);
  await store.finishJob(render.id, { status: 'COMPLETED', completedAt: at(5) }, null);
  return { oldTools, render, bulk, items, failed };
}

function defineJobListConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'job list', open, (it) => {
    it('lists the organization\'s render, tools and bulk jobs newest first, without bulk items or another organization\'s jobs', async (store) => {
      const [a, b] = await twoOrgs(store);
      const m = await mix(store, a.id);
      await store.createJob(job(b.id, { createdAt: at(9) }));
      const rows = await store.listJobs(a.id, {}, 10);
      assert.equal(rows.map(idOf), [m.failed.id, m.bulk.id, m.render.id, m.oldTools.id]);
      assert.equal(rows.map((r) => r.kind), ['job', 'bulk', 'job', 'job']);
      const failed = rows[0]!.kind === 'job' ? rows[0]!.job : undefined;
      assert.equal([failed?.status, failed?.errorCode, failed?.error], ['FAILED', 'INVALID_PDF', 'broken input']);
      assert.equal(rows[1]!.kind === 'bulk' ? rows[1]!.bulk : undefined, m.bulk);
      assert.is(rows[3]!.kind === 'job' ? rows[3]!.job.kind : 'bulk', undefined, 'a job stored without a kind reads back as stored');
      assert.equal((await store.listJobs(b.id, {}, 10)).length, 1);
      assert.equal(await store.listJobs('no-such-org', {}, 10), []);
    });

    it('keeps the kinds and statuses a filter names (a job without a kind is a tools job)', async (store) => {
      const [a] = await twoOrgs(store);
      const m = await mix(store, a.id);
      const list = async (kinds?: Array<'render' | 'tools' | 'bulk'>, statuses?: Array<'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED'>) => (await store.listJobs(a.id, { kinds, statuses }, 10)).map(idOf);
      assert.equal(await list(['tools']), [m.failed.id, m.oldTools.id]);
      assert.equal(await list(['render']), [m.render.id]);
      assert.equal(await list(['bulk']), [m.bulk.id]);
      assert.equal(await list(['render', 'bulk']), [m.bulk.id, m.render.id]);
      assert.equal(await list(undefined, ['PENDING']), [m.bulk.id, m.oldTools.id]);
      assert.equal(await list(undefined, ['COMPLETED', 'FAILED']), [m.failed.id, m.render.id]);
      assert.equal(await list(['tools'], ['PENDING']), [m.oldTools.id]);
      assert.equal(await list(['bulk'], ['FAILED']), []);
      assert.equal(await list([], []), [m.failed.id, m.bulk.id, m.render.id, m.oldTools.id], 'empty lists filter nothing');
    });

    it('pages after a key in the same order, ties of createdAt broken by id, across jobs and bulk jobs', async (store) => {
      const [a] = await twoOrgs(store);
      // Seven records at one instant and two later: the order is createdAt, then id, both descending.
      const same = [...Array.from({ length: 5 }, () => job(a.id, { createdAt: at(1) })), bulkJob(a.id, [], { createdAt: at(1) }), bulkJob(a.id, [], { createdAt: at(1) })];
      for (const r of same) {
        if ('items' in r) await (await store.stageBulkJob(r, [])).durable;
        else await store.createJob(r);
      }
      const late = [job(a.id, { createdAt: at(2) }), job(a.id, { kind: 'tools', createdAt: at(3) })];
      for (const j of late) await store.createJob(j);
      const all = (await store.listJobs(a.id, {}, 100)).map(idOf);
      const ties = same.map((r) => r.id).sort((x, y) => (x < y ? 1 : x > y ? -1 : 0));
      assert.equal(all, [late[1]!.id, late[0]!.id, ...ties]);
      const pages: string[][] = [];
      let after;
      for (;;) {
        const rows = await store.listJobs(a.id, {}, 2, after);
        if (!rows.length) break;
        pages.push(rows.map(idOf));
        after = keyOf(rows[rows.length - 1]!);
      }
      assert.equal(pages.flat(), all);
      assert.equal(pages.map((p) => p.length), [2, 2, 2, 2, 1]);
    });

    it('a finished bulk job and a job moved to PROCESSING are listed with their new status', async (store) => {
      const [a] = await twoOrgs(store);
      const m = await mix(store, a.id);
      await store.claimJob(m.oldTools.id, { status: 'PROCESSING', startedAt: at(6) });
      await store.finishBulkJob(m.bulk.id, { status: 'COMPLETED', completedItems: 2, failedItems: 0, completedAt: at(7) });
      const rows = await store.listJobs(a.id, { statuses: ['PROCESSING', 'COMPLETED'] }, 10);
      assert.equal(rows.map(idOf), [m.bulk.id, m.render.id, m.oldTools.id]);
      assert.equal(rows[0]!.kind === 'bulk' && [rows[0]!.bulk.status, rows[0]!.bulk.completedItems], ['COMPLETED', 2]);
    });
  });
}

// Started before any suite is registered (uvu runs the registered suites at the first pause); the harness reaps it
// when the process exits, after the last suite.
const cluster = await startPostgres();

defineJobListConformance('LowdbStore', lowdbStores('quire-store-job-list-'));
defineJobListConformance('PgStore', pgStores(cluster, 'job_list_'));
