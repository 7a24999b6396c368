// A public form's submission: the raw inputs (name → texts, and files) read into typed values by each field's kind and
// checked against the field's rules; every problem is reported under the input's own name, in the form's locale.
import { imageSize } from 'image-size';
import { HttpError } from '../../contracts/errors.js';
import { checkImage, type ImageLimits } from '../../engines/image/image-check.js';
import type { FormColumn, FormField, FormRecord, FormValue } from '../../kernel/model.js';
import { valueMessage, type ValueMessageKey } from './form-value-messages.js';
import type { FormUpload } from './form-service.js';

/** One uploaded file of a submission, as the multipart reader kept it (an empty file input sends no bytes and no name). */
export interface RawFile {
  bytes: Buffer;
  filename: string;
}

/** What the browser sent: every text input by name (a name may repeat), and the files by input name. */
export interface RawSubmission {
  fields: Map<string, string[]>;
  files: Map<string, RawFile[]>;
}


/** One problem: `name` is the input it belongs to (`items[1][qty]`, or the field's own name), `field` the form field. */
export interface FieldProblem {
  name: string;
  field: string;
  message: string;
}

export interface CheckedSubmission {
  /** The valid values by field name (images not among them; missing non-required fields left out). */
  values: Record<string, FormValue>;
  /** The valid images by field name (checked: what FormService.submit takes). */
  uploads: Record<string, FormUpload>;
  /** Empty when the submission may be stored. */
  errors: FieldProblem[];
}

/** The largest image a form takes (the brief's 10 MB; the multipart reader stops at the same figure). */
export const MAX_FORM_IMAGE_BYTES = 10 * 1000 * 1000;
/** Text limits when the owner set none: one line, and a multi-line text. */
export const DEFAULT_MAX_LENGTH = { text: 2000, textarea: 20_000 } as const;
/** List items and table rows when the owner set no maxItems. */
export const DEFAULT_MAX_ITEMS = { list: 500, table: 200 } as const;
/** The image types a form takes (SVG is refused: it is a document, not a picture). */
export const FORM_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

type Form = Pick<FormRecord, 'fields' | 'locale' | 'labels'>;

/** The first text sent under `name` ('' when none). */
export function rawValue(raw: RawSubmission, name: string): string {
  return raw.fields.get(name)?.[0] ?? '';
}

/** A table field's rows as sent: each row's index (from its inputs' names) and its cells by column, in index order. */
export function rawTableRows(raw: RawSubmission, field: Pick<FormField, 'name' | 'columns'>): Array<{ index: number; cells: Record<string, string> }> {
  const columns = new Set((field.columns ?? []).map((c) => c.name));
  const prefix = `${field.name}[`;
  const rows = new Map<number, Record<string, string>>();
  for (const [name, values] of raw.fields) {
    if (!name.startsWith(prefix)) continue;
    const m = /^\[(\d{1,4})\]\[([^\]]+)\]$/.exec(name.slice(field.name.length));
    if (!m || !columns.has(m[2]!)) continue;
    const index = Number(m[1]);
    const row = rows.get(index) ?? {};
    row[m[2]!] = values[0] ?? '';
    rows.set(index, row);
  }
  return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([index, cells]) => ({ index, cells }));
}

/** The name of a table cell's input. */
export function cellName(field: string, index: number, column: string): string {
  return `${field}[${index}][${column}]`;
}

const patterns = new Map<string, RegExp | null>();

/** The owner's pattern as the whole value must match it (`^(?:…)$`, `u` flag); null when it does not compile. */
function anchored(pattern: string): RegExp | null {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(`^(?:${pattern})$`, 'u');
    } catch {
      re = null;
    }
    if (patterns.size > 1000) patterns.clear();
    patterns.set(pattern, re);
  }
  return re;
}

const length = (s: string) => [...s].length;

/** A decimal number as people type it: `12`, `-3.5`, `3,5` (a decimal comma), nothing else. */
export function parseNumber(text: string): number | null {
  const s = text.trim();
  if (!/^[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)$/.test(s)) return null;
  const n = Number(s.replace(',', '.'));
  return Number.isFinite(n) ? n : null;
}

/** A calendar date written YYYY-MM-DD that exists (no 2026-02-30). */
export function isDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

class Problems {
  readonly list: FieldProblem[] = [];
  constructor(readonly form: Form) {}
  add(field: FormField, name: string, key: ValueMessageKey, params: Record<string, string | number> = {}, label = field.label): void {
    this.list.push({ name, field: field.name, message: valueMessage(this.form, key, { label, ...params }) });
  }
  custom(field: FormField, name: string, message: string): void {
    this.list.push({ name, field: field.name, message });
  }
}

/** A text-like value's problems (length, pattern), or none; `label` names it in the messages. */
function textProblem(field: FormField, value: string, name: string, problems: Problems, label = field.label): boolean {
  const max = field.maxLength ?? (field.kind === 'textarea' ? DEFAULT_MAX_LENGTH.textarea : DEFAULT_MAX_LENGTH.text);
  if (field.minLength !== null && length(value) < field.minLength) return problems.add(field, name, 'error.tooShort', { min: field.minLength }, label), true;
  if (length(value) > max) return problems.add(field, name, 'error.tooLong', { max }, label), true;
  if (field.pattern) {
    const re = anchored(field.pattern);
    if (re && !re.test(value)) {
      if (field.patternMessage) problems.custom(field, name, field.patternMessage);
      else problems.add(field, name, 'error.pattern', {}, label);
      return true;
    }
  }
  return false;
}

function numberValue(field: FormField, text: string, name: string, problems: Problems, label = field.label): number | undefined {
  const n = parseNumber(text);
  if (n === null) return problems.add(field, name, 'error.number', {}, label), undefined;
  if (field.min !== null && n < Number(field.min)) return problems.add(field, name, 'error.numberMin', { min: field.min }, label), undefined;
  if (field.max !== null && n > Number(field.max)) return problems.add(field, name, 'error.numberMax', { max: field.max }, label), undefined;
  return n;
}

function dateValue(field: FormField, text: string, name: string, problems: Problems, label = field.label, bounded = true): string | undefined {
  if (!isDate(text)) return problems.add(field, name, 'error.date', {}, label), undefined;
  if (bounded && typeof field.min === 'string' && text < field.min) return problems.add(field, name, 'error.dateMin', { min: field.min }, label), undefined;
  if (bounded && typeof field.max === 'string' && text > field.max) return problems.add(field, name, 'error.dateMax', { max: field.max }, label), undefined;
  return text;
}

function tableValue(field: FormField, raw: RawSubmission, problems: Problems): Array<Record<string, string | number>> | undefined {
  const columns: FormColumn[] = field.columns ?? [];
  const rows = rawTableRows(raw, field);
  const value: Array<Record<string, string | number>> = [];
  let bad = false;
  rows.forEach(({ index, cells }, position) => {
    if (columns.every((c) => !(cells[c.name] ?? '').trim())) return;
    const row: Record<string, string | number> = {};
    for (const column of columns) {
      const name = cellName(field.name, index, column.name);
      const text = (cells[column.name] ?? '').trim();
      const label = valueMessage(problems.form, 'error.cell', { label: field.label, row: position + 1, column: column.label });
      if (!text) {
        if (column.required) {
          problems.add(field, name, 'error.required', {}, label);
          bad = true;
        }
        row[column.name] = '';
        continue;
      }
      const cellField: FormField = { ...field, kind: column.kind, min: null, max: null, minLength: null, maxLength: null, pattern: null };
      const cell = column.kind === 'number' ? numberValue(cellField, text, name, problems, label) : column.kind === 'date' ? dateValue(cellField, text, name, problems, label, false) : textProblem(cellField, text, name, problems, label) ? undefined : text;
      if (cell === undefined) bad = true;
      else row[column.name] = cell;
    }
    value.push(row);
  });
  if (bad) return undefined;
  const max = field.maxItems ?? DEFAULT_MAX_ITEMS.table;
  if (value.length > max) return problems.add(field, field.name, 'error.manyRows', { max }), undefined;
  const min = field.minItems ?? (field.required ? 1 : 0);
  if (value.length === 0 && min === 0) return undefined;
  if (value.length < min) return problems.add(field, field.name, value.length === 0 && field.required ? 'error.required' : 'error.fewRows', { min }), undefined;
  return value;
}

function listValue(field: FormField, text: string, problems: Problems): string[] | undefined {
  const items = text.split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
  const min = field.minItems ?? (field.required ? 1 : 0);
  if (items.length === 0 && min === 0) return undefined;
  if (items.length === 0 && field.required) return problems.add(field, field.name, 'error.required'), undefined;
  if (items.length < min) return problems.add(field, field.name, 'error.fewItems', { min }), undefined;
  const max = field.maxItems ?? DEFAULT_MAX_ITEMS.list;
  if (items.length > max) return problems.add(field, field.name, 'error.manyItems', { max }), undefined;
  const maxLength = field.maxLength ?? DEFAULT_MAX_LENGTH.text;
  if (items.some((item) => length(item) > maxLength)) return problems.add(field, field.name, 'error.tooLong', { max: maxLength }), undefined;
  return items;
}

/** An uploaded image, typed by its bytes (never its name or the browser's word), within the size and pixel limits. */
async function imageValue(field: FormField, file: RawFile, limits: ImageLimits, problems: Problems): Promise<FormUpload | undefined> {
  if (file.bytes.length > MAX_FORM_IMAGE_BYTES) return problems.add(field, field.name, 'error.imageSize', { max: MAX_FORM_IMAGE_BYTES / 1e6 }), undefined;
  try {
    const checked = await checkImage(file.bytes, limits);
    if (!(FORM_IMAGE_TYPES as readonly string[]).includes(checked.mimeType)) return problems.add(field, field.name, 'error.imageType'), undefined;
    return { bytes: file.bytes, mimeType: checked.mimeType, filename: file.filename };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    const code = err.errors?.[0]?.code;
    if (code === 'LIMIT_EXCEEDED') {
      const size = imageSize(file.bytes);
      return problems.add(field, field.name, 'error.imagePixels', { width: size.width, height: size.height }), undefined;
    }
    if (code === 'INVALID_IMAGE') return problems.add(field, field.name, 'error.imageDamaged'), undefined;
    return problems.add(field, field.name, 'error.imageType'), undefined;
  }
}

/**
 * Reads and checks a submission against the form's fields. A field's value is left out when it is missing (not
 * required) or wrong (with a problem); so the valid part of a wrong submission can still be previewed.
 */
export async function checkSubmission(form: Form, raw: RawSubmission, limits: ImageLimits): Promise<CheckedSubmission> {
  const problems = new Problems(form);
  const values: Record<string, FormValue> = {};
  const uploads: Record<string, FormUpload> = {};
  for (const field of form.fields) {
    const name = field.name;
    switch (field.kind) {
      case 'text':
      case 'textarea': {
        const text = field.kind === 'text' ? rawValue(raw, name).trim() : rawValue(raw, name).replace(/\r\n?/g, '\n').replace(/\s+$/, '');
        if (!text.trim()) {
          if (field.required) problems.add(field, name, 'error.required');
        } else if (!textProblem(field, text, name, problems)) values[name] = text;
        break;
      }
      case 'number': {
        const text = rawValue(raw, name).trim();
        if (!text) {
          if (field.required) problems.add(field, name, 'error.required');
          break;
        }
        const n = numberValue(field, text, name, problems);
        if (n !== undefined) values[name] = n;
        break;
      }
      case 'date': {
        const text = rawValue(raw, name).trim();
        if (!text) {
          if (field.required) problems.add(field, name, 'error.required');
          break;
        }
        const d = dateValue(field, text, name, problems);
        if (d !== undefined) values[name] = d;
        break;
      }
      case 'boolean': {
        const checked = raw.fields.has(name) && !['', 'false', 'off', '0'].includes(rawValue(raw, name));
        if (field.required && !checked) problems.add(field, name, 'error.requiredCheck');
        else values[name] = checked;
        break;
      }
      case 'choice': {
        const text = rawValue(raw, name);
        if (!text) {
          if (field.required) problems.add(field, name, 'error.requiredChoice');
        } else if (field.choices && !field.choices.some((c) => c.value === text)) problems.add(field, name, 'error.choice');
        else if (!field.choices && textProblem(field, text, name, problems)) break;
        else values[name] = text;
        break;
      }
      case 'list': {
        const items = listValue(field, rawValue(raw, name), problems);
        if (items) values[name] = items;
        break;
      }
      case 'table': {
        const rows = tableValue(field, raw, problems);
        if (rows) values[name] = rows;
        break;
      }
      case 'image': {
        const file = (raw.files.get(name) ?? []).find((f) => f.bytes.length > 0);
        if (!file) {
          if (field.required) problems.add(field, name, 'error.requiredImage');
          break;
        }
        const upload = await imageValue(field, file, limits, problems);
        if (upload) uploads[name] = upload;
        break;
      }
    }
  }
  return { values, uploads, errors: problems.list };
}
