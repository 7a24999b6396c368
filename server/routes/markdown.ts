// Extended Markdown over HTTP: POST /render/markdown (a render job), POST /render/validate/markdown (the same checks, no
// render, no credits) and POST /render/markdown/preview (one page image at once, no job, no credits; the editor's preview).
import { Type } from '@sinclair/typebox';
import { HttpError, JobError } from '../../contracts/errors.js';
import { KeyedMutex } from '../../kernel/keyed-mutex.js';
import { renderPreviewNow } from '../../services/page-preview.js';
import type { FormRateLimits } from '../forms-page/rate-limits.js';
import {
  MarkdownImageRenderRequestSchema,
  MarkdownPreviewRequestSchema,
  MarkdownRenderRequestSchema,
  MarkdownValidateRequestSchema,
  MarkdownValidationSchema,
  type MarkdownRenderRequest,
} from '../../contracts/render.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { creatingRender, IMAGE_ROUTE_NOTE, RENDER_CREATED, RENDER_CREATION_QUERY, STRICT_QUERY, strictOf } from './render.js';

/** The 400 detail of a body that is not an Extended Markdown request, for the render and the validate routes alike. */
const MISMATCH = 'The request body does not match the Extended Markdown request.';

/** Screen resolution: an A4 page is 794 × 1123 pixels, sharp on a screen and quick to draw. */
const PREVIEW_DPI = 96;

/** One preview at a time per key: a person typing fast queues behind their own previous keystroke, not beside it. */
const previewLocks = new KeyedMutex();

function previewPage(ctx: RouteContext): number {
  const v = ctx.query.get('page');
  if (v === null) return 1;
  if (!/^[1-9][0-9]{0,5}$/.test(v)) throw new HttpError('VALIDATION_FAILED', `page must be a page number (1, 2, …), not "${v}".`, [{ path: 'query.page', message: 'must be a whole number from 1', code: 'INVALID_FIELD' }]);
  return Number(v);
}

/** The previews' own budget per key (QUIRE_PREVIEWS_PER_MINUTE), after the general per-key limit the app applied. */
async function takePreview(ctx: RouteContext, limits: FormRateLimits): Promise<void> {
  const decision = await limits.markdownPreview(ctx.principal!.subject, ctx.kernel.config.previewsPerMinute);
  if (!decision) return;
  ctx.res.setHeader('RateLimit-Limit', String(decision.limit));
  ctx.res.setHeader('RateLimit-Remaining', String(decision.remaining));
  ctx.res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
  ctx.res.setHeader('RateLimit-Policy', `${decision.limit};w=60`);
  if (!decision.allowed) {
    throw new HttpError('RATE_LIMITED', `More than ${decision.limit} previews per minute with this key; retry in ${decision.retryAfterSeconds} s.`, undefined, { 'Retry-After': String(decision.retryAfterSeconds) });
  }
}

async function preview(ctx: RouteContext<MarkdownRenderRequest>, pre: { page: number; strict: boolean }): Promise<void> {
  const orgId = ctx.principal!.orgId;
  const { webhook: _webhook, pdfProfile: _profile, ...body } = ctx.body;
  const png = await previewLocks.run(ctx.principal!.subject, async () => {
    const planned = await ctx.services.renders.planMarkdown(orgId, body, pre.strict, 'the Markdown preview', { format: 'png', dpi: PREVIEW_DPI, pages: [String(pre.page)] });
    try {
      return await renderPreviewNow(ctx.kernel, orgId, planned);
    } catch (err) {
      // The render's own failures (a page past the end, an image gone) are the request's: 400 with the render's code.
      if (!(err instanceof JobError)) throw err;
      const path = err.code === 'PAGE_OUT_OF_RANGE' ? 'query.page' : 'content';
      throw new HttpError('VALIDATION_FAILED', `The preview cannot be drawn: ${err.message}`, [{ path, message: err.message, code: err.code }]);
    }
  });
  ctx.res.statusCode = 200;
  ctx.res.setHeader('Content-Type', 'image/png');
  ctx.res.setHeader('Content-Length', String(png.length));
  ctx.res.setHeader('Cache-Control', 'no-store');
  ctx.res.end(png);
}

async function validate(ctx: RouteContext<MarkdownRenderRequest>, strict: boolean): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.renders.validateMarkdown(ctx.principal!.orgId, ctx.body, strict));
}

/** `limits` holds the previews' per-key budget (shared by every node on PostgreSQL). */
export function markdownRoutes(limits: FormRateLimits): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/render/markdown`,
      auth: 'key',
      idempotent: true,
      ...creatingRender('createFromMarkdown', 'POST /render/markdown', MISMATCH),
      doc: {
        tag: 'Rendering',
        summary: 'Render Extended Markdown (temporary; output expires)',
        description:
          'Parses `content` (docs/extended-markdown.md) with its front matter; the request fields go over the front matter, and `stylePresetId` lies beneath everything. ' +
          'Errors in the Markdown or the settings answer 400 with the path, line and column; with `?strict=true` unresolved references and characters no font can draw (GLYPH_MISSING) are errors too, otherwise warnings on the job. ' +
          'The job is a render job like POST /render (poll GET /render/{jobId}). Costs 1 credit, charged on completion.',
        body: MarkdownRenderRequestSchema,
        query: RENDER_CREATION_QUERY,
        responses: RENDER_CREATED,
      },
    },
    {
      method: 'POST',
      path: `${API_PREFIX}/render/markdown/images`,
      auth: 'key',
      idempotent: true,
      ...creatingRender('createImagesFromMarkdown', 'POST /render/markdown/images', MISMATCH),
      doc: {
        tag: 'Rendering',
        summary: 'Render Extended Markdown to page images, PNG or JPEG (temporary; output expires)',
        description: 'Takes the body of POST /render/markdown plus `image`, and renders like POST /render/images. ' + IMAGE_ROUTE_NOTE,
        body: MarkdownImageRenderRequestSchema,
        query: RENDER_CREATION_QUERY,
        responses: RENDER_CREATED,
      },
    },
    {
      method: 'POST',
      path: `${API_PREFIX}/render/markdown/preview`,
      auth: 'key',
      body: { mismatch: MISMATCH },
      preValidation: async (ctx) => {
        const checked = { page: previewPage(ctx), strict: strictOf(ctx) };
        // Before the body is read: a refused preview costs the server nothing.
        await takePreview(ctx, limits);
        return checked;
      },
      handler: preview as RouteDefinition['handler'],
      doc: {
        tag: 'Rendering',
        summary: 'Preview Extended Markdown: one page as PNG, at once (free; rate-limited)',
        description:
          'Takes the body of POST /render/markdown and answers 200 `image/png` with page `page` (default 1) at 96 dpi, rendered at once on the PNG pool: no job, nothing stored, no credits. ' +
          'The web console\'s editor draws its live preview with it; the PDF itself is a render (POST /render/markdown). ' +
          'Errors in the Markdown or the settings answer 400 with the path, line and column, as the render would; a page past the end answers 400 (`query.page`, PAGE_OUT_OF_RANGE). ' +
          'Each key has its own budget of previews per minute (QUIRE_PREVIEWS_PER_MINUTE, default 60; `RateLimit-*` headers show it) beside the general per-key limit; over it, 429 with `Retry-After`. ' +
          'One preview per key is drawn at a time; `pdfProfile` and `webhook` are ignored.',
        body: MarkdownPreviewRequestSchema,
        query: [
          { name: 'page', description: 'The page to draw, from 1 (default 1).', schema: Type.Integer({ minimum: 1, default: 1 }) },
          STRICT_QUERY,
        ],
        responses: { 200: 'image/png' },
      },
    },
    {
      method: 'POST',
      path: `${API_PREFIX}/render/validate/markdown`,
      auth: 'key',
      body: { mismatch: MISMATCH },
      preValidation: strictOf,
      handler: validate,
      doc: {
        tag: 'Rendering',
        summary: 'Check Extended Markdown without rendering (no credits)',
        description:
          'Answers 200 `{valid, errors, warnings}` for the body POST /render/markdown would take: `valid` is true when that render would be accepted. ' +
          'Each issue has `path`, `message`, `code` and, when it is in `content`, `line` and `column`. A body that is not of this shape (content missing, a field of the wrong type) or an unknown `stylePresetId` answers 400.',
        body: MarkdownValidateRequestSchema,
        query: [STRICT_QUERY],
        responses: { 200: MarkdownValidationSchema },
      },
    },
  ];
}
