// QuireClient: typed calls over openapi-fetch (every non-2xx answer raised as a QuireError) and the helpers for the
// flows people need: render and wait and download, upload + tool + download, bulk with progress, Markdown validation.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import type { DocumentConfig, DocumentRenderBody, ImageOptions, MarkdownRenderBody, MarkdownValidation, RenderJobView } from './types.js';
import { QuireError } from './errors.js';
import { RenderJob } from './render-job.js';
import { Tools, type CreateOptions } from './tools.js';
import { runBulk, type BulkOptions, type BulkRun } from './bulk.js';
import type { FileInput } from './file-input.js';

export interface QuireClientOptions {
  /** The server's origin, e.g. `http://localhost:8080` (the API paths carry /api/v1/dev). */
  baseUrl: string;
  /** An API key (`ak_…`), sent as X-API-Key; or give `accessToken`. */
  apiKey?: string;
  /** An `mcp_at_…` access token, sent as `Authorization: Bearer`. */
  accessToken?: string;
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: typeof globalThis.fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** Output formats of a render: a document, or page images (PNG, JPEG). */
export type RenderFormat = 'pdf' | 'docx' | 'odt' | 'png' | 'jpeg';

/** What client.render accepts: document JSON, Extended Markdown (`markdown` plus the Markdown route's fields), or a saved document. */
export type RenderInput = DocumentConfig | ({ markdown: string } & Omit<MarkdownRenderBody, 'content'>) | ({ documentId: string } & DocumentRenderBody);

export interface RenderOptions extends CreateOptions {
  /** pdf, docx, odt (the document's type), or png/jpeg page images; default the document's own `document.type`. */
  format?: RenderFormat;
  /** Page images: dpi and pages (with format png or jpeg). */
  image?: Omit<ImageOptions, 'format'>;
  /** Unresolved references are errors (400) instead of warnings. */
  strict?: boolean;
  /** A style preset (GET /styles), e.g. `system:classic-serif`. */
  stylePresetId?: string;
  /**
   * Seconds (0–60) the server may hold the creating request for the job to finish (`?wait=`): a render done within
   * it comes back already COMPLETED (or FAILED), saving the round trips of a wait. Default 0: answered at once.
   */
  wait?: number;
}

export class QuireClient {
  /** The typed openapi-fetch client: `client.api.GET('/api/v1/dev/credits')`; a non-2xx answer rejects with a QuireError. */
  readonly api: Client<paths>;
  /** Upload + tool + wait + download (`client.tools.run('pdf/merge', { files })`). */
  readonly tools: Tools;

  constructor(options: QuireClientOptions) {
    const auth: Record<string, string> = options.apiKey ? { 'X-API-Key': options.apiKey } : options.accessToken ? { Authorization: `Bearer ${options.accessToken}` } : {};
    this.api = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers: { ...auth, ...options.headers }, fetch: options.fetch });
    this.api.use({
      async onResponse({ response }) {
        if (!response.ok) throw await QuireError.fromResponse(response);
        return undefined;
      },
    });
    this.tools = new Tools(this.api);
  }

  /**
   * Starts a render and answers its job handle (then `.waitForCompletion()`, `.download()`): document JSON through
   * POST /render, `{markdown}` through POST /render/markdown, `{documentId}` through POST /render/document/{id};
   * `format: 'png' | 'jpeg'` uses the image routes.
   */
  async render(input: RenderInput, options: RenderOptions = {}): Promise<RenderJob> {
    const init = { headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {}, signal: options.signal };
    const query = { ...(options.strict === undefined ? {} : { strict: options.strict }), ...(options.wait === undefined ? {} : { wait: options.wait }) };
    const images = options.format === 'png' || options.format === 'jpeg';
    const image = images ? { ...options.image, format: options.format as 'png' | 'jpeg' } : undefined;
    const style = options.stylePresetId ? { stylePresetId: options.stylePresetId } : {};
    let data: unknown;
    if ('markdown' in input && typeof input.markdown === 'string') {
      const { markdown, ...rest } = input as { markdown: string } & Omit<MarkdownRenderBody, 'content'>;
      const document = !images && options.format ? { ...rest.document, type: options.format } : rest.document;
      const body = { ...rest, ...style, content: markdown, ...(document ? { document } : {}) };
      data = images
        ? (await this.api.POST('/api/v1/dev/render/markdown/images', { body: { ...body, image }, params: { query }, ...init })).data
        : (await this.api.POST('/api/v1/dev/render/markdown', { body, params: { query }, ...init })).data;
    } else if ('documentId' in input && typeof input.documentId === 'string') {
      const { documentId, ...rest } = input as { documentId: string } & DocumentRenderBody;
      const body = { ...rest, ...style, ...(options.format ? { format: options.format.toUpperCase() as DocumentRenderBody['format'] } : {}), ...(image ? { image } : {}) };
      data = (await this.api.POST('/api/v1/dev/render/document/{documentId}', { body, params: { path: { documentId }, query }, ...init })).data;
    } else {
      const config = input as DocumentConfig;
      const typed = !images && options.format ? { ...config, document: { ...(config.document as object), type: options.format } } : config;
      data = images
        ? (await this.api.POST('/api/v1/dev/render/images', { body: { config: typed, ...style, image }, params: { query }, ...init })).data
        : (await this.api.POST('/api/v1/dev/render', { body: { config: typed, ...style }, params: { query }, ...init })).data;
    }
    return new RenderJob(this.api, data as RenderJobView);
  }

  /** The handle of a render job that already exists (its current view). */
  async renderJob(jobId: string): Promise<RenderJob> {
    const job = new RenderJob(this.api, { jobId } as RenderJobView);
    await job.refresh();
    return job;
  }

  /** POST /render/validate/markdown: the errors and warnings of Extended Markdown with line and column; no render, no credits. */
  async validateMarkdown(content: string, options: Omit<MarkdownRenderBody, 'content' | 'webhook'> & { strict?: boolean } = {}): Promise<MarkdownValidation> {
    const { strict, ...rest } = options;
    const { data } = await this.api.POST('/api/v1/dev/render/validate/markdown', { body: { ...rest, content }, params: { query: strict === undefined ? {} : { strict } } });
    return data!;
  }

  /**
   * A bulk render of a saved document: one output per item (variables), or per row of a CSV, JSON or XLSX file;
   * follows it to its end, calling `onProgress` as items finish. One failed item does not fail the others.
   */
  bulk(documentId: string, rows: Array<Record<string, unknown>> | FileInput, options: BulkOptions = {}): Promise<BulkRun> {
    return runBulk(this.api, documentId, rows, options);
  }
}
