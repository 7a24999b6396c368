// The workspace's documents: save (JSON or Extended Markdown), list, read, change, delete, read and write as
// Markdown, render by id; and the permanent images saved documents use.
import { pipeline } from 'node:stream/promises';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../contracts/errors.js';
import {
  CreateDocumentSchema,
  CreateMarkdownDocumentSchema,
  DocumentListSchema,
  DocumentMarkdownSchema,
  DocumentSchema,
  PatchMarkdownSchema,
  RenderDocumentSchema,
  UpdateDocumentSchema,
  type CreateDocument,
  type CreateMarkdownDocument,
  type PatchMarkdown,
  type RenderDocument,
  type UpdateDocument,
} from '../../contracts/documents.js';
import { assetPath, resolveAssetPath } from '../../kernel/temp-images.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { RENDER_CREATED, RENDER_CREATION_QUERY, renderCreationOf, STRICT_QUERY, strictOf, type RenderCreation } from './render.js';
import { sendRenderCreated } from '../job-created.js';

const location = (id: string) => `${API_PREFIX}/documents/${id}`;
/** A document of 500 sections of 5000 elements does not fit; the Markdown's 1 MiB does, with room for escapes. */
const BODY_LIMIT = 8 * 1024 * 1024;

const LIMIT_QUERY = { name: 'limit', description: 'Items per page, 1 to 200 (default 50).', schema: Type.Integer({ minimum: 1, maximum: 200 }) };
const CURSOR_QUERY = { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: Type.String() };
const IF_MATCH_NOTE = 'Send `If-Match: <version>` (the `version` you read; quotes allowed) to refuse the change with 412 VERSION_CONFLICT if someone changed the document since.';

/** `?limit` (1–200, default 50) and `?cursor` of a list. */
export function pageOf(ctx: RouteContext): { limit: number; cursor: string | null } {
  const raw = ctx.query.get('limit');
  const limit = raw === null ? 50 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
    throw new HttpError('VALIDATION_FAILED', `limit must be an integer from 1 to 200, not "${raw}".`, [{ path: 'query.limit', message: 'must be an integer from 1 to 200', code: 'INVALID_FIELD' }]);
  }
  return { limit, cursor: ctx.query.get('cursor') };
}

/** The version an `If-Match` header names (`3`, `"3"` or `W/"3"`), or undefined without one. */
export function ifMatchOf(ctx: RouteContext): number | undefined {
  const raw = ctx.req.headers['if-match'];
  if (raw === undefined) return undefined;
  const m = /^\s*(?:(?:W\/)?"(\d{1,15})"|(\d{1,15}))\s*$/.exec(String(raw));
  if (!m) {
    throw new HttpError('VALIDATION_FAILED', `If-Match must be the version number (e.g. If-Match: 3), not ${JSON.stringify(raw)}.`, [{ path: 'header.If-Match', message: 'must be a version number', code: 'INVALID_FIELD' }]);
  }
  return Number(m[1] ?? m[2]);
}

const orgOf = (ctx: RouteContext) => ctx.principal!.orgId;
const etag = (version: number) => ({ ETag: `"${version}"` });

async function create(ctx: RouteContext<CreateDocument>, strict: boolean): Promise<void> {
  const doc = await ctx.services.documents.create(orgOf(ctx), ctx.body, strict);
  sendJson(ctx.res, 201, doc, { Location: location(doc.id), ...etag(doc.version) });
}

async function createFromMarkdown(ctx: RouteContext<CreateMarkdownDocument>, strict: boolean): Promise<void> {
  const doc = await ctx.services.documents.createFromMarkdown(orgOf(ctx), ctx.body, strict);
  sendJson(ctx.res, 201, doc, { Location: location(doc.id), ...etag(doc.version) });
}

async function list(ctx: RouteContext, page: { limit: number; cursor: string | null }): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.documents.list(orgOf(ctx), page));
}

async function get(ctx: RouteContext): Promise<void> {
  const doc = await ctx.services.documents.get(orgOf(ctx), ctx.params.documentId!);
  sendJson(ctx.res, 200, doc, etag(doc.version));
}

async function update(ctx: RouteContext<UpdateDocument>, pre: { strict: boolean; ifMatch: number | undefined }): Promise<void> {
  const doc = await ctx.services.documents.update(orgOf(ctx), ctx.params.documentId!, ctx.body, pre.ifMatch, pre.strict);
  sendJson(ctx.res, 200, doc, etag(doc.version));
}

async function remove(ctx: RouteContext): Promise<void> {
  await ctx.services.documents.delete(orgOf(ctx), ctx.params.documentId!);
  ctx.res.statusCode = 204;
  ctx.res.end();
}

async function getMarkdown(ctx: RouteContext): Promise<void> {
  const md = await ctx.services.documents.markdownOf(orgOf(ctx), ctx.params.documentId!);
  sendJson(ctx.res, 200, md, etag(md.version));
}

async function patchMarkdown(ctx: RouteContext<PatchMarkdown>, pre: { strict: boolean; ifMatch: number | undefined }): Promise<void> {
  const doc = await ctx.services.documents.patchMarkdown(orgOf(ctx), ctx.params.documentId!, ctx.body.markdown, pre.ifMatch, pre.strict);
  sendJson(ctx.res, 200, doc, etag(doc.version));
}

async function render(ctx: RouteContext<RenderDocument>, pre: RenderCreation): Promise<void> {
  const job = await ctx.services.renders.createFromDocument(orgOf(ctx), ctx.params.documentId!, ctx.body, pre.strict, 'POST /render/document/{documentId}');
  await sendRenderCreated(ctx, job, pre.waitMs);
}

async function image(ctx: RouteContext): Promise<void> {
  const id = ctx.params.assetId!;
  const assetId = resolveAssetPath(assetPath(id));
  const asset = assetId ? await ctx.kernel.store.getAsset(orgOf(ctx), assetId) : undefined;
  if (!asset) throw new HttpError('NOT_FOUND', `Image ${id} was not found (unknown, deleted with the last document that used it, or another organization's).`);
  ctx.res.statusCode = 200;
  ctx.res.setHeader('Content-Type', asset.mimeType);
  ctx.res.setHeader('Content-Length', String(asset.sizeBytes));
  ctx.res.setHeader('Cache-Control', 'private, max-age=3600');
  // SVG is served as a download-safe image: no script runs in the API's origin.
  ctx.res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  await pipeline(await ctx.kernel.blobs.openRead(asset.id), ctx.res);
}

const strictAndVersion = (ctx: RouteContext) => ({ strict: strictOf(ctx), ifMatch: ifMatchOf(ctx) });
const DOCUMENT_ID = 'The document id (GET /documents).';
const tag = 'Documents';

export function documentRoutes(): RouteDefinition[] {
  const one = `${API_PREFIX}/documents/:documentId`;
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/documents`,
      auth: 'key',
      idempotent: true,
      body: { mismatch: 'The request body does not match POST /documents.', limit: BODY_LIMIT },
      preValidation: strictOf,
      handler: create,
      doc: {
        tag,
        summary: 'Save document JSON as a document (version 1)',
        description:
          '`config` is checked exactly like POST /render (400 with paths; `?strict=true` makes unresolved references errors, otherwise they are `warnings`). ' +
          'Every `/temp-image/<id>` in it becomes a permanent `/image/<asset_id>` (GET /images/{assetId}); the saved `config` holds only those. ' +
          `An organization keeps at most 10,000 documents. ${DOCUMENT_ID}`,
        body: CreateDocumentSchema,
        query: [STRICT_QUERY],
        responses: { 201: DocumentSchema },
      },
    },
    {
      method: 'POST',
      path: `${API_PREFIX}/documents/markdown`,
      auth: 'key',
      idempotent: true,
      body: { mismatch: 'The request body does not match POST /documents/markdown.', limit: BODY_LIMIT },
      preValidation: strictOf,
      handler: createFromMarkdown,
      doc: {
        tag,
        summary: 'Save Extended Markdown as a document (version 1)',
        description:
          'The request fields go over the front matter as in POST /render/markdown; errors answer 400 with path, line and column and nothing is saved. ' +
          'The document is saved as the JSON the Markdown parses to (GET /documents/{id}/markdown gives Markdown back); `stylePresetId` is kept beside it and applied when it renders.',
        body: CreateMarkdownDocumentSchema,
        query: [STRICT_QUERY],
        responses: { 201: DocumentSchema },
      },
    },
    { method: 'GET', path: `${API_PREFIX}/documents`, auth: 'key', preValidation: pageOf, handler: list, doc: { tag, summary: "The organization's documents, newest first (paged)", query: [LIMIT_QUERY, CURSOR_QUERY], responses: { 200: DocumentListSchema } } },
    { method: 'GET', path: one, auth: 'key', handler: get, doc: { tag, summary: 'A document with its config (ETag: its version)', responses: { 200: DocumentSchema } } },
    {
      method: 'PATCH',
      path: one,
      auth: 'key',
      body: { mismatch: 'The request body does not match PATCH /documents/{documentId}.', limit: BODY_LIMIT },
      preValidation: strictAndVersion,
      handler: update,
      doc: { tag, summary: 'Change a document: name, config (checked like POST /documents) or stylePresetId', description: IF_MATCH_NOTE, body: UpdateDocumentSchema, query: [STRICT_QUERY], responses: { 200: DocumentSchema } },
    },
    { method: 'DELETE', path: one, auth: 'key', handler: remove, doc: { tag, summary: 'Delete a document (and the images only it used)', responses: { 204: null } } },
    {
      method: 'GET',
      path: `${one}/markdown`,
      auth: 'key',
      handler: getMarkdown,
      doc: {
        tag,
        summary: 'A document as Extended Markdown',
        description: '`format` is `markdown` when reading the Markdown back gives the same document; otherwise `json_fallback`, with `config` and a `warning` naming the first part the Markdown cannot carry.',
        responses: { 200: DocumentMarkdownSchema },
      },
    },
    {
      method: 'PATCH',
      path: `${one}/markdown`,
      auth: 'key',
      body: { mismatch: 'The request body does not match PATCH /documents/{documentId}/markdown: send {"markdown": "…"}.', limit: BODY_LIMIT },
      preValidation: strictAndVersion,
      handler: patchMarkdown,
      doc: {
        tag,
        summary: 'Replace a document with Extended Markdown',
        description: `The Markdown is parsed and checked (400 with path, line and column; nothing saved), stored as the document's config, and the version goes up by one. ${IF_MATCH_NOTE}`,
        body: PatchMarkdownSchema,
        query: [STRICT_QUERY],
        responses: { 200: DocumentSchema },
      },
    },
    {
      method: 'POST',
      path: `${API_PREFIX}/render/document/:documentId`,
      auth: 'key',
      idempotent: true,
      body: { mismatch: 'The request body does not match POST /render/document/{documentId}.', optional: true },
      preValidation: renderCreationOf,
      handler: render,
      doc: {
        tag: 'Rendering',
        summary: 'Render a saved document (temporary; output expires)',
        description:
          "Renders the document with the request's `variables` over its own, name by name, to its `document.type` or `format` (PDF, DOCX, ODT; PNG or JPEG give page images as POST /render/images, with `image`). " +
          "`stylePresetId` replaces the document's preset. The job is a render job like POST /render (poll GET /render/{jobId}); errors name paths of the document being rendered (`config.…`). Costs 1 credit, charged on completion.",
        body: RenderDocumentSchema,
        query: RENDER_CREATION_QUERY,
        responses: RENDER_CREATED,
      },
    },
    {
      method: 'GET',
      path: `${API_PREFIX}/images/:assetId`,
      auth: 'key',
      handler: image,
      doc: {
        tag: 'Images',
        summary: 'A permanent image of the organization (/image/<assetId> in saved documents)',
        description: 'Made from a `/temp-image/` path when a document using it is saved; deleted with the last document that uses it.',
        responses: { 200: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'] },
      },
    },
  ];
}
