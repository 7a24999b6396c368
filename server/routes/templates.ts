// Templates: the built-in catalog (browse, copy) and the organization's workspace templates (owners and admins
// write, everyone reads); the legacy bare list.
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../contracts/errors.js';
import {
  CopyTemplateSchema,
  CreateTemplateSchema,
  TEMPLATE_SCOPES,
  TemplateListSchema,
  TemplateSchema,
  UpdateTemplateSchema,
  type CopyTemplate,
  type CreateTemplate,
  type TemplateScope,
  type UpdateTemplate,
} from '../../contracts/templates.js';
import { StringEnum } from '../../contracts/document-json.js';
import { requireWriter } from '../auth.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { ifMatchOf, pageOf } from './documents.js';

const tag = 'Templates';
const location = (id: string) => `${API_PREFIX}/templates/${id}`;
const BODY_LIMIT = 8 * 1024 * 1024;
const orgOf = (ctx: RouteContext) => ctx.principal!.orgId;
const WRITERS = 'Owners and admins only (members read templates and create documents from them).';

function scopeOf(ctx: RouteContext): TemplateScope {
  const v = ctx.query.get('scope') ?? 'workspace';
  if (!(TEMPLATE_SCOPES as readonly string[]).includes(v)) {
    throw new HttpError('VALIDATION_FAILED', `scope must be workspace or catalog, not "${v}".`, [{ path: 'query.scope', message: 'must be workspace or catalog', code: 'INVALID_FIELD' }]);
  }
  return v as TemplateScope;
}

async function list(ctx: RouteContext, pre: { scope: TemplateScope; page: { limit: number; cursor: string | null } }): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.templates.list(orgOf(ctx), pre.scope, pre.page));
}

async function legacyList(ctx: RouteContext): Promise<void> {
  ctx.res.setHeader('Deprecation', 'true');
  ctx.res.setHeader('Link', `<${API_PREFIX}/templates>; rel="successor-version"`);
  sendJson(ctx.res, 200, await ctx.services.templates.legacyList(orgOf(ctx)));
}

async function get(ctx: RouteContext): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.templates.get(orgOf(ctx), ctx.params.templateId!));
}

async function create(ctx: RouteContext<CreateTemplate>): Promise<void> {
  const t = await ctx.services.templates.create(orgOf(ctx), ctx.body);
  sendJson(ctx.res, 201, t, { Location: location(t.id) });
}

async function update(ctx: RouteContext<UpdateTemplate>, ifMatch: number | undefined): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.templates.update(orgOf(ctx), ctx.params.templateId!, ctx.body, ifMatch));
}

async function remove(ctx: RouteContext): Promise<void> {
  await ctx.services.templates.delete(orgOf(ctx), ctx.params.templateId!);
  ctx.res.statusCode = 204;
  ctx.res.end();
}

async function copy(ctx: RouteContext<CopyTemplate>): Promise<void> {
  const t = await ctx.services.templates.copy(orgOf(ctx), ctx.params.templateId!, ctx.body);
  sendJson(ctx.res, 201, t, { Location: location(t.id) });
}

/** A catalog template's page-1 PNG or sample PDF: public, like the catalog itself, and cacheable. */
function previewHandler(kind: 'png' | 'pdf') {
  return async (ctx: RouteContext): Promise<void> => {
    const file = await ctx.services.templates.preview(ctx.params.templateId!, kind);
    ctx.res.statusCode = 200;
    ctx.res.setHeader('Content-Type', file.mimeType);
    ctx.res.setHeader('Content-Length', String(file.sizeBytes));
    ctx.res.setHeader('Cache-Control', 'public, max-age=86400');
    await pipeline(createReadStream(file.path), ctx.res);
  };
}

export function templateRoutes(): RouteDefinition[] {
  const one = `${API_PREFIX}/templates/:templateId`;
  return [
    {
      method: 'GET',
      path: `${API_PREFIX}/templates`,
      auth: 'key',
      preValidation: (ctx) => ({ scope: scopeOf(ctx), page: pageOf(ctx) }),
      handler: list,
      doc: {
        tag,
        summary: 'Templates of one scope: the workspace (default) or the built-in catalog (paged)',
        query: [
          { name: 'scope', description: 'workspace (default) or catalog.', schema: StringEnum(TEMPLATE_SCOPES) },
          { name: 'limit', description: 'Items per page, 1 to 200 (default 50).', schema: Type.Integer({ minimum: 1, maximum: 200 }) },
          { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: Type.String() },
        ],
        responses: { 200: TemplateListSchema },
      },
    },
    {
      method: 'GET',
      path: `${API_PREFIX}/templates/markdown`,
      auth: 'key',
      handler: legacyList,
      doc: { tag, summary: "Legacy: the organization's templates as a bare array", description: 'Deprecated: use GET /templates (paged) and GET /templates/{templateId}/markdown.', deprecated: true, responses: { 200: Type.Array(TemplateSchema) } },
    },
    { method: 'GET', path: one, auth: 'key', handler: get, doc: { tag, summary: 'A template (catalog or workspace) with its Markdown and config', responses: { 200: TemplateSchema } } },
    {
      method: 'GET',
      path: `${one}/preview.png`,
      auth: 'none',
      handler: previewHandler('png'),
      doc: { tag, summary: "A catalog template's page 1 as PNG (its previewImage; no API key)", description: 'Rendered by this server the first time it is asked for, then kept in the data dir.', responses: { 200: 'image/png' } },
    },
    {
      method: 'GET',
      path: `${one}/sample.pdf`,
      auth: 'none',
      handler: previewHandler('pdf'),
      doc: { tag, summary: "A catalog template rendered with its sample variables (its pdfUrl; no API key)", description: 'Rendered by this server the first time it is asked for, then kept in the data dir.', responses: { 200: 'application/pdf' } },
    },
    { method: 'GET', path: `${one}/markdown`, auth: 'key', handler: get, doc: { tag, summary: 'A template with its Markdown and original config (spec path)', responses: { 200: TemplateSchema } } },
    {
      method: 'POST',
      path: `${API_PREFIX}/templates`,
      auth: 'key',
      idempotent: true,
      preValidation: requireWriter,
      body: { mismatch: 'The request body does not match POST /templates.', limit: BODY_LIMIT },
      handler: create,
      doc: {
        tag,
        summary: 'Create a workspace template from Extended Markdown or document JSON',
        description: `Exactly one of \`markdown\` and \`config\`, checked like a document; JSON that Markdown cannot carry is kept with \`format: "json_fallback"\` and a \`warning\`. ${WRITERS}`,
        body: CreateTemplateSchema,
        responses: { 201: TemplateSchema },
      },
    },
    {
      method: 'PATCH',
      path: one,
      auth: 'key',
      preValidation: (ctx) => (requireWriter(ctx), ifMatchOf(ctx)),
      body: { mismatch: 'The request body does not match PATCH /templates/{templateId}.', limit: BODY_LIMIT },
      handler: update,
      doc: { tag, summary: 'Change a workspace template', description: `Catalog templates are read-only (403). \`If-Match: <version>\` guards against lost updates (412). ${WRITERS}`, body: UpdateTemplateSchema, responses: { 200: TemplateSchema } },
    },
    { method: 'DELETE', path: one, auth: 'key', preValidation: requireWriter, handler: remove, doc: { tag, summary: 'Delete a workspace template', description: `Documents made from it keep their content. ${WRITERS}`, responses: { 204: null } } },
    {
      method: 'POST',
      path: `${one}/copy`,
      auth: 'key',
      idempotent: true,
      preValidation: requireWriter,
      body: { mismatch: 'The request body does not match POST /templates/{templateId}/copy.', optional: true },
      handler: copy,
      doc: { tag, summary: 'Copy a template (catalog or workspace) into the workspace', description: `An independent copy, productive by default. ${WRITERS}`, body: CopyTemplateSchema, responses: { 201: TemplateSchema } },
    },
  ];
}
