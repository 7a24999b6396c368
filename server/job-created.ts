// The 202 answer of each job-creating route, one function per kind of job (render, tools, bulk render), or a render's
// 200 when it finished within `?wait=`; an idempotent retry that finds the job its crashed first attempt admitted
// answers with the same functions (server/idempotency.ts).
import type { RouteContext } from './context.js';
import type { BulkJobRecord, JobRecord } from '../kernel/model.js';
import type { IdempotentJob } from '../kernel/store/store.js';
import { sendJson } from './problem.js';
import { API_PREFIX } from './paths.js';
import { renderJobView, toolsJobView } from './views.js';
import { waitForJob } from './long-poll.js';

/**
 * 202 with the render job and its status URL in Location; with `waitMs` (the POST's `?wait=`), 200 with the finished
 * job, as GET /render/{jobId} shows it, when it finishes within the wait (202 with its state then, otherwise).
 */
export async function sendRenderCreated(ctx: RouteContext, job: JobRecord, waitMs = 0): Promise<void> {
  ctx.log.info({ jobId: job.id, action: job.action, warnings: job.warnings?.length ?? 0 }, 'render job created');
  const location = { Location: `${API_PREFIX}/render/${job.id}` };
  let now = job;
  if (waitMs > 0) {
    // The job was just created for this organization: the record of its finish is the job, and a read finds it (or, swept already, the creation's).
    now = await waitForJob(ctx, job.id, waitMs, async () => (await ctx.kernel.store.getJob(job.orgId, job.id)) ?? job, (finished) => finished);
  }
  const finished = now.status === 'COMPLETED' || now.status === 'FAILED';
  sendJson(ctx.res, finished && waitMs > 0 ? 200 : 202, renderJobView(ctx.services.links, now), location);
}

/** 202 with the tools job (a tools route's, Lens's) and its status URL in Location. */
export function sendToolsJobCreated(ctx: RouteContext, job: JobRecord): void {
  ctx.log.info({ jobId: job.id, action: job.action }, 'job created');
  sendJson(ctx.res, 202, toolsJobView(ctx.services.links, job), { Location: `${API_PREFIX}/tools/jobs/${job.id}` });
}

/** 202 with the bulk render job and its status URL in Location. */
export async function sendBulkCreated(ctx: RouteContext, bulk: BulkJobRecord): Promise<void> {
  ctx.log.info({ bulkJobId: bulk.id, items: bulk.items.length }, 'bulk render created');
  sendJson(ctx.res, 202, await ctx.services.bulk.view(bulk), { Location: `${API_PREFIX}/bulk-render/${bulk.id}` });
}

/** The creation answer of a job found by its Idempotency-Key, as the route that admitted it answers (its current status). */
export function sendJobCreated(ctx: RouteContext, found: IdempotentJob): Promise<void> | void {
  if (found.kind === 'bulk') return sendBulkCreated(ctx, found.bulk);
  return found.job.kind === 'render' ? sendRenderCreated(ctx, found.job) : sendToolsJobCreated(ctx, found.job);
}
