// Style presets for the services and routes: one lookup for built-in and workspace presets, and resolving a stylePresetId for a render.
import type { Defaults } from '../contracts/document-json.js';
import { SYSTEM_STYLE_PREFIX, type StylePreset } from '../contracts/styles.js';
import { systemStylePreset } from '../contracts/system-styles.js';
import { HttpError } from '../contracts/errors.js';
import type { StylePresetRecord } from '../kernel/model.js';
import type { Store } from '../kernel/store/store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isSystemStyleId = (id: string): boolean => id.startsWith(SYSTEM_STYLE_PREFIX);

/** A stored workspace preset as the API shows it (unset optional fields are left out). */
export function workspaceStyleView(rec: StylePresetRecord): StylePreset {
  return {
    id: rec.id,
    source: 'workspace',
    editable: true,
    name: rec.name,
    isDefault: rec.isDefault,
    tags: rec.tags,
    definition: rec.definition,
    orgId: rec.orgId,
    ...(rec.description !== null ? { description: rec.description } : {}),
    ...(rec.category !== null ? { category: rec.category } : {}),
    version: rec.version,
    createdAt: rec.createdAt,
    updatedAt: rec.updatedAt,
  };
}

/** A built-in preset, or the organization's own; undefined for unknown ids and other organizations' presets. */
export async function findStylePreset(store: Store, orgId: string, id: string): Promise<StylePreset | undefined> {
  if (isSystemStyleId(id)) return systemStylePreset(id);
  if (!UUID.test(id)) return undefined;
  const rec = await store.getStylePreset(orgId, id);
  return rec && workspaceStyleView(rec);
}

/**
 * The definition a render starts from when the request names `stylePresetId`; the request's inline
 * `defaults` then go over it (`mergeDefaults` in contracts/styles.ts). An unknown id, or another
 * organization's, is a 400 at `path`: it is a field of the request, not the resource addressed.
 */
export async function resolveStyle(store: Store, orgId: string, stylePresetId: string, path = 'stylePresetId'): Promise<Defaults> {
  const preset = await findStylePreset(store, orgId, stylePresetId);
  if (!preset) {
    throw new HttpError('VALIDATION_FAILED', `Style preset "${stylePresetId}" does not exist in this organization; list the usable ones with GET /styles.`, [
      { path, message: 'names no style preset of this organization or the built-in catalog (GET /styles lists them)', code: 'STYLE_NOT_FOUND' },
    ]);
  }
  return preset.definition;
}
