// Style presets: the built-in catalog and the organization's own presets (list, read, create, change, delete, copy).
import { randomUUID } from 'node:crypto';
import { HttpError, type FieldError } from '../../contracts/errors.js';
import { findStylePreset, isSystemStyleId, workspaceStyleView } from '../../services/styles.js';
import type { StylePresetRecord } from '../../kernel/model.js';
import type { StylePresetPatch } from '../../kernel/store/store.js';
import {
  CopyStylePresetSchema,
  CreateStylePresetSchema,
  PatchStylePresetSchema,
  STYLE_LIMITS,
  STYLE_SOURCE_FILTERS,
  StylePresetListSchema,
  StylePresetSchema,
  type CopyStylePreset,
  type CreateStylePreset,
  type PatchStylePreset,
  type StylePreset,
  type StyleSourceFilter,
} from '../../contracts/styles.js';
import { StringEnum } from '../../contracts/document-json.js';
import { validateCopyStylePreset, validateCreateStylePreset, validatePatchStylePreset, type BodyCheck } from '../../document/styles.js';
import { systemStylePresets } from '../../contracts/system-styles.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';

/** A preset is a few KiB at most (every field of `defaults` is bounded); this leaves room for whitespace. */
const BODY_LIMIT = 64 * 1024;
const location = (id: string) => `${API_PREFIX}/styles/${encodeURIComponent(id)}`;

function sourceOf(ctx: RouteContext): StyleSourceFilter {
  const v = ctx.query.get('source') ?? 'all';
  if (!(STYLE_SOURCE_FILTERS as readonly string[]).includes(v)) {
    throw new HttpError('VALIDATION_FAILED', `source must be ${STYLE_SOURCE_FILTERS.join(', ')}, not "${v}".`, [
      { path: 'query.source', message: `must be one of ${STYLE_SOURCE_FILTERS.join(', ')}`, code: 'INVALID_FIELD' },
    ]);
  }
  return v as StyleSourceFilter;
}

function valid<T>(result: BodyCheck<T>, what: string): T {
  if (!result.ok) throw new HttpError('VALIDATION_FAILED', `The body does not describe ${what}; see errors.`, result.errors);
  return result.value;
}

async function lookup(ctx: RouteContext): Promise<StylePreset> {
  const id = ctx.params.styleId!;
  const preset = await findStylePreset(ctx.kernel.store, ctx.principal!.orgId, id);
  if (!preset) throw new HttpError('NOT_FOUND', `Style preset ${id} was not found (unknown, or another organization's); GET /styles lists the usable ones.`);
  return preset;
}

/** The organization's own preset for a change; a system preset is immutable (403), whatever the body says. */
async function ownPreset(ctx: RouteContext, verb: string): Promise<StylePreset> {
  const preset = await lookup(ctx);
  if (preset.source === 'system') {
    throw new HttpError(
      'FORBIDDEN',
      `${preset.id} is a built-in style preset and cannot be ${verb}; copy it with POST /styles/${preset.id}/copy and change the copy.`,
    );
  }
  return preset;
}

/** Workspace presets an organization may keep is bounded, so that no client can grow the store without end. */
async function checkRoom(ctx: RouteContext): Promise<void> {
  const count = (await ctx.kernel.store.listStylePresets(ctx.principal!.orgId)).length;
  if (count >= STYLE_LIMITS.workspacePresets) {
    const errors: FieldError[] = [{ path: '(body)', message: `the organization already has ${count} style presets, the most allowed`, code: 'LIMIT_EXCEEDED' }];
    throw new HttpError('VALIDATION_FAILED', `An organization keeps at most ${STYLE_LIMITS.workspacePresets} style presets; delete unused ones first.`, errors);
  }
}

async function list(ctx: RouteContext): Promise<void> {
  const source = sourceOf(ctx);
  const items: StylePreset[] = [];
  if (source !== 'workspace') items.push(...systemStylePresets());
  if (source !== 'system') items.push(...(await ctx.kernel.store.listStylePresets(ctx.principal!.orgId)).map(workspaceStyleView));
  sendJson(ctx.res, 200, { items });
}

async function get(ctx: RouteContext): Promise<void> {
  sendJson(ctx.res, 200, await lookup(ctx));
}

async function create(ctx: RouteContext<CreateStylePreset>): Promise<void> {
  const body = ctx.body;
  await checkRoom(ctx);
  const now = ctx.kernel.clock.now().toISOString();
  const rec: StylePresetRecord = {
    id: randomUUID(),
    orgId: ctx.principal!.orgId,
    name: body.name,
    description: body.description ?? null,
    category: body.category ?? null,
    tags: body.tags ?? [],
    isDefault: body.isDefault ?? false,
    definition: body.definition,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.kernel.store.createStylePreset(rec);
  ctx.log.info({ styleId: rec.id }, 'style preset created');
  sendJson(ctx.res, 201, workspaceStyleView(rec), { Location: location(rec.id) });
}

async function update(ctx: RouteContext<PatchStylePreset>, preset: StylePreset): Promise<void> {
  const body = ctx.body;
  const patch: StylePresetPatch = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.description !== undefined) patch.description = body.description;
  if (body.category !== undefined) patch.category = body.category;
  if (body.tags !== undefined) patch.tags = body.tags;
  if (body.isDefault !== undefined) patch.isDefault = body.isDefault;
  if (body.definition !== undefined) patch.definition = body.definition;
  const orgId = ctx.principal!.orgId;
  const rec = await ctx.kernel.store.updateStylePreset(orgId, preset.id, patch, ctx.kernel.clock.now().toISOString());
  // Deleted by a concurrent request between the lookup and the update.
  if (!rec) throw new HttpError('NOT_FOUND', `Style preset ${preset.id} was not found (it was deleted meanwhile).`);
  sendJson(ctx.res, 200, workspaceStyleView(rec));
}

async function remove(ctx: RouteContext): Promise<void> {
  const preset = await ownPreset(ctx, 'deleted');
  if (!(await ctx.kernel.store.deleteStylePreset(ctx.principal!.orgId, preset.id))) {
    throw new HttpError('NOT_FOUND', `Style preset ${preset.id} was not found (it was deleted meanwhile).`);
  }
  ctx.res.statusCode = 204;
  ctx.res.end();
}

async function copy(ctx: RouteContext<CopyStylePreset>, original: StylePreset): Promise<void> {
  const body = ctx.body;
  await checkRoom(ctx);
  const now = ctx.kernel.clock.now().toISOString();
  const suffix = ' (copy)';
  const rec: StylePresetRecord = {
    id: randomUUID(),
    orgId: ctx.principal!.orgId,
    name: body.name ?? original.name.slice(0, STYLE_LIMITS.nameLength - suffix.length) + suffix,
    description: original.description ?? null,
    category: original.category ?? null,
    tags: [...original.tags],
    // The copy is independent: a later change of either preset leaves the other as it is.
    isDefault: false,
    definition: structuredClone(original.definition),
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.kernel.store.createStylePreset(rec);
  ctx.log.info({ styleId: rec.id, copiedFrom: original.id }, 'style preset copied');
  sendJson(ctx.res, 201, workspaceStyleView(rec), { Location: location(rec.id) });
}

const WRITE_NOTE = 'Any API key of the organization may do this (member, admin or owner).';

export function styleRoutes(): RouteDefinition[] {
  const path = `${API_PREFIX}/styles`;
  const one = `${path}/:styleId`;
  return [
    {
      method: 'GET',
      path,
      auth: 'key',
      handler: list,
      doc: {
        tag: 'Styles',
        summary: 'List style presets: the built-in catalog and the organization\'s own',
        description: 'System presets come first in catalog order, then workspace presets, oldest first. Any key of the organization may read them.',
        query: [{ name: 'source', description: '`workspace`, `system` or `all` (default).', schema: StringEnum(STYLE_SOURCE_FILTERS, { default: 'all' }) }],
        responses: { 200: StylePresetListSchema },
      },
    },
    {
      method: 'GET',
      path: one,
      auth: 'key',
      handler: get,
      doc: { tag: 'Styles', summary: 'A style preset (`system:<slug>` for a built-in one, a UUID for the organization\'s own)', responses: { 200: StylePresetSchema } },
    },
    {
      method: 'POST',
      path,
      auth: 'key',
      idempotent: true,
      body: { check: (b) => valid(validateCreateStylePreset(b), 'a style preset'), limit: BODY_LIMIT },
      handler: create,
      doc: {
        tag: 'Styles',
        summary: 'Create a workspace style preset',
        description:
          '`definition` is a `defaults` object of document JSON and is validated like one (errors at `definition.…`). ' +
          `\`isDefault: true\` makes it the organization's only default. At most ${STYLE_LIMITS.workspacePresets} presets per organization. ${WRITE_NOTE}`,
        body: CreateStylePresetSchema,
        responses: { 201: StylePresetSchema },
      },
    },
    {
      method: 'PATCH',
      path: one,
      auth: 'key',
      // The preset is looked up first: a system preset answers 403 whatever the body says.
      preValidation: (ctx) => ownPreset(ctx, 'changed'),
      body: { check: (b) => valid(validatePatchStylePreset(b), 'a change of a style preset'), limit: BODY_LIMIT },
      handler: update,
      doc: {
        tag: 'Styles',
        summary: 'Change a workspace style preset (adds 1 to its version)',
        description: `Fields given replace the stored ones; \`definition\` is replaced whole. A system preset answers 403 FORBIDDEN: copy it instead. ${WRITE_NOTE}`,
        body: PatchStylePresetSchema,
        responses: { 200: StylePresetSchema },
      },
    },
    {
      method: 'DELETE',
      path: one,
      auth: 'key',
      handler: remove,
      doc: { tag: 'Styles', summary: 'Delete a workspace style preset', description: `A system preset answers 403 FORBIDDEN. ${WRITE_NOTE}`, responses: { 204: null } },
    },
    {
      method: 'POST',
      path: `${one}/copy`,
      auth: 'key',
      idempotent: true,
      preValidation: lookup,
      // The body is optional: no body (or an empty one) means "default name".
      body: { check: (b) => valid(validateCopyStylePreset(b), 'a copy of a style preset'), limit: BODY_LIMIT, optional: true },
      handler: copy,
      doc: {
        tag: 'Styles',
        summary: 'Copy a system or workspace preset into a new, independent workspace preset',
        description: `The body is optional; \`name\` defaults to the original's name plus " (copy)". The copy starts at version 1 and is not the default. ${WRITE_NOTE}`,
        body: CopyStylePresetSchema,
        responses: { 201: StylePresetSchema },
      },
    },
  ];
}
