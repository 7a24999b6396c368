// A render job handle: its last view, waitForCompletion (long-poll on GET /render/{jobId}?waitMs=) and download.
import type { RenderJobView } from './types.js';
import { JobHandle } from './job-handle.js';
import type { WaitOptions } from './waiting.js';

export class RenderJob extends JobHandle<RenderJobView> {
  get id(): string {
    return this.view.jobId;
  }

  async refresh(waitMs?: number, signal?: AbortSignal): Promise<RenderJobView> {
    const { data } = await this.api.GET('/api/v1/dev/render/{jobId}', { params: { path: { jobId: this.id }, query: waitMs === undefined ? {} : { waitMs } }, signal });
    this.view = data!;
    return this.view;
  }

  /** The output's bytes (PDF, DOCX, ODT, an image or a ZIP of page images), waiting for the job first if need be. */
  async download(options: WaitOptions = {}): Promise<Uint8Array> {
    if (this.view.status !== 'COMPLETED') await this.waitForCompletion(options);
    const { data } = await this.api.GET('/api/v1/dev/render/{jobId}/download', { params: { path: { jobId: this.id } }, parseAs: 'arrayBuffer', signal: options.signal });
    return new Uint8Array(data as unknown as ArrayBuffer);
  }
}
