// Extended Markdown over HTTP: POST /render/markdown (a render job) and POST /render/validate/markdown (the same checks, no render, no credits).
import {
  MarkdownImageRenderRequestSchema,
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

async function validate(ctx: RouteContext<MarkdownRenderRequest>, strict: boolean): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.renders.validateMarkdown(ctx.principal!.orgId, ctx.body, strict));
}

export function markdownRoutes(): RouteDefinition[] {
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
