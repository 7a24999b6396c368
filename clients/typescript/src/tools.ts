// Tools jobs: upload the input files, start a tools route (pdf/merge, lens/extract, …), wait for it, download its output.
import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import type { StoredFile, ToolsJobView } from './types.js';
import { TOOL_ROUTES, type ToolName } from './tool-routes.js';
import { JobHandle } from './job-handle.js';
import { asBlob, type FileInput } from './file-input.js';
import type { WaitOptions } from './waiting.js';

/** Options of a call that creates something: `Idempotency-Key` makes a retry safe (docs/idempotency.md). */
export interface CreateOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** A tools job handle: its last view, waitForCompletion (long-poll on GET /tools/jobs/{jobId}?waitMs=) and the output's bytes. */
export class ToolJob extends JobHandle<ToolsJobView> {
  get id(): string {
    return this.view.id;
  }

  /** The job's result (Lens answers, page counts, …) once it completed; null before. */
  get result(): ToolsJobView['result'] {
    return this.view.result;
  }

  async refresh(waitMs?: number, signal?: AbortSignal): Promise<ToolsJobView> {
    const { data } = await this.api.GET('/api/v1/dev/tools/jobs/{jobId}', { params: { path: { jobId: this.id }, query: waitMs === undefined ? {} : { waitMs } }, signal });
    this.view = data!;
    return this.view;
  }

  /** The output file's bytes; null for a job that answers only with a result (Lens). */
  async download(options: WaitOptions = {}): Promise<Uint8Array | null> {
    if (this.view.status !== 'COMPLETED') await this.waitForCompletion(options);
    const fileId = this.view.outputFileId;
    if (!fileId) return null;
    const { data } = await this.api.GET('/api/v1/dev/tools/files/{fileId}/download', { params: { path: { fileId } }, parseAs: 'arrayBuffer', signal: options.signal });
    return new Uint8Array(data as unknown as ArrayBuffer);
  }
}

/** What tools.run gives back: the finished job, its result and its output's bytes (null when it has none). */
export interface ToolRun {
  job: ToolsJobView;
  result: ToolsJobView['result'];
  output: Uint8Array | null;
}

export class Tools {
  readonly #api: Client<paths>;

  constructor(api: Client<paths>) {
    this.#api = api;
  }

  /** The tools routes this client knows (from the OpenAPI document it was generated from) and their summaries. */
  get routes(): typeof TOOL_ROUTES {
    return TOOL_ROUTES;
  }

  /** POST /tools/files/upload: one file, kept 24 h by default. */
  async upload(file: FileInput, options: CreateOptions = {}): Promise<StoredFile> {
    const { blob, filename } = asBlob(file);
    const form = new FormData();
    form.append('file', blob, filename);
    const { data } = await this.#api.POST('/api/v1/dev/tools/files/upload', {
      body: form as never,
      headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {},
      signal: options.signal,
    });
    return data!;
  }

  /** Starts a tools job on files already uploaded: `params` is the route's body (fileId/fileIds included). */
  async start(tool: ToolName | string, params: Record<string, unknown>, options: CreateOptions = {}): Promise<ToolJob> {
    const name = toolName(tool);
    // The route is one of the generated paths; its body type depends on which, so it is checked by the server here.
    const post = this.#api.POST as unknown as (p: string, init: unknown) => Promise<{ data?: ToolsJobView }>;
    const { data } = await post(`/api/v1/dev/tools/${name}`, {
      body: params,
      headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {},
      signal: options.signal,
    });
    return new ToolJob(this.#api, data!);
  }

  /**
   * Upload + tool + wait + download: uploads `files`, puts their ids where the route wants them (`fileIds` or
   * `fileId`), adds `params`, waits for the job and downloads its output. The Idempotency-Key, when given, keys the
   * job's creation (each upload gets `<key>:file-<n>`), so a retried run neither uploads nor runs twice.
   */
  async run(tool: ToolName | string, input: { files: FileInput[]; params?: Record<string, unknown> } & CreateOptions & WaitOptions): Promise<ToolRun> {
    const name = toolName(tool);
    const route = TOOL_ROUTES[name as ToolName];
    if (route.fileField === 'fileId' && input.files.length !== 1) throw new TypeError(`${name} takes one file, not ${input.files.length}.`);
    const ids: string[] = [];
    for (const [i, file] of input.files.entries()) {
      const key = input.idempotencyKey ? `${input.idempotencyKey}:file-${i + 1}` : undefined;
      ids.push((await this.upload(file, { idempotencyKey: key, signal: input.signal })).id);
    }
    const fileParams = route.fileField === 'fileIds' ? { fileIds: ids } : { fileId: ids[0] };
    const job = await this.start(name, { ...fileParams, ...input.params }, input);
    const view = await job.waitForCompletion(input);
    return { job: view, result: view.result, output: await job.download(input) };
  }
}

/** `pdf/merge`, also written as the action name `pdf.merge`; an unknown tool is a TypeError naming the known ones. */
function toolName(tool: string): ToolName {
  const name = tool.includes('/') ? tool : tool.replace('.', '/');
  if (!(name in TOOL_ROUTES)) {
    throw new TypeError(`no tools route ${tool}; known: ${Object.keys(TOOL_ROUTES).join(', ')}.`);
  }
  return name as ToolName;
}
