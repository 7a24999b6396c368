// Rendering: POST /render (document JSON → a render job), polling and the download of its output.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../contracts/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import { renderTokenScope } from '../../services/download-links.js';
import { renderFilename } from '../../services/job-events.js';
import type { JobRecord } from '../../kernel/model.js';
import { ImageRenderRequestSchema, RenderJobSchema, RenderRequestSchema } from '../../contracts/render.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { downloadOrg, sendStoredFile } from './files.js';
import { CREATE_WAIT_QUERY, createWaitMsOf, readJobWaiting, WAIT_QUERY } from '../long-poll.js';
import { sendRenderCreated } from '../job-created.js';
import { renderJobView } from '../views.js';

/** `?strict=true` (or `1`) turns unresolved references into 400 errors. */
export function strictOf(ctx: RouteContext): boolean {
  const v = ctx.query.get('strict');
  if (v === null || v === 'false' || v === '0') return false;
  if (v === '' || v === 'true' || v === '1') return true;
  throw new HttpError('VALIDATION_FAILED', `strict must be true or false, not "${v}".`, [{ path: 'query.strict', message: 'must be true or false', code: 'INVALID_FIELD' }]);
}

type CreatingMethod = 'create' | 'createImages' | 'createFromMarkdown' | 'createImagesFromMarkdown';

/** The query of a render-creating POST, checked before the body is read and the job created. */
export interface RenderCreation {
  strict: boolean;
  /** `?wait=` in milliseconds: how long the answer may wait for the job to finish (0: 202 at once). */
  waitMs: number;
}

export function renderCreationOf(ctx: RouteContext): RenderCreation {
  return { strict: strictOf(ctx), waitMs: createWaitMsOf(ctx) };
}

/**
 * A render-creating route: `?strict` and `?wait` are checked before the body (pre-validation), the body by the app
 * against the route's schema (400 `mismatch`); both go to the render service's `method`, which trusts them; 202 with
 * the job (200 when it finished within `?wait=`). `endpoint` names the route in the service's answers (a full backlog).
 */
export function creatingRender(method: CreatingMethod, endpoint: string, mismatch: string): Pick<RouteDefinition<unknown, RenderCreation>, 'body' | 'preValidation' | 'handler'> {
  return {
    body: { mismatch },
    preValidation: renderCreationOf,
    // The body matched the schema of this route, the one the service method takes.
    handler: async (ctx, pre) => sendRenderCreated(ctx, await ctx.services.renders[method](ctx.principal!.orgId, ctx.body as never, pre.strict, endpoint), pre.waitMs),
  };
}

/** What GET /render/{jobId}/download may answer with, by the render's output. */
export const RENDER_DOWNLOAD_TYPES = ['application/pdf', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/vnd.oasis.opendocument.text', 'image/png', 'image/jpeg', 'application/zip'];

/** The description of the page-image routes' `image` settings, shared by POST /render/images and its Markdown twin. */
export const IMAGE_ROUTE_NOTE =
  '`image.format` png (default) or jpeg, `image.dpi` 36 to 600 (default 150), `image.pages` page specs (default every page). ' +
  'The images are of the PDF rendering, whatever `document.type` says. One selected page gives the image file (`<filename>.png` or `.jpg`), several a ZIP (`<filename>.zip`) of `page-<n>.png` or `page-<n>.jpg`; the job `format` is PNG or JPEG. ' +
  'Malformed page specs answer 400; a page past the end of the rendered document fails the job (PAGE_OUT_OF_RANGE). Costs 1 credit, charged on completion.';

export const STRICT_QUERY = { name: 'strict', description: 'Unresolved references are errors (400) instead of warnings; on a render, so are characters no font can draw (GLYPH_MISSING).', schema: Type.Boolean() };

/** What the OpenAPI document says of every render-creating POST: its query, and its answers (202, or 200 within `?wait=`). */
export const RENDER_CREATION_QUERY = [STRICT_QUERY, CREATE_WAIT_QUERY];
export const RENDER_CREATED = { 200: RenderJobSchema, 202: RenderJobSchema };

async function renderJob(kernel: Kernel, orgId: string, id: string): Promise<JobRecord> {
  const job = /^[0-9a-f-]{36}$/.test(id) ? await kernel.store.getJob(orgId, id) : undefined;
  if (!job || job.kind !== 'render') throw new HttpError('NOT_FOUND', `Render job ${id} was not found (unknown, expired, or another organization's).`);
  return job;
}

async function status(ctx: RouteContext): Promise<void> {
  const id = ctx.params.jobId!;
  // The first read found this organization's render job: the record of its finish is the same job, read again.
  const job = await readJobWaiting(ctx, id, () => renderJob(ctx.kernel, ctx.principal!.orgId, id), (finished) => finished);
  sendJson(ctx.res, 200, renderJobView(ctx.services.links, job));
}

async function download(ctx: RouteContext): Promise<void> {
  const { kernel } = ctx;
  const id = ctx.params.jobId!;
  const orgId = downloadOrg(ctx, renderTokenScope(id), 'the render job');
  const job = await renderJob(kernel, orgId, id);
  if (job.status !== 'COMPLETED' || !job.outputFileId) {
    throw new HttpError('NOT_FOUND', `Render job ${id} has no output: it is ${job.status}${job.status === 'FAILED' ? ` (${job.error})` : '; poll GET /render/{jobId} until COMPLETED'}.`);
  }
  const rec = await kernel.store.getFile(orgId, job.outputFileId);
  if (!rec || rec.expiresAt <= kernel.clock.now().toISOString()) throw new HttpError('NOT_FOUND', `The output of render job ${id} expired; render again.`);
  await sendStoredFile(ctx, rec, renderFilename(job));
}

export function renderRoutes(): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/render`,
      auth: 'key',
      idempotent: true,
      ...creatingRender('create', 'POST /render', 'The request body does not match POST /render.'),
      doc: {
        tag: 'Rendering',
        summary: 'Render document JSON (temporary; output expires)',
        description:
          'Validates `config` (docs/document-json.md) and creates a render job; the output format is `config.document.type`. ' +
          'Duplicate anchors and contract errors answer 400; broken references, undefined citations and abbreviations, and characters no font can draw (GLYPH_MISSING; a failed job under a PDF/A or PDF/UA profile) are 400 with `?strict=true`, otherwise warnings on the job. ' +
          'Costs 1 credit, charged on completion.',
        body: RenderRequestSchema,
        query: RENDER_CREATION_QUERY,
        responses: RENDER_CREATED,
      },
    },
    {
      method: 'POST',
      path: `${API_PREFIX}/render/images`,
      auth: 'key',
      idempotent: true,
      ...creatingRender('createImages', 'POST /render/images', 'The request body does not match POST /render/images.'),
      doc: {
        tag: 'Rendering',
        summary: 'Render document JSON to page images, PNG or JPEG (temporary; output expires)',
        description: 'Validates `config` like POST /render and creates a render job whose output is images of the pages. ' + IMAGE_ROUTE_NOTE,
        body: ImageRenderRequestSchema,
        query: RENDER_CREATION_QUERY,
        responses: RENDER_CREATED,
      },
    },
    { method: 'GET', path: `${API_PREFIX}/render/:jobId`, auth: 'key', handler: status, doc: { tag: 'Rendering', summary: 'A render job (poll until COMPLETED or FAILED, or wait with waitMs)', query: [WAIT_QUERY], responses: { 200: RenderJobSchema } } },
    {
      method: 'GET',
      path: `${API_PREFIX}/render/:jobId/download`,
      auth: 'download',
      handler: download,
      doc: { tag: 'Rendering', summary: 'The output of a completed render (API key or the signed token of downloadUrl)', query: [{ name: 'token', description: 'Signed token from downloadUrl.', schema: Type.String() }], responses: { 200: RENDER_DOWNLOAD_TYPES } },
    },
  ];
}
