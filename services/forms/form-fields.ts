// A form's fields: one per variable of the document (and per variable its text uses without declaring), derived from
// the variable's value, then changed by the owner's overrides, each checked with a 400 naming `fields[i].…`.
import safeRegex from 'safe-regex2';
import { HttpError, errorSummary, type FieldError } from '../../contracts/errors.js';
import { MAX_PATTERN_TEXT, type FieldOverride } from '../../contracts/forms.js';
import type { FormChoice, FormColumn, FormField, FormFieldKind, FormValue } from '../../kernel/model.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What a variable's value is, for the kinds its field may take (a referenced, undeclared variable is text). */
type Base = 'string' | 'number' | 'image' | 'list' | 'table';

/** The kinds a field may take, by its variable's value. */
const KINDS_OF: Record<Base, readonly FormFieldKind[]> = {
  string: ['text', 'textarea', 'date', 'number', 'boolean', 'choice'],
  number: ['number', 'text', 'choice'],
  image: ['image'],
  list: ['list'],
  table: ['table'],
};

function baseOf(value: unknown): Base {
  if (typeof value === 'number') return 'number';
  if (isObj(value) && (value.type === 'image' || value.type === 'list' || value.type === 'table')) return value.type;
  return 'string';
}

/** `invoice_number` → "Invoice number", `dueDate` → "Due date"; words in capitals (VAT) stay as they are. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter(Boolean)
    .map((w) => (w === w.toUpperCase() ? w : w.toLowerCase()));
  const text = words.join(' ') || name;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function blank(name: string, kind: FormFieldKind): FormField {
  return {
    name,
    kind,
    label: humanize(name),
    help: null,
    placeholder: null,
    required: false,
    min: null,
    max: null,
    minLength: null,
    maxLength: null,
    pattern: null,
    patternMessage: null,
    choices: null,
    columns: null,
    minItems: null,
    maxItems: null,
    trueText: null,
    falseText: null,
    defaultValue: null,
  };
}

/** The columns of a table variable: `columns`, else the first row's keys; a column is a number when the first row's value is one. */
function tableColumns(table: Obj): FormColumn[] {
  const rows = Array.isArray(table.rows) ? table.rows.filter(isObj) : [];
  const first = rows[0] ?? {};
  const names = Array.isArray(table.columns) ? table.columns.filter((c): c is string => typeof c === 'string') : Object.keys(first);
  return names.map((name) => ({ name, label: name, kind: typeof first[name] === 'number' ? 'number' : 'text', required: false }));
}

/** The field a variable's value gives before any override. */
function derive(name: string, value: unknown): FormField {
  if (typeof value === 'number') return { ...blank(name, 'number'), defaultValue: value };
  if (typeof value === 'string') {
    const kind: FormFieldKind = validDate(value) ? 'date' : value.includes('\n') || value.length > 200 ? 'textarea' : 'text';
    return { ...blank(name, kind), defaultValue: value };
  }
  if (isObj(value) && value.type === 'image') return blank(name, 'image');
  if (isObj(value) && value.type === 'list') {
    const items = Array.isArray(value.items) ? value.items.filter((i): i is string => typeof i === 'string') : [];
    return { ...blank(name, 'list'), defaultValue: items };
  }
  if (isObj(value) && value.type === 'table') {
    const rows = Array.isArray(value.rows) ? (value.rows.filter(isObj) as Array<Record<string, string | number>>) : [];
    return { ...blank(name, 'table'), columns: tableColumns(value), defaultValue: rows };
  }
  return blank(name, 'text');
}

/**
 * The fields of a document before overrides: its declared variables in order, then the names its text references but
 * does not declare (text fields without a default).
 */
export function deriveFields(variables: Obj, undeclared: readonly string[]): FormField[] {
  const fields = Object.entries(variables).map(([name, value]) => derive(name, value));
  for (const name of undeclared) if (!Object.hasOwn(variables, name)) fields.push(blank(name, 'text'));
  return fields;
}

/** A field's default carried over to another kind (null when it has no meaning there). */
function convertDefault(value: FormValue | null, field: FormField): FormValue | null {
  if (value === null || typeof value === 'object') return field.kind === 'list' || field.kind === 'table' ? value : null;
  switch (field.kind) {
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? n : null;
    }
    case 'boolean':
      return value === (field.trueText ?? 'Yes');
    case 'date':
      return typeof value === 'string' && validDate(value) ? value : null;
    case 'choice':
      return field.choices?.some((c) => c.value === String(value)) ? String(value) : null;
    default:
      return String(value);
  }
}

/** Which overrides apply to which kinds: any other use is a 400 naming it. */
const APPLIES: Array<{ keys: Array<keyof FieldOverride>; kinds: readonly FormFieldKind[]; what: string }> = [
  { keys: ['min', 'max'], kinds: ['number', 'date'], what: 'number and date fields' },
  { keys: ['minLength', 'maxLength', 'pattern', 'patternMessage'], kinds: ['text', 'textarea'], what: 'text and textarea fields' },
  { keys: ['choices'], kinds: ['choice'], what: 'choice fields' },
  { keys: ['columns'], kinds: ['table'], what: 'table fields' },
  { keys: ['minItems', 'maxItems'], kinds: ['list', 'table'], what: 'list and table fields' },
  { keys: ['trueText', 'falseText'], kinds: ['boolean'], what: 'boolean fields' },
];

/** The kind-specific settings a field loses when its kind changes. */
const KIND_SETTINGS = { min: null, max: null, minLength: null, maxLength: null, pattern: null, patternMessage: null, choices: null, minItems: null, maxItems: null, trueText: null, falseText: null } as const;

/** A pattern as the page runs it: anchored, with the u flag; null when it does not compile. */
export function compilePattern(pattern: string): RegExp | null {
  try {
    return new RegExp(`^(?:${pattern})$`, 'u');
  } catch {
    return null;
  }
}

/**
 * The form's fields: the derived ones with `overrides` applied by name (`include: false` leaves a field out). Every
 * problem is collected and answered at once (400 VALIDATION_FAILED, paths `fields[i].…`).
 */
export function formFields(derived: FormField[], overrides: readonly FieldOverride[], variables: Obj): FormField[] {
  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message, code: 'INVALID_FIELD' });
  const byName = new Map(derived.map((f) => [f.name, f]));
  const seen = new Set<string>();
  const left = new Set<string>();
  overrides.forEach((o, i) => {
    const at = `fields[${i}]`;
    const current = byName.get(o.name);
    if (!current) return fail(`${at}.name`, `"${o.name}" is not a variable of the document; its variables are ${[...byName.keys()].join(', ') || 'none'}`);
    if (seen.has(o.name)) return fail(`${at}.name`, `"${o.name}" is overridden twice; give each variable once`);
    seen.add(o.name);
    if (o.include === false) return void left.add(o.name);
    const next = applyOverride(current, o, baseOf(variables[o.name]), at, fail);
    if (next) byName.set(o.name, next);
  });
  if (errors.length) throw new HttpError('VALIDATION_FAILED', `The form's fields cannot be used: ${errorSummary(errors)}.`, errors);
  return [...byName.values()].filter((f) => !left.has(f.name));
}

function applyOverride(current: FormField, o: FieldOverride, base: Base, at: string, fail: (path: string, message: string) => void): FormField | undefined {
  let failed = false;
  const error = (key: string, message: string) => {
    failed = true;
    fail(`${at}.${key}`, message);
  };
  const kind = o.kind ?? current.kind;
  if (!KINDS_OF[base].includes(kind)) {
    error('kind', `a ${base === 'string' ? 'text' : base} variable's field may be ${KINDS_OF[base].join(', ')}, not ${kind}`);
    return undefined;
  }
  for (const rule of APPLIES) {
    for (const key of rule.keys) if (o[key] !== undefined && o[key] !== null && !rule.kinds.includes(kind)) error(key, `applies to ${rule.what} only; this field is ${kind}`);
  }
  const field: FormField = kind === current.kind ? { ...current } : { ...current, ...KIND_SETTINGS, kind };
  if (o.label !== undefined) field.label = o.label;
  if (o.help !== undefined) field.help = o.help;
  if (o.placeholder !== undefined) field.placeholder = o.placeholder;
  if (o.required !== undefined) field.required = o.required;
  if (o.trueText !== undefined) field.trueText = o.trueText;
  if (o.falseText !== undefined) field.falseText = o.falseText;
  if (o.patternMessage !== undefined) field.patternMessage = o.patternMessage;
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems'] as const) if (o[key] !== undefined) field[key] = o[key];
  for (const key of ['min', 'max'] as const) {
    const v = o[key];
    if (v === undefined) continue;
    if (v !== null && kind === 'number' && typeof v !== 'number') error(key, 'must be a number for a number field');
    else if (v !== null && kind === 'date' && (typeof v !== 'string' || !validDate(v))) error(key, 'must be a date YYYY-MM-DD for a date field');
    else field[key] = v;
  }
  if (field.min !== null && field.max !== null && field.min > field.max) error('max', `must not be less than min (${field.min})`);
  if (field.minLength !== null && field.maxLength !== null && field.minLength > field.maxLength) error('maxLength', `must not be less than minLength (${field.minLength})`);
  if (field.minItems !== null && field.maxItems !== null && field.minItems > field.maxItems) error('maxItems', `must not be less than minItems (${field.minItems})`);
  if (o.choices) {
    const values = o.choices.map((c) => c.value);
    const dup = values.find((v, i) => values.indexOf(v) !== i);
    if (dup !== undefined) error('choices', `offers "${dup}" twice; each value once`);
    field.choices = o.choices.map((c): FormChoice => ({ value: c.value, label: c.label ?? c.value }));
  }
  if (kind === 'choice' && !field.choices?.length) error('choices', 'a choice field needs choices: [{value, label?}, …]');
  if (o.columns && kind === 'table') field.columns = overrideColumns(field.columns ?? [], o.columns, error);
  if (o.pattern !== undefined) field.pattern = o.pattern;
  if (field.pattern !== null) {
    const re = compilePattern(field.pattern);
    if (!re) error('pattern', 'is not a regular expression (JavaScript syntax, u flag)');
    else if (!safeRegex(re)) error('pattern', 'can take exponential time on some texts (nested or overlapping repetition such as (a+)+); write it without nested quantifiers');
    field.maxLength ??= MAX_PATTERN_TEXT;
    if (field.maxLength > MAX_PATTERN_TEXT) error('maxLength', `must be at most ${MAX_PATTERN_TEXT} for a field with a pattern`);
  }
  if (failed) return undefined;
  if (kind !== current.kind) field.defaultValue = convertDefault(current.defaultValue, field);
  else if (kind === 'choice' || kind === 'boolean') field.defaultValue = convertDefault(current.defaultValue, field);
  return field;
}

function overrideColumns(columns: FormColumn[], overrides: NonNullable<FieldOverride['columns']>, error: (key: string, message: string) => void): FormColumn[] {
  const out = columns.map((c) => ({ ...c }));
  overrides.forEach((o, j) => {
    const col = out.find((c) => c.name === o.name);
    if (!col) return error(`columns[${j}].name`, `"${o.name}" is not a column of the table; its columns are ${columns.map((c) => c.name).join(', ') || 'none'}`);
    if (o.label !== undefined) col.label = o.label;
    if (o.kind !== undefined) col.kind = o.kind;
    if (o.required !== undefined) col.required = o.required;
  });
  return out;
}

/** `YYYY-MM-DD` naming a day of the calendar (not 2026-02-30). */
function validDate(s: string): boolean {
  const t = Date.parse(`${s}T00:00:00Z`);
  return DATE.test(s) && !Number.isNaN(t) && new Date(t).toISOString().startsWith(s);
}
