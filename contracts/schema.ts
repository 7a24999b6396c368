// One ajv instance for every contract: compiled once, errors turned into {path, message, code}.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { FieldError } from './errors.js';

// ajv-formats is CommonJS; under NodeNext its default export sits one level down.
const addFormats = (addFormatsModule as unknown as { default: (a: Ajv) => Ajv }).default;

// verbose: errors carry their schema, so a `patternHint` can replace ajv's "must match pattern …".
export const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: true, verbose: true });
addFormats(ajv);

export function compileSchema<T>(schema: TSchema | object): ValidateFunction<T> {
  return ajv.compile<T>(schema as object);
}

/**
 * A JSON Schema a client sent (a reusable block's `schema`): compiled with the same ajv, then dropped from its cache
 * so that client schemas neither pile up in memory nor meet each other. The caller has bounded its size and refused
 * `$id` and non-local `$ref`; a schema ajv cannot compile throws.
 */
export function compileClientSchema(schema: object): ValidateFunction {
  const validate = ajv.compile(schema);
  ajv.removeSchema(schema);
  return validate;
}

/** ajv's `/a/0/b` instance paths become `a[0].b`; the failing keyword names what is allowed. */
export function formatAjvErrors(errors: ErrorObject[] | null | undefined, root = ''): FieldError[] {
  if (!errors) return [];
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let p = pointerToPath(e.instancePath, root);
    let message = e.message ?? 'is invalid';
    switch (e.keyword) {
      case 'required':
        p = joinPath(p, String((e.params as { missingProperty: string }).missingProperty));
        message = 'is required';
        break;
      case 'additionalProperties':
        p = joinPath(p, String((e.params as { additionalProperty: string }).additionalProperty));
        message = 'is not an allowed field';
        break;
      case 'enum':
        message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
        break;
      case 'const':
        message = `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
        break;
      case 'pattern': {
        // A contract may say in words what its pattern allows: `Type.String({pattern, patternHint: 'must be …'})`.
        const hint = (e.parentSchema as { patternHint?: unknown } | undefined)?.patternHint;
        if (typeof hint === 'string') message = hint;
        break;
      }
      case 'anyOf':
      case 'oneOf':
        message = 'does not match any allowed form';
        break;
    }
    const key = `${p}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: p || '(body)', message, code: 'INVALID_FIELD' });
  }
  // A failed anyOf also reports every branch; keep the branch errors only when nothing more specific exists.
  return out;
}

function pointerToPath(pointer: string, root: string): string {
  let p = root;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    p = /^\d+$/.test(seg) ? `${p}[${seg}]` : joinPath(p, seg);
  }
  return p;
}

function joinPath(base: string, key: string): string {
  return base ? `${base}.${key}` : key;
}
