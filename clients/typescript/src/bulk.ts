// Bulk renders: start one (variables as items, or a CSV/JSON/XLSX file of rows), follow its progress, download outputs.
import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import type { BulkJobView, WebhookRequest } from './types.js';
import { asBlob, type FileInput } from './file-input.js';
import { waitUntilFinished, type WaitOptions } from './waiting.js';
import type { CreateOptions } from './tools.js';

/** Counts of a bulk render as it runs (what onProgress is called with). */
export interface BulkProgress {
  bulkJobId: string;
  status: BulkJobView['status'];
  totalItems: number;
  completedItems: number;
  failedItems: number;
}

export interface BulkOptions extends CreateOptions, WaitOptions {
  /** Output format of every item (default the document's `document.type`). */
  format?: 'PDF' | 'DOCX' | 'ODT' | 'pdf' | 'docx' | 'odt';
  webhook?: WebhookRequest;
  /** Called with the counts at the start and whenever they change, and once more when the bulk job finished. */
  onProgress?: (progress: BulkProgress) => void;
  /** How long the server holds each status request while items run (default 500 ms): the pace of onProgress. */
  progressIntervalMs?: number;
}

/** A finished bulk render: its last view, the ZIP of every output, and one item's output. */
export class BulkRun {
  readonly #api: Client<paths>;
  readonly job: BulkJobView;

  constructor(api: Client<paths>, job: BulkJobView) {
    this.#api = api;
    this.job = job;
  }

  get items(): BulkJobView['items'] {
    return this.job.items;
  }

  /** One ZIP of every completed item's output (GET /bulk-render/{id}/download). */
  async download(signal?: AbortSignal): Promise<Uint8Array> {
    const { data } = await this.#api.GET('/api/v1/dev/bulk-render/{bulkJobId}/download', { params: { path: { bulkJobId: this.job.bulkJobId } }, parseAs: 'arrayBuffer', signal });
    return new Uint8Array(data as unknown as ArrayBuffer);
  }

  /** The output of one completed item (its render job's download); its name in the ZIP is `item.filename`. */
  async downloadItem(item: BulkJobView['items'][number], signal?: AbortSignal): Promise<Uint8Array> {
    if (item.status !== 'COMPLETED' || !item.jobId) throw new TypeError(`item ${item.index} is ${item.status}${item.error ? `: ${item.error}` : ''}; only a completed item has an output`);
    const { data } = await this.#api.GET('/api/v1/dev/render/{jobId}/download', { params: { path: { jobId: item.jobId } }, parseAs: 'arrayBuffer', signal });
    return new Uint8Array(data as unknown as ArrayBuffer);
  }
}

function progressOf(v: BulkJobView): BulkProgress {
  return { bulkJobId: v.bulkJobId, status: v.status, totalItems: v.totalItems, completedItems: v.completedItems, failedItems: v.failedItems };
}

/** POST /bulk-render (items) or /bulk-render/file (a file of rows), then follows it to its end. */
export async function runBulk(api: Client<paths>, documentId: string, rows: Array<Record<string, unknown>> | FileInput, options: BulkOptions = {}): Promise<BulkRun> {
  const headers = options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {};
  const format = options.format?.toUpperCase() as 'PDF' | 'DOCX' | 'ODT' | undefined;
  let created: BulkJobView;
  if (Array.isArray(rows)) {
    const body = { documentId, items: rows, ...(format ? { format } : {}), ...(options.webhook ? { webhook: options.webhook } : {}) };
    const { data } = await api.POST('/api/v1/dev/bulk-render', { body, headers, signal: options.signal });
    created = data as unknown as BulkJobView;
  } else {
    const { blob, filename } = asBlob(rows, 'rows.csv');
    const form = new FormData();
    form.append('documentId', documentId);
    if (format) form.append('format', format);
    if (options.webhook) form.append('webhook', JSON.stringify(options.webhook));
    form.append('file', blob, filename);
    const { data } = await api.POST('/api/v1/dev/bulk-render/file', { body: form as never, headers, signal: options.signal });
    created = data as unknown as BulkJobView;
  }
  let last = '';
  const report = (v: BulkJobView) => {
    const p = progressOf(v);
    const key = JSON.stringify(p);
    if (key !== last) options.onProgress?.(p);
    last = key;
  };
  const fetchView = async (waitMs: number, signal?: AbortSignal) => {
    const { data } = await api.GET('/api/v1/dev/bulk-render/{bulkJobId}', { params: { path: { bulkJobId: created.bulkJobId }, query: { waitMs } }, signal });
    return data!;
  };
  const job = await waitUntilFinished(created.bulkJobId, fetchView, { ...options, stepMs: options.progressIntervalMs ?? 500, onView: report });
  return new BulkRun(api, job);
}
