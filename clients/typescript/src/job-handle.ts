// What render and tools job handles share: the last view of the job and waitForCompletion over its long-poll.
import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import { JobFailedError } from './errors.js';
import { isFinished, waitUntilFinished, type WaitOptions } from './waiting.js';

export abstract class JobHandle<View extends { status: string; error: string | null; errorCode: string | null }> {
  protected readonly api: Client<paths>;
  /** The job as last seen (the creation answer, then each answer of refresh or waitForCompletion). */
  view: View;

  constructor(api: Client<paths>, view: View) {
    this.api = api;
    this.view = view;
  }

  abstract get id(): string;

  /** GET the job once (the server holds the request up to `waitMs` when given, answering as soon as it finishes). */
  abstract refresh(waitMs?: number, signal?: AbortSignal): Promise<View>;

  get status(): View['status'] {
    return this.view.status;
  }

  /** Waits until the job is COMPLETED (its view) or FAILED (a JobFailedError with the job's error and errorCode). */
  async waitForCompletion(options: WaitOptions = {}): Promise<View> {
    // A job created with ?wait= may have finished already: then there is nothing to ask.
    const view = isFinished(this.view.status) ? this.view : await waitUntilFinished(this.id, (waitMs, signal) => this.refresh(waitMs, signal), options);
    if (view.status === 'FAILED') throw new JobFailedError(this.id, view.error, view.errorCode, view);
    return view;
  }
}
