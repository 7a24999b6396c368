// The one table of error codes Quire answers with; docs/errors.md is kept equal to it by a test.

export interface ErrorDefinition {
  status: number;
  title: string;
  /** What a client should do about it; shown in docs/errors.md. */
  hint: string;
}

export const ERROR_TABLE = {
  VALIDATION_FAILED: { status: 400, title: 'Validation failed', hint: 'Fix the fields listed in `errors` (each has a JSON path) and send the request again.' },
  UNAUTHENTICATED: { status: 401, title: 'Unauthenticated', hint: 'Send an API key in `X-API-Key` (or a `mcp_at_` bearer token); a download link needs its `token`.' },
  WRONG_TOKEN_KIND: { status: 401, title: 'Wrong kind of token', hint: 'Only `mcp_at_` access tokens are accepted as bearer tokens; exchange resource tokens server-side first.' },
  FORBIDDEN: { status: 403, title: 'Forbidden', hint: 'The key\'s role does not allow this; use an owner or admin key.' },
  TEMPLATE_NOT_PRODUCTIVE: { status: 403, title: 'Template not productive', hint: 'Documents are created only from productive workspace templates: copy a catalog template with `POST /templates/{id}/copy`, or set `productive: true` on your template with `PATCH /templates/{id}`.' },
  NOT_FOUND: { status: 404, title: 'Not found', hint: 'The id is unknown, expired, or belongs to another organization.' },
  PLUGIN_DISABLED: { status: 404, title: 'Plugin disabled', hint: 'The operator disabled the plugin behind this route (in the Quire config, or at runtime through the operator API).' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed', hint: 'Use one of the methods listed in the `Allow` header.' },
  INSUFFICIENT_CREDITS: { status: 402, title: 'Insufficient credits', hint: 'The organization\'s balance does not cover the estimated cost; ask the operator for a credit grant.' },
  IMPORT_FAILED: { status: 422, title: 'Import failed', hint: 'The uploaded file could not be imported; `errors[0].code` says why (e.g. `DOCX_INVALID`, `DOCX_TOO_LARGE`) and `detail` how to fix it.' },
  CONFLICT: { status: 409, title: 'Conflict', hint: 'The request conflicts with what exists (a slug another resource has); `detail` says which and what to change.' },
  INVALID_TRANSITION: { status: 409, title: 'Invalid transition', hint: 'The resource cannot move to that status from its current one; `detail` names the moves allowed from where it is.' },
  IDEMPOTENCY_IN_FLIGHT: { status: 409, title: 'Idempotent request in flight', hint: 'A request with this `Idempotency-Key` is still being answered; retry after the seconds given in `Retry-After` to get its answer.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Idempotency key reused', hint: 'This `Idempotency-Key` was used within 24 h for another request (method, path, query or body differ); send a new key for a new request.' },
  VERSION_CONFLICT: { status: 412, title: 'Version conflict', hint: 'The resource changed since you read it (`If-Match` names an older version); read it again, reapply your change and send the new version in `If-Match`.' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large', hint: 'Send a smaller body or file; the limit is named in `detail`.' },
  PAGE_LIMIT_EXCEEDED: { status: 413, title: 'Page limit exceeded', hint: 'The job would process more pages than the organization\'s plan allows per job; select fewer pages or split the PDF (`detail` names the limit).' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type', hint: 'The file\'s content (not its name) is not a type this endpoint accepts; `detail` lists the accepted types.' },
  RATE_LIMITED: { status: 429, title: 'Too many requests', hint: 'Wait for the seconds given in `Retry-After`; `RateLimit-*` headers show the budget.' },
  SERVICE_BUSY: { status: 503, title: 'Service busy', hint: 'The plugin\'s job queue is full; retry after the seconds given in `Retry-After`.' },
  PLUGIN_UNAVAILABLE: { status: 503, title: 'Plugin unavailable', hint: 'A system component the plugin needs is missing on the server; `detail` names it.' },
  SHUTTING_DOWN: { status: 503, title: 'Shutting down', hint: 'The server is stopping; retry against another instance or after restart.' },
  INTERNAL: { status: 500, title: 'Internal error', hint: 'A bug in Quire; report the `requestId`.' },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export interface FieldError {
  path: string;
  message: string;
  code: string;
}

/** The first three errors as one sentence part (`path message; …; and 4 more (see errors)`), for a problem's detail. */
export function errorSummary(errors: FieldError[]): string {
  const shown = errors.slice(0, 3).map((e) => `${e.path} ${e.message}`);
  return errors.length > 3 ? `${shown.join('; ')}; and ${errors.length - 3} more (see errors)` : shown.join('; ');
}

/** An error that becomes an RFC 9457 problem response. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = ERROR_TABLE[code].status;
  }
}

/**
 * An error raised inside a job (in a worker or the runner). It crosses the thread boundary as
 * plain `{code, message, details}` and is rebuilt on the other side; it fails the job, never the request.
 */
export class JobError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'JobError';
  }

  toJSON(): SerializedError {
    return { code: this.code, message: this.message, details: this.details };
  }
}

export interface SerializedError {
  code: string;
  message: string;
  details?: unknown;
}

/** Job-level error codes the kernel itself produces (plugins declare their own in their manifest). */
export const KERNEL_JOB_ERRORS = {
  DEADLINE_EXCEEDED: 'The action took longer than its deadline and was stopped.',
  WORKER_CRASHED: 'The worker running the action crashed or ran out of memory.',
  INTERRUPTED: 'The server stopped while the job was running, too many times.',
  INPUT_MISSING: 'An input file of the job expired or was deleted before it ran.',
  INVALID_RESULT: 'The plugin returned a result that does not match its contract.',
  UNEXPECTED: 'The plugin failed with an error it did not declare.',
  PLUGIN_DISABLED: 'An operator disabled the plugin while the job waited to run.',
} as const;
