// Style presets: the preset as the API shows it, its request bodies and their validation, and the merge of a preset with inline defaults.
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { DefaultsSchema, StringEnum, type Defaults } from './document-json.js';
import { validateDocument } from './document-validator.js';
import { compileSchema, formatAjvErrors } from '../kernel/schema.js';
import type { FieldError } from '../kernel/errors.js';

export const STYLE_LIMITS = {
  nameLength: 100,
  tags: 20,
  tagLength: 40,
  descriptionLength: 1000,
  categoryLength: 50,
  /** Workspace presets one organization may keep. */
  workspacePresets: 500,
} as const;

const L = STYLE_LIMITS;

/** Built-in presets are `system:<slug>`; workspace presets are UUIDs. */
export const SYSTEM_STYLE_PREFIX = 'system:';

export const STYLE_SOURCES = ['workspace', 'system'] as const;
export type StyleSource = (typeof STYLE_SOURCES)[number];
/** `GET /styles?source=` values; `all` (the default) lists both sources. */
export const STYLE_SOURCE_FILTERS = [...STYLE_SOURCES, 'all'] as const;
export type StyleSourceFilter = (typeof STYLE_SOURCE_FILTERS)[number];

const Timestamp = Type.String({ format: 'date-time' });
const Name = Type.String({ minLength: 1, maxLength: L.nameLength, pattern: '\\S', description: `Display name (1 to ${L.nameLength} chars, not only spaces).` });
const Description = Type.String({ maxLength: L.descriptionLength, description: `What the style is for. Max ${L.descriptionLength} chars.` });
const Category = Type.String({ minLength: 1, maxLength: L.categoryLength, description: `A grouping such as report, letter, invoice. Max ${L.categoryLength} chars.` });
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: L.tagLength }), { maxItems: L.tags, description: `Labels for search and filtering: at most ${L.tags}, each 1 to ${L.tagLength} chars.` });
const Definition = Type.Unsafe<Defaults>({
  ...DefaultsSchema,
  description: 'The style definition: a `defaults` object of document JSON (fonts, headings, paragraph, colors, table, header, footer, citationStyle, locale).',
});

export const StylePresetSchema = Type.Object(
  {
    id: Type.String({ description: 'A UUID for a workspace preset; `system:<slug>` for a built-in one.' }),
    source: StringEnum(STYLE_SOURCES, { description: '`workspace` (the organization\'s own) or `system` (built in).' }),
    editable: Type.Boolean({ description: 'False for system presets, which are immutable: copy one to change it.' }),
    name: Type.String(),
    isDefault: Type.Boolean({ description: 'The organization\'s preferred preset (at most one). A marker for clients; renders never apply it implicitly.' }),
    tags: Type.Array(Type.String()),
    definition: Definition,
    orgId: Type.Optional(Type.String({ description: 'Owner of a workspace preset.' })),
    userId: Type.Optional(Type.String({ description: 'Not set by this server (it has no user accounts).' })),
    description: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    previewPath: Type.Optional(Type.String({ description: 'Not set by this server; the built-in presets are pictured in docs/styles.md.' })),
    version: Type.Integer({ minimum: 1, description: '1 when created; every PATCH adds 1.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, description: 'A style preset: a named, reusable `defaults` object.' },
);
export type StylePreset = Static<typeof StylePresetSchema>;

export const StylePresetListSchema = Type.Object({ items: Type.Array(StylePresetSchema, { description: 'System presets first (catalog order), then workspace presets, oldest first.' }) });

const createFields = {
  name: Name,
  description: Type.Optional(Description),
  category: Type.Optional(Category),
  tags: Type.Optional(Tags),
  isDefault: Type.Optional(Type.Boolean({ description: 'Make this the organization\'s default preset; the previous default stops being it (default false).' })),
} satisfies TProperties;

const patchFields = {
  name: Type.Optional(Name),
  description: Type.Optional(Type.Union([Description, Type.Null()], { description: `What the style is for (max ${L.descriptionLength} chars); null removes it.` })),
  category: Type.Optional(Type.Union([Category, Type.Null()], { description: `A grouping (max ${L.categoryLength} chars); null removes it.` })),
  tags: Type.Optional(Tags),
  isDefault: Type.Optional(Type.Boolean({ description: 'true makes this the default (clearing the previous one); false unsets it.' })),
} satisfies TProperties;

export const CreateStylePresetSchema = Type.Object({ ...createFields, definition: Definition }, { additionalProperties: false, description: 'A new workspace preset.' });
export type CreateStylePreset = Static<typeof CreateStylePresetSchema>;

export const PatchStylePresetSchema = Type.Object(
  { ...patchFields, definition: Type.Optional(Type.Unsafe<Defaults>({ ...Definition, description: 'Replaces the whole definition (it is not merged into the old one).' })) },
  { additionalProperties: false, minProperties: 1, description: 'The fields to change; at least one. Each change adds 1 to `version`.' },
);
export type PatchStylePreset = Static<typeof PatchStylePresetSchema>;

export const CopyStylePresetSchema = Type.Object(
  { name: Type.Optional(Name) },
  { additionalProperties: false, description: 'Optional: the name of the copy (default: the original\'s name plus " (copy)").' },
);
export type CopyStylePreset = Static<typeof CopyStylePresetSchema>;

// ---------------------------------------------------------------- validation

/**
 * The bodies are checked in two parts: the preset's own fields against a shell schema, and
 * `definition` through the document validator, whose messages and codes the render endpoints share.
 */
const shell = (properties: TProperties, definitionRequired: boolean, options: object) =>
  compileSchema({ ...Type.Object({ ...properties, definition: definitionRequired ? Type.Unknown() : Type.Optional(Type.Unknown()) }, { additionalProperties: false }), ...options });

const checkCreate = shell(createFields, true, {});
const checkPatch = shell(patchFields, false, { minProperties: 1 });
const checkCopy = compileSchema(CopyStylePresetSchema);

export type BodyCheck<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export function validateCreateStylePreset(body: unknown): BodyCheck<CreateStylePreset> {
  return check(checkCreate, body);
}

export function validatePatchStylePreset(body: unknown): BodyCheck<PatchStylePreset> {
  return check(checkPatch, body);
}

export function validateCopyStylePreset(body: unknown): BodyCheck<CopyStylePreset> {
  return check(checkCopy, body);
}

function check<T>(validate: ReturnType<typeof compileSchema>, body: unknown): BodyCheck<T> {
  const errors = validate(body) ? [] : fieldErrors(validate.errors ?? []);
  if (isPlainObject(body) && body.definition !== undefined) errors.push(...validateStyleDefinition(body.definition));
  return errors.length ? { ok: false, errors } : { ok: true, value: body as T };
}

function fieldErrors(raw: ErrorObject[]): FieldError[] {
  // An empty string also fails its pattern; "must not be empty" says it all.
  const empty = new Set(raw.filter((e) => e.keyword === 'minLength').map((e) => e.instancePath));
  return raw.flatMap((e) => {
    const [base] = formatAjvErrors([e]);
    if (!base || (e.keyword === 'pattern' && empty.has(e.instancePath))) return [];
    if (e.keyword === 'minProperties') return [{ ...base, message: 'must change at least one field' }];
    if (e.keyword === 'pattern') return [{ ...base, message: 'must not be only spaces' }];
    if (e.keyword === 'minLength' && (e.params as { limit: number }).limit === 1) return [{ ...base, message: 'must not be empty' }];
    const limit = (e.params as { limit?: number }).limit;
    if (e.keyword === 'maxLength') return [{ ...base, message: `must be at most ${limit} characters long`, code: 'LIMIT_EXCEEDED' }];
    if (e.keyword === 'maxItems') return [{ ...base, message: `must have at most ${limit} items`, code: 'LIMIT_EXCEEDED' }];
    return [base];
  });
}

/** Checks a style definition against the `defaults` contract; error paths start with `path` (`definition.fonts.size`). */
export function validateStyleDefinition(definition: unknown, path = 'definition'): FieldError[] {
  if (!isPlainObject(definition)) return [{ path, message: 'must be an object', code: 'INVALID_FIELD' }];
  // The smallest valid document carrying the definition as its defaults: every error is then about it.
  const result = validateDocument({ document: { type: 'pdf' }, sections: [], defaults: definition });
  return result.errors.map((e) => ({ ...e, path: e.path.replace(/^defaults/, path) }));
}

// ---------------------------------------------------------------- precedence

/**
 * A style preset, then inline `defaults` over it: each sub-object is merged field by field (so
 * `{fonts: {size: 12}}` keeps the preset's font family), `headings` level by level; scalars and the
 * header/footer fields of the override win. Neither input is changed; the result shares nothing with them.
 */
export function mergeDefaults(base: Defaults | undefined, override: Defaults | undefined): Defaults {
  return deepMerge(structuredClone(base ?? {}), override ?? {}) as Defaults;
}

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || key === '__proto__') continue;
    const current = target[key];
    target[key] = isPlainObject(value) && isPlainObject(current) ? deepMerge(current, value) : structuredClone(value);
  }
  return target;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
