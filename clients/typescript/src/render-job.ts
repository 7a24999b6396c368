// A render job handle: its last view, waitForCompletion (long-poll on GET /render/{jobId}?waitMs=) and download.
import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import type { RenderJobView } from './types.js';
import { JobFailedError } from './errors.js';
import { waitUntilFinished, type WaitOptions } from './waiting.js';

export class RenderJob {
  readonly #api: Client<paths>;
  /** The job as last seen (the creation answer, then each answer of refresh or waitForCompletion). */
  view: RenderJobView;

  constructor(api: Client<paths>, view: RenderJobView) {
    this.#api = api;
    this.view = view;
  }

  get id(): string {
    return this.view.jobId;
  }

  get status(): RenderJobView['status'] {
    return this.view.status;
  }

  /** GET /render/{jobId} once (the server holds it up to `waitMs` when given). */
  async refresh(waitMs?: number, signal?: AbortSignal): Promise<RenderJobView> {
    const { data } = await this.#api.GET('/api/v1/dev/render/{jobId}', { params: { path: { jobId: this.id }, query: waitMs === undefined ? {} : { waitMs } }, signal });
    this.view = data!;
    return this.view;
  }

  /** Waits until the job is COMPLETED (its view) or FAILED (a JobFailedError with the job's error). */
  async waitForCompletion(options: WaitOptions = {}): Promise<RenderJobView> {
    const view = await waitUntilFinished(this.id, (waitMs, signal) => this.refresh(waitMs, signal), options);
    if (view.status === 'FAILED') throw new JobFailedError(this.id, view.error, view.errorCode, view);
    return view;
  }

  /** The output's bytes (PDF, DOCX, ODT, an image or a ZIP of page images), waiting for the job first if need be. */
  async download(options: WaitOptions = {}): Promise<Uint8Array> {
    if (this.view.status !== 'COMPLETED') await this.waitForCompletion(options);
    const { data } = await this.#api.GET('/api/v1/dev/render/{jobId}/download', { params: { path: { jobId: this.id } }, parseAs: 'arrayBuffer', signal: options.signal });
    return new Uint8Array(data as unknown as ArrayBuffer);
  }
}
