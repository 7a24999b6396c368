// The errors the client raises: QuireError for an HTTP problem answer (or a failed job), JobTimeoutError for a wait that ran out.
import type { components } from './schema.js';

/** An `application/problem+json` answer (RFC 9457) as Quire sends it (docs/errors.md). */
export type Problem = components['schemas']['Problem'];
/** One field of a 400 VALIDATION_FAILED answer. */
export type ProblemFieldError = NonNullable<Problem['errors']>[number];

/**
 * An answer that is not a success: `code` is Quire's error code (VALIDATION_FAILED, NOT_FOUND, …), `detail` the
 * human sentence, `errors` the fields of a validation failure, `problem` the whole body.
 */
export class QuireError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors: ProblemFieldError[];
  readonly requestId: string | null;
  readonly problem: Problem;

  constructor(problem: Problem) {
    const fields = problem.errors?.length ? ` (${problem.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : '';
    super(`${problem.code}: ${problem.detail}${fields}`);
    this.name = 'QuireError';
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.requestId = problem.requestId || null;
    this.problem = problem;
  }

  /** The error of a non-2xx response: its problem body, or one made from the status when the body is not one. */
  static async fromResponse(response: Response): Promise<QuireError> {
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (body && typeof body === 'object' && typeof (body as Problem).code === 'string') return new QuireError(body as Problem);
    return new QuireError({
      type: 'about:blank',
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      detail: `${response.url} answered HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
      code: `HTTP_${response.status}`,
      requestId: response.headers.get('x-request-id') ?? '',
    });
  }
}

/** A job that ended FAILED: `code` is the job's errorCode (or JOB_FAILED), `detail` its error, `job` its last view. */
export class JobFailedError extends QuireError {
  readonly job: unknown;

  constructor(jobId: string, error: string | null, errorCode: string | null, job: unknown) {
    super({ type: 'about:blank', title: 'Job failed', status: 0, detail: `job ${jobId} failed: ${error ?? 'no reason given'}`, code: errorCode ?? 'JOB_FAILED', requestId: '' });
    this.name = 'JobFailedError';
    this.job = job;
  }
}

/** waitForCompletion gave up: the job was still PENDING or PROCESSING when `timeoutMs` ran out. */
export class JobTimeoutError extends Error {
  readonly jobId: string;
  readonly lastStatus: string;

  constructor(jobId: string, lastStatus: string, timeoutMs: number) {
    super(`job ${jobId} is still ${lastStatus} after ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
    this.jobId = jobId;
    this.lastStatus = lastStatus;
  }
}
