// Named types over the generated schema (schema.ts): the bodies and answers the hand-written helpers take and give.
import type { operations } from './schema.js';

type JsonBody<Op extends keyof operations> = NonNullable<operations[Op]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
type JsonAnswer<Op extends keyof operations, S extends number> = operations[Op]['responses'] extends { [K in S]: { content: { 'application/json': infer A } } } ? A : never;

/** A render job as GET /render/{jobId} answers it. */
export type RenderJobView = JsonAnswer<'getApiV1DevRenderJobId', 200>;
/** A tools job as GET /tools/jobs/{jobId} answers it. */
export type ToolsJobView = JsonAnswer<'getApiV1DevToolsJobsJobId', 200>;
/** A bulk render as GET /bulk-render/{bulkJobId} answers it. */
export type BulkJobView = JsonAnswer<'getApiV1DevBulkRenderBulkJobId', 200>;
/** An uploaded file (POST /tools/files/upload). */
export type StoredFile = JsonAnswer<'postApiV1DevToolsFilesUpload', 201>;
/** The answer of POST /render/validate/markdown: `valid`, and errors and warnings with their line and column. */
export type MarkdownValidation = JsonAnswer<'postApiV1DevRenderValidateMarkdown', 200>;

/** The body of POST /render (document JSON in `config`). */
export type RenderBody = JsonBody<'postApiV1DevRender'>;
/** The body of POST /render/markdown. */
export type MarkdownRenderBody = JsonBody<'postApiV1DevRenderMarkdown'>;
/** The body of POST /render/document/{documentId}. */
export type DocumentRenderBody = JsonBody<'postApiV1DevRenderDocumentDocumentId'>;
/** Page image settings (`image` of the image routes). */
export type ImageOptions = NonNullable<JsonBody<'postApiV1DevRenderMarkdownImages'>['image']>;
/** A per-request webhook (`webhook` of a job request). */
export type WebhookRequest = NonNullable<MarkdownRenderBody['webhook']>;
/** Document JSON (docs/document-json.md). */
export type DocumentConfig = RenderBody['config'];
