// `?waitMs=` on job status endpoints: answer when the job finishes, or after waitMs, whichever is first.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../contracts/errors.js';
import { MAX_WAIT_MS } from '../kernel/job-waiter.js';
import type { JobRecord } from '../kernel/model.js';
import type { RouteContext } from './context.js';

export const WAIT_QUERY = {
  name: 'waitMs',
  description: `Wait up to this many milliseconds (0 to ${MAX_WAIT_MS}) for the job to finish before answering; the answer is the job's state then. Saves polling.`,
  schema: Type.Integer({ minimum: 0, maximum: MAX_WAIT_MS }),
};

function waitMsOf(ctx: RouteContext): number {
  const raw = ctx.query.get('waitMs');
  if (raw === null || raw === '') return 0;
  const ms = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(ms >= 0 && ms <= MAX_WAIT_MS)) {
    throw new HttpError('VALIDATION_FAILED', `waitMs must be a whole number of milliseconds from 0 to ${MAX_WAIT_MS}, not "${raw}".`, [
      { path: 'query.waitMs', message: `must be an integer from 0 to ${MAX_WAIT_MS}`, code: 'INVALID_FIELD' },
    ]);
  }
  return ms;
}

/**
 * The job as `read` finds it, after waiting as long as `?waitMs=` asks for a job that has not finished. `reuse` (see
 * JobWaiter.wait) answers with the record of a job that finished in this process instead of reading it again.
 */
export async function readJobWaiting<T extends Pick<JobRecord, 'status'>>(ctx: RouteContext, jobId: string, read: () => Promise<T>, reuse?: (finished: JobRecord) => T | undefined): Promise<T> {
  const ms = waitMsOf(ctx);
  if (!ms) return read();
  const gone = new AbortController();
  const onClose = () => gone.abort();
  ctx.res.once('close', onClose);
  try {
    return await ctx.kernel.waiter.wait(jobId, ms, read, gone.signal, reuse);
  } finally {
    ctx.res.off('close', onClose);
  }
}
