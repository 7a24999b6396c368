// @quire/client: the typed client of the Quire API, its helpers and webhook signature verification.
export { QuireClient, type QuireClientOptions, type RenderInput, type RenderOptions, type RenderFormat } from './client.js';
export { RenderJob } from './render-job.js';
export { JobHandle } from './job-handle.js';
export { Tools, ToolJob, type ToolRun, type CreateOptions } from './tools.js';
export { BulkRun, type BulkOptions, type BulkProgress } from './bulk.js';
export { QuireError, JobFailedError, JobTimeoutError, type Problem, type ProblemFieldError } from './errors.js';
export { verifyWebhookSignature, parseSignatureHeader, type HeadersLike, type VerifyOptions } from './webhooks.js';
export { TOOL_ROUTES, type ToolName } from './tool-routes.js';
export type { FileInput } from './file-input.js';
export type { WaitOptions } from './waiting.js';
export type * from './types.js';
export type { paths, components, operations } from './schema.js';
