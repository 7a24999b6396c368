// The long-poll loop of every job handle: GET the job with ?waitMs= until it finishes, the time runs out or the signal aborts.
import { JobTimeoutError } from './errors.js';

/** The server waits at most this long in one request (the waitMs maximum of the job routes). */
export const MAX_WAIT_MS = 30_000;
/** How long waitForCompletion waits by default before a JobTimeoutError. */
export const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export interface WaitOptions {
  /** Give up after this many milliseconds (default 5 minutes) with a JobTimeoutError. */
  timeoutMs?: number;
  /** Aborts the wait (the request under way included). */
  signal?: AbortSignal;
}

export function isFinished(status: string): boolean {
  return status === 'COMPLETED' || status === 'FAILED';
}

/**
 * Asks `fetchView` for the job, letting the server hold each request up to `stepMs` (the long-poll), until the job is
 * COMPLETED or FAILED; `onView` sees every answer (progress).
 */
export async function waitUntilFinished<T extends { status: string }>(
  jobId: string,
  fetchView: (waitMs: number, signal?: AbortSignal) => Promise<T>,
  options: WaitOptions & { stepMs?: number; onView?: (view: T) => void } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const step = Math.min(options.stepMs ?? MAX_WAIT_MS, MAX_WAIT_MS);
  for (;;) {
    options.signal?.throwIfAborted();
    const waitMs = Math.max(0, Math.min(step, deadline - Date.now()));
    const view = await fetchView(waitMs, options.signal);
    options.onView?.(view);
    if (isFinished(view.status)) return view;
    if (Date.now() >= deadline) throw new JobTimeoutError(jobId, view.status, timeoutMs);
  }
}
