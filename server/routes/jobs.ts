// Jobs: the organization's job list (render, tools and bulk render jobs together) and the tools job status every file tool polls.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../contracts/errors.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { toolsJobView } from '../views.js';
import { API_PREFIX } from '../paths.js';
import { ToolsJobSchema } from '../../contracts/common.js';
import { JOB_LIST_KINDS, JOB_LIST_STATUSES, JobListSchema } from '../../contracts/job-list.js';
import { listJobs, type JobListQuery } from '../../services/job-list.js';
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

/** `?name=a,b` (or the parameter repeated): each value one of `allowed`; none given: every one. */
function listQuery<T extends string>(ctx: RouteContext, name: string, allowed: readonly T[]): T[] {
  const values = ctx.query.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const bad = values.find((v) => !allowed.includes(v as T));
  if (bad !== undefined) throw new HttpError('VALIDATION_FAILED', `${name} must be one of ${allowed.join(', ')} (or several, comma-separated), not "${bad}".`, [{ path: `query.${name}`, message: `must be one of ${allowed.join(', ')}`, code: 'INVALID_FIELD' }]);
  return [...new Set(values as T[])];
}

function jobListQuery(ctx: RouteContext): JobListQuery {
  const raw = ctx.query.get('limit');
  const limit = raw === null ? 20 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new HttpError('VALIDATION_FAILED', `limit must be an integer from 1 to 100, not "${raw}".`, [{ path: 'query.limit', message: 'must be an integer from 1 to 100', code: 'INVALID_FIELD' }]);
  }
  return { limit, cursor: ctx.query.get('cursor'), kinds: listQuery(ctx, 'kind', JOB_LIST_KINDS), statuses: listQuery(ctx, 'status', JOB_LIST_STATUSES) };
}

export function jobRoutes(): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: `${API_PREFIX}/jobs`,
      auth: 'key',
      preValidation: jobListQuery,
      handler: async (ctx, query: JobListQuery) => sendJson(ctx.res, 200, await listJobs(ctx.kernel.store, ctx.services.links, ctx.services.bulk, ctx.principal!.orgId, query)),
      doc: {
        tag: 'Jobs',
        summary: "The organization's jobs: render, tools and bulk render, newest first (paged)",
        description:
          'Each item names the path to poll (`statusPath`) and, once COMPLETED with an output, a signed `downloadUrl`. A bulk job is one item with its `items` counts; its items\' render jobs are not listed one by one (GET /bulk-render/{id} has them). ' +
          'A finished job stays listed for QUIRE_FILE_TTL_SECONDS (24 h) after it ends, as GET on it answers. With a `status` filter a page may hold fewer than `limit` items and still have a `nextCursor`: follow it until it is null.',
        query: [
          { name: 'status', description: `Only jobs in these states: ${JOB_LIST_STATUSES.join(', ')} (comma-separated for several).`, schema: Type.String() },
          { name: 'kind', description: `Only these kinds: ${JOB_LIST_KINDS.join(', ')} (comma-separated for several).`, schema: Type.String() },
          { name: 'limit', description: 'Items per page, 1 to 100 (default 20).', schema: Type.Integer({ minimum: 1, maximum: 100 }) },
          { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: Type.String() },
        ],
        responses: { 200: JobListSchema },
      },
    },
    { method: 'GET', path: `${API_PREFIX}/tools/jobs/:jobId`, auth: 'key', handler: getJob, doc: { tag: 'Jobs', summary: 'A tools job (poll until COMPLETED or FAILED, or wait with waitMs)', query: [WAIT_QUERY], responses: { 200: ToolsJobSchema } } },
  ];
}
