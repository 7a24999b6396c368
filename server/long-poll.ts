// Long polling: a status request may wait (`?waitMs=`) until its job finishes instead of asking again and again, and a
// render-creating POST may wait (`?wait=`, seconds) to answer with the finished job in one round trip.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../contracts/errors.js';
import { LONGEST_WAIT_MS, MAX_WAIT_MS } from '../kernel/job-waiter.js';
import type { JobRecord } from '../kernel/model.js';
import type { RouteContext } from './context.js';

export const WAIT_QUERY = {
  name: 'waitMs',
  description: `Wait up to this many milliseconds (0 to ${MAX_WAIT_MS}) for the job to finish before answering; the answer is the job's state then. Saves polling.`,
  schema: Type.Integer({ minimum: 0, maximum: MAX_WAIT_MS }),
};

/** Longest `?wait=` of a render-creating POST, in seconds. */
const MAX_CREATE_WAIT_SECONDS = LONGEST_WAIT_MS / 1000;

export const CREATE_WAIT_QUERY = {
  name: 'wait',
  description:
    `Wait up to this many seconds (0 to ${MAX_CREATE_WAIT_SECONDS}) for the job to finish: when it does, the answer is 200 with the finished job (the body of GET /render/{jobId}: ` +
    'COMPLETED with its downloadUrl, or FAILED with its error); otherwise 202 as without it. 0 (the default) answers at once.',
  schema: Type.Integer({ minimum: 0, maximum: MAX_CREATE_WAIT_SECONDS }),
};

/** A whole number from 0 to `max` in query parameter `name`, or 0 when it is absent; 400 naming `query.<name>` otherwise. */
function wholeQuery(ctx: RouteContext, name: string, max: number, unit: string): number {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return 0;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 0 && n <= max)) {
    throw new HttpError('VALIDATION_FAILED', `${name} must be a whole number of ${unit} from 0 to ${max}, not "${raw}".`, [
      { path: `query.${name}`, message: `must be an integer from 0 to ${max}`, code: 'INVALID_FIELD' },
    ]);
  }
  return n;
}

/** `?wait=` of a render-creating POST, in milliseconds (checked before the job is created). */
export function createWaitMsOf(ctx: RouteContext): number {
  return wholeQuery(ctx, 'wait', MAX_CREATE_WAIT_SECONDS, 'seconds') * 1000;
}

/**
 * The job as `read` finds it after waiting up to `ms` for it to finish (JobWaiter.wait); the wait ends early when the
 * client goes away. `reuse` answers with the record of a job that finished in this process instead of reading it again.
 */
export async function waitForJob<T extends Pick<JobRecord, 'status'>>(ctx: RouteContext, jobId: string, ms: number, read: () => Promise<T>, reuse?: (finished: JobRecord) => T | undefined): Promise<T> {
  const gone = new AbortController();
  const onClose = () => gone.abort();
  ctx.res.once('close', onClose);
  try {
    return await ctx.kernel.waiter.wait(jobId, ms, read, gone.signal, reuse);
  } finally {
    ctx.res.off('close', onClose);
  }
}

/**
 * The job as `read` finds it, after waiting as long as `?waitMs=` asks for a job that has not finished. `reuse` (see
 * JobWaiter.wait) answers with the record of a job that finished in this process instead of reading it again.
 */
export async function readJobWaiting<T extends Pick<JobRecord, 'status'>>(ctx: RouteContext, jobId: string, read: () => Promise<T>, reuse?: (finished: JobRecord) => T | undefined): Promise<T> {
  const ms = wholeQuery(ctx, 'waitMs', MAX_WAIT_MS, 'milliseconds');
  return ms ? waitForJob(ctx, jobId, ms, read, reuse) : read();
}
