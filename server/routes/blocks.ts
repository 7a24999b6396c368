// Reusable blocks: the organization's named Markdown pieces with their version history and status (owners and admins
// write, everyone reads). Inserting them into documents (`blockRef`) comes later.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../contracts/errors.js';
import {
  BLOCK_STATUSES,
  BlockListSchema,
  BlockSchema,
  BlockStatusChangeSchema,
  CreateBlockSchema,
  CreateBlockVersionSchema,
  UpdateBlockSchema,
  type BlockStatus,
  type BlockStatusChange,
  type CreateBlock,
  type CreateBlockVersion,
  type UpdateBlock,
} from '../../contracts/blocks.js';
import { StringEnum } from '../../contracts/document-json.js';
import type { BlockFilter } from '../../services/block-service.js';
import { requireWriter } from '../auth.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { pageOf } from './documents.js';

const tag = 'Reusable blocks';
const BASE = `${API_PREFIX}/reusable-blocks`;
const location = (id: string) => `${BASE}/${id}`;
/** A version's Markdown is at most 256 KiB; its schema 64 KiB; room for JSON escaping and the variables. */
const BODY_LIMIT = 2 * 1024 * 1024;
const orgOf = (ctx: RouteContext) => ctx.principal!.orgId;
/** Who wrote a block or version: Quire has no user accounts, so the caller's principal (`key:<API key id>`). */
const byOf = (ctx: RouteContext) => ctx.principal!.subject;
const WRITERS = 'Owners and admins only (members read blocks).';

function filterOf(ctx: RouteContext): BlockFilter {
  const status = ctx.query.get('status');
  if (status !== null && !(BLOCK_STATUSES as readonly string[]).includes(status)) {
    throw new HttpError('VALIDATION_FAILED', `status must be one of ${BLOCK_STATUSES.join(', ')}, not "${status}".`, [{ path: 'query.status', message: `must be one of ${BLOCK_STATUSES.join(', ')}`, code: 'INVALID_FIELD' }]);
  }
  const category = ctx.query.get('category');
  const tagName = ctx.query.get('tag');
  return { ...(status !== null ? { status: status as BlockStatus } : {}), ...(category !== null ? { category } : {}), ...(tagName !== null ? { tag: tagName } : {}) };
}

function versionOf(ctx: RouteContext): number {
  const raw = ctx.params.version!;
  if (!/^[1-9]\d{0,8}$/.test(raw)) {
    throw new HttpError('VALIDATION_FAILED', `The version in the path must be a positive integer, not "${raw}".`, [{ path: 'path.version', message: 'must be a positive integer', code: 'INVALID_FIELD' }]);
  }
  return Number(raw);
}

async function list(ctx: RouteContext, pre: { filter: BlockFilter; page: { limit: number; cursor: string | null } }): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.blocks.list(orgOf(ctx), pre.filter, pre.page));
}

async function get(ctx: RouteContext): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.blocks.get(orgOf(ctx), ctx.params.blockId!));
}

async function create(ctx: RouteContext<CreateBlock>): Promise<void> {
  const b = await ctx.services.blocks.create(orgOf(ctx), ctx.body, byOf(ctx));
  sendJson(ctx.res, 201, b, { Location: location(b.id) });
}

async function update(ctx: RouteContext<UpdateBlock>): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.blocks.update(orgOf(ctx), ctx.params.blockId!, ctx.body));
}

async function addVersion(ctx: RouteContext<CreateBlockVersion>): Promise<void> {
  const b = await ctx.services.blocks.addVersion(orgOf(ctx), ctx.params.blockId!, ctx.body, byOf(ctx));
  sendJson(ctx.res, 201, b, { Location: location(b.id) });
}

async function restore(ctx: RouteContext, version: number): Promise<void> {
  const b = await ctx.services.blocks.restore(orgOf(ctx), ctx.params.blockId!, version, byOf(ctx));
  sendJson(ctx.res, 201, b, { Location: location(b.id) });
}

async function setStatus(ctx: RouteContext<BlockStatusChange>): Promise<void> {
  sendJson(ctx.res, 200, await ctx.services.blocks.setStatus(orgOf(ctx), ctx.params.blockId!, ctx.body.status));
}

async function remove(ctx: RouteContext): Promise<void> {
  await ctx.services.blocks.delete(orgOf(ctx), ctx.params.blockId!);
  ctx.res.statusCode = 204;
  ctx.res.end();
}

export function blockRoutes(): RouteDefinition[] {
  const one = `${BASE}/:blockId`;
  return [
    {
      method: 'GET',
      path: BASE,
      auth: 'key',
      preValidation: (ctx) => ({ filter: filterOf(ctx), page: pageOf(ctx) }),
      handler: list,
      doc: {
        tag,
        summary: "The organization's reusable blocks, oldest first (paged; each with its current version, without the history)",
        query: [
          { name: 'status', description: 'Only blocks in this status.', schema: StringEnum(BLOCK_STATUSES) },
          { name: 'category', description: 'Only blocks of this category (exact).', schema: Type.String() },
          { name: 'tag', description: 'Only blocks with this tag (exact).', schema: Type.String() },
          { name: 'limit', description: 'Items per page, 1 to 200 (default 50).', schema: Type.Integer({ minimum: 1, maximum: 200 }) },
          { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: Type.String() },
        ],
        responses: { 200: BlockListSchema },
      },
    },
    { method: 'GET', path: one, auth: 'key', handler: get, doc: { tag, summary: 'A reusable block with its current version and every version, oldest first', responses: { 200: BlockSchema } } },
    {
      method: 'POST',
      path: BASE,
      auth: 'key',
      idempotent: true,
      preValidation: requireWriter,
      body: { mismatch: 'The request body does not match POST /reusable-blocks.', limit: BODY_LIMIT },
      handler: create,
      doc: {
        tag,
        summary: 'Create a reusable block (status DRAFT, version 1)',
        description: `The Markdown must parse without errors; \`variables\` must match \`schema\`. At most 1000 blocks per organization. ${WRITERS}`,
        body: CreateBlockSchema,
        responses: { 201: BlockSchema },
      },
    },
    {
      method: 'PATCH',
      path: one,
      auth: 'key',
      preValidation: requireWriter,
      body: { mismatch: 'The request body does not match PATCH /reusable-blocks/{blockId}.' },
      handler: update,
      doc: { tag, summary: "Change a block's name, slug, category, tags or description", description: `Content changes are new versions. ${WRITERS}`, body: UpdateBlockSchema, responses: { 200: BlockSchema } },
    },
    { method: 'DELETE', path: one, auth: 'key', preValidation: requireWriter, handler: remove, doc: { tag, summary: 'Delete a reusable block with all its versions', description: WRITERS, responses: { 204: null } } },
    {
      method: 'POST',
      path: `${one}/versions`,
      auth: 'key',
      idempotent: true,
      preValidation: requireWriter,
      body: { mismatch: 'The request body does not match POST /reusable-blocks/{blockId}/versions.', limit: BODY_LIMIT },
      handler: addVersion,
      doc: {
        tag,
        summary: 'Add a version (it becomes the current one; earlier versions never change)',
        description: `Checked like a new block's content. At most 200 versions per block. ${WRITERS}`,
        body: CreateBlockVersionSchema,
        responses: { 201: BlockSchema },
      },
    },
    {
      method: 'POST',
      path: `${one}/versions/:version/restore`,
      auth: 'key',
      preValidation: (ctx) => (requireWriter(ctx), versionOf(ctx)),
      handler: restore,
      doc: { tag, summary: "Restore a version: a new current version copying that one's title, Markdown, schema and variables, with restoredFromVersion", description: WRITERS, responses: { 201: BlockSchema } },
    },
    {
      method: 'POST',
      path: `${one}/status`,
      auth: 'key',
      preValidation: requireWriter,
      body: { mismatch: 'The request body does not match POST /reusable-blocks/{blockId}/status.' },
      handler: setStatus,
      doc: {
        tag,
        summary: "Move a block's status",
        description: `DRAFT→ACTIVE, DRAFT→ARCHIVED, ACTIVE→ARCHIVED, ARCHIVED→ACTIVE; any other move (staying put included) is 409 INVALID_TRANSITION. ${WRITERS}`,
        body: BlockStatusChangeSchema,
        responses: { 200: BlockSchema },
      },
    },
  ];
}
