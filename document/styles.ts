// Style presets as the document language checks them: the request bodies validated (the definition through the
// document validator) and the merge of a preset with inline defaults.
import { Type, type TProperties } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import type { Defaults } from '../contracts/document-json.js';
import { CopyStylePresetSchema, createFields, patchFields, type CopyStylePreset, type CreateStylePreset, type PatchStylePreset } from '../contracts/styles.js';
import { compileSchema, formatAjvErrors } from '../contracts/schema.js';
import type { FieldError } from '../contracts/errors.js';
import { validateDocument } from './validator.js';

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
