// Tools job status: polling endpoint of every file tool.
import { HttpError } from '../../contracts/errors.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { toolsJobView } from '../views.js';
import { API_PREFIX } from '../paths.js';
import { ToolsJobSchema } from '../../contracts/common.js';
import { readJobWaiting, WAIT_QUERY } from '../long-poll.js';

async function getJob(ctx: RouteContext): Promise<void> {
  const id = ctx.params.jobId!;
  const read = async () => {
    const job = /^[0-9a-f-]{36}$/.test(id) ? await ctx.kernel.store.getJob(ctx.principal!.orgId, id) : undefined;
    if (!job || job.kind === 'render') throw new HttpError('NOT_FOUND', `Job ${id} was not found (unknown, expired, or another organization's).`);
    return job;
  };
  // The first read found this organization's job: the record of its finish is the same job, read again.
  sendJson(ctx.res, 200, toolsJobView(ctx.services.links, await readJobWaiting(ctx, id, read, (finished) => finished)));
}

export function jobRoutes(): RouteDefinition[] {
  return [{ method: 'GET', path: `${API_PREFIX}/tools/jobs/:jobId`, auth: 'key', handler: getJob, doc: { tag: 'Jobs', summary: 'A tools job (poll until COMPLETED or FAILED, or wait with waitMs)', query: [WAIT_QUERY], responses: { 200: ToolsJobSchema } } }];
}
