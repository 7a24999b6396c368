// Validates document JSON against its contract plus the checks a schema cannot express. The reference scanner lives in
// references.ts (no Ajv, for the render threads) and is re-exported here.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldError } from '../contracts/errors.js';
import { formatAjvErrors } from '../contracts/schema.js';
import { ABBREVIATION_KEY_PATTERN, DOCUMENT_LIMITS, DocumentJsonSchema, VARIABLE_NAME_PATTERN, type DocumentJson } from '../contracts/document-json.js';
import { arr, isObj, walkAnchors, type Obj } from './references.js';
import { hasBlockRefs, spliceBlocks } from './block-refs.js';

export { maskLiterals, scanReferences, type ReferenceReport } from './references.js';

// The shared kernel instance lacks `discriminator`; this one validates only the branch an element's
// `type` names, and `verbose` hands the failing schema to the error formatter for better messages.
const ajv = new Ajv({ discriminator: true, allErrors: true, strict: false, coerceTypes: false, useDefaults: true, verbose: true });
// Compiled on first use, not at import: a process that never validates a document does not pay for compiling its schema.
let compiled: ValidateFunction<DocumentJson> | undefined;
const documentSchema = (): ValidateFunction<DocumentJson> => (compiled ??= ajv.compile<DocumentJson>(DocumentJsonSchema));

/** Beyond this many errors the list ends with one TOO_MANY_ERRORS entry: a response stays readable. */
export const MAX_REPORTED_ERRORS = 500;

export interface DocumentValidation {
  valid: boolean;
  errors: FieldError[];
  /** The document with schema defaults filled in (a copy; the input is never changed); only when valid. */
  document?: DocumentJson;
}

/**
 * Checks a document: the schema (codes LIMIT_EXCEEDED and INVALID_FIELD) and, always, the semantic
 * rules (DUPLICATE_ANCHOR, UNKNOWN_VARIABLE, INVALID_TABLE, INVALID_FIELD), so that one answer lists
 * every problem. References inside text are not errors here: see scanReferences.
 */
export function validateDocument(doc: unknown): DocumentValidation {
  let copy: unknown;
  try {
    copy = structuredClone(doc);
  } catch {
    return { valid: false, errors: [{ path: '(body)', message: 'must be a JSON object', code: 'INVALID_FIELD' }] };
  }
  const checkSchema = documentSchema();
  // Snapshot blocks hold elements: the sections are checked with them spliced in (where they render), then restored.
  const spliced = hasBlockRefs(copy) ? spliceInPlace(copy as DocumentJson) : undefined;
  const schemaOk = checkSchema(copy);
  let errors = [...(schemaOk ? [] : schemaErrors(checkSchema.errors ?? [])), ...semanticErrors(copy)];
  if (spliced) {
    errors = [...spliced.errors, ...errors.map((e) => ({ ...e, path: spliced.origin(e.path) }))];
    spliced.restore();
  }
  const unique = uniqueIssues(errors);
  if (unique.length > MAX_REPORTED_ERRORS) {
    const more = unique.length - MAX_REPORTED_ERRORS;
    unique.length = MAX_REPORTED_ERRORS;
    unique.push({ path: '(body)', message: `${more} more errors are not listed; fix these first`, code: 'TOO_MANY_ERRORS' });
  }
  return unique.length ? { valid: false, errors: unique } : { valid: true, errors: [], document: copy as DocumentJson };
}

/**
 * Puts the spliced content (blockRefs kept in front of their elements, without them) into the document's own sections,
 * so that the schema's defaults land in the document's elements; `restore` puts the blocks' content back.
 */
function spliceInPlace(doc: DocumentJson): { origin: (path: string) => string; errors: FieldError[]; restore(): void } {
  const { document, origin, errors } = spliceBlocks(doc, true);
  const sections = doc.sections as unknown[];
  const saved = sections.map((s) => (isObj(s) ? s.content : undefined));
  document.sections.forEach((s, i) => {
    if (isObj(sections[i]) && isObj(s)) (sections[i] as Obj).content = s.content;
  });
  return {
    origin,
    errors,
    restore: () => saved.forEach((content, i) => {
      if (isObj(sections[i])) (sections[i] as Obj).content = content;
    }),
  };
}

/** The issues without repeats (the same path, code and message), in their order. */
export function uniqueIssues<T extends FieldError>(errors: T[]): T[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}|${e.code}|${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---------------------------------------------------------------- schema errors

type Schema = Record<string, unknown>;

/**
 * A failed anyOf reports every branch. Keep the branch the value's type selects (a string cell →
 * the string branch); when the type fits no branch say which types are allowed; when several fit,
 * keep the branch with the fewest errors.
 */
function resolveUnions(errors: ErrorObject[]): { kept: ErrorObject[]; messages: Map<ErrorObject, string> } {
  const alive = new Set(errors);
  const messages = new Map<ErrorObject, string>();
  const unions = errors.filter((e) => e.keyword === 'anyOf').sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const union of unions) {
    if (!alive.has(union)) continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<number, ErrorObject[]>();
    for (const e of alive) {
      if (e === union || !e.schemaPath.startsWith(prefix)) continue;
      if (e.instancePath !== union.instancePath && !e.instancePath.startsWith(`${union.instancePath}/`)) continue;
      const index = Number(e.schemaPath.slice(prefix.length).split('/')[0]);
      (branches.get(index) ?? branches.set(index, []).get(index)!).push(e);
    }
    const typeOnly = (list: ErrorObject[]) => list.every((e) => e.keyword === 'type' && e.instancePath === union.instancePath);
    const fitting = [...branches.values()].filter((list) => !typeOnly(list));
    const drop = (list: ErrorObject[]) => list.forEach((e) => alive.delete(e));
    if (fitting.length === 0) {
      const types = [...branches.values()].flatMap((list) => list.map((e) => String((e.params as { type: string }).type)));
      messages.set(union, `must be ${joinOr([...new Set(types)].map(article))}`);
      branches.forEach(drop);
    } else {
      const best = fitting.reduce((a, b) => (b.length < a.length ? b : a));
      for (const list of branches.values()) if (list !== best) drop(list);
      alive.delete(union);
    }
  }
  return { kept: errors.filter((e) => alive.has(e)), messages };
}

const article = (type: string) => (type === 'integer' ? 'an integer' : type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`);
const joinOr = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`);

const NOUNS: Record<string, string> = { content: 'elements', sections: 'sections', citations: 'citations', keywords: 'keywords', rows: 'rows', columns: 'columns', series: 'series', labels: 'labels', values: 'values', cells: 'cells', items: 'items' };
const LIST_TOO_DEEP = new RegExp(`(\\.items\\[\\d+\\]){${DOCUMENT_LIMITS.listDepth}}\\.items$`);

function schemaErrors(raw: ErrorObject[]): FieldError[] {
  const { kept, messages } = resolveUnions(raw);
  // An empty string also fails its pattern; "must not be empty" says it all.
  const empty = new Set(kept.filter((e) => e.keyword === 'minLength').map((e) => e.instancePath));
  const out: FieldError[] = [];
  for (const e of kept) {
    if (e.keyword === 'pattern' && empty.has(e.instancePath)) continue;
    const [base] = formatAjvErrors([e]);
    if (!base) continue;
    const schema = (e.parentSchema ?? {}) as Schema;
    const params = e.params as Record<string, unknown>;
    let { path } = base;
    let message = messages.get(e) ?? base.message;
    let code = 'INVALID_FIELD';
    const lastKey = /([A-Za-z]+)(\[\d+\])?$/.exec(path);
    const noun = path.endsWith(']') && lastKey?.[1] === 'rows' ? 'cells' : (NOUNS[lastKey?.[1] ?? ''] ?? 'items');
    switch (e.keyword) {
      case 'maxItems':
        code = 'LIMIT_EXCEEDED';
        message = `must have at most ${String(params.limit)} ${noun}`;
        break;
      case 'minItems':
        message = `must have at least ${String(params.limit)} ${noun}`;
        break;
      case 'maxLength':
        code = 'LIMIT_EXCEEDED';
        message = `must be at most ${String(params.limit)} characters long`;
        break;
      case 'minLength':
        message = params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters long`;
        break;
      case 'maxProperties':
        code = 'LIMIT_EXCEEDED';
        message = `must have at most ${String(params.limit)} entries`;
        break;
      case 'maximum':
      case 'minimum':
      case 'exclusiveMaximum':
      case 'exclusiveMinimum':
        code = 'LIMIT_EXCEEDED';
        message = rangeMessage(schema);
        break;
      case 'type':
        if (!messages.has(e)) message = `must be ${joinOr([params.type].flat().map((t) => article(String(t))))}`;
        break;
      case 'enum':
        message = `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
        break;
      case 'pattern':
        message = typeof schema['x-pattern-hint'] === 'string' ? schema['x-pattern-hint'] : message;
        break;
      case 'discriminator': {
        path = `${path === '(body)' ? '' : `${path}.`}type`;
        const allowed = branchTypes(schema).join(', ');
        message = params.tagValue === undefined ? `is required; one of ${allowed}` : `must be one of ${allowed}`;
        break;
      }
      case 'additionalProperties': {
        const key = String(params.additionalProperty);
        const keyPatterns = Object.keys((schema.patternProperties ?? {}) as Schema);
        if (keyPatterns.includes(VARIABLE_NAME_PATTERN)) message = 'is not a valid variable name: a letter or _, then letters, digits, _ . - (max 64 chars)';
        else if (keyPatterns.includes(ABBREVIATION_KEY_PATTERN)) message = 'is not a valid abbreviation key: 1 to 32 of A-Z a-z 0-9 _ -';
        else if (key === 'items' && LIST_TOO_DEEP.test(path)) {
          code = 'LIMIT_EXCEEDED';
          message = `lists nest at most ${DOCUMENT_LIMITS.listDepth} levels deep`;
        } else if (schema.properties) message = `is not an allowed field; allowed: ${Object.keys(schema.properties as Schema).join(', ')}`;
        break;
      }
    }
    out.push({ path, message, code });
  }
  return out;
}

function rangeMessage(schema: Schema): string {
  const lower = schema.minimum !== undefined ? `at least ${String(schema.minimum)}` : schema.exclusiveMinimum !== undefined ? `greater than ${String(schema.exclusiveMinimum)}` : '';
  const upper = schema.maximum !== undefined ? `at most ${String(schema.maximum)}` : schema.exclusiveMaximum !== undefined ? `less than ${String(schema.exclusiveMaximum)}` : '';
  const unit = /\bin (cm|pt)\b/.exec(String(schema.description ?? ''))?.[1];
  const range = schema.minimum !== undefined && schema.maximum !== undefined ? `between ${String(schema.minimum)} and ${String(schema.maximum)}` : [lower, upper].filter(Boolean).join(' and ');
  return `must be ${range}${unit ? ` (${unit})` : ''}`;
}

function branchTypes(schema: Schema): string[] {
  const branches = (schema.oneOf ?? []) as Schema[];
  return branches.flatMap((b) => {
    const t = ((b.properties ?? {}) as Record<string, Schema>).type ?? {};
    return t.const !== undefined ? [String(t.const)] : ((t.enum ?? []) as unknown[]).map(String);
  });
}

// ---------------------------------------------------------------- semantic checks

function semanticErrors(doc: unknown): FieldError[] {
  if (!isObj(doc)) return [];
  const errors: FieldError[] = [];
  walkAnchors(doc, (id, path, first) => errors.push({ path, code: 'DUPLICATE_ANCHOR', message: `repeats the anchor id "${id}" first used at ${first}; anchor ids must be unique` }));
  const variables = isObj(doc.variables) ? doc.variables : {};
  arr(doc.sections).forEach((section, i) => {
    if (!isObj(section)) return;
    arr(section.content).forEach((el, j) => {
      if (!isObj(el)) return;
      const path = `sections[${i}].content[${j}]`;
      if (el.type === 'variableRef' && typeof el.name === 'string' && !Object.hasOwn(variables, el.name)) {
        errors.push({ path: `${path}.name`, code: 'UNKNOWN_VARIABLE', message: `names the variable "${el.name}", which is not defined in variables` });
      }
      if (el.type === 'table') checkTable(el, path, variables, errors);
      if (el.type === 'barcode') checkBarcode(el, path, errors);
      if (el.type === 'chart') checkChart(el, path, errors);
    });
  });
  for (const [name, value] of Object.entries(variables)) {
    if (isObj(value) && value.type === 'table') checkTableVariable(value, `variables.${name}`, errors);
  }
  return errors;
}

function variableKind(value: unknown): string {
  if (typeof value === 'string') return 'text';
  if (typeof value === 'number') return 'number';
  return isObj(value) && typeof value.type === 'string' ? value.type : 'unknown';
}

function tableVariableColumns(v: Obj): string[] {
  if (Array.isArray(v.columns)) return v.columns.map(String);
  const first = arr(v.rows)[0];
  return isObj(first) ? Object.keys(first) : [];
}

function checkTable(el: Obj, path: string, variables: Obj, errors: FieldError[]): void {
  const hasRows = el.rows !== undefined;
  const hasFrom = el.rowsFrom !== undefined;
  if (hasRows && hasFrom) errors.push({ path, code: 'INVALID_TABLE', message: 'has both rows and rowsFrom; give one of them' });
  if (!hasRows && !hasFrom) errors.push({ path, code: 'INVALID_TABLE', message: 'needs rows, or rowsFrom naming a table variable' });
  if (typeof el.rowsFrom === 'string') {
    const v = Object.hasOwn(variables, el.rowsFrom) ? variables[el.rowsFrom] : undefined;
    if (v === undefined) errors.push({ path: `${path}.rowsFrom`, code: 'UNKNOWN_VARIABLE', message: `names the variable "${el.rowsFrom}", which is not defined in variables` });
    else if (!isObj(v) || v.type !== 'table') errors.push({ path: `${path}.rowsFrom`, code: 'UNKNOWN_VARIABLE', message: `names "${el.rowsFrom}", a ${variableKind(v)} variable; rowsFrom needs a table variable` });
    else if (Array.isArray(el.columns)) {
      const count = tableVariableColumns(v).length;
      if (count && count !== el.columns.length) errors.push({ path: `${path}.columns`, code: 'INVALID_TABLE', message: `has ${el.columns.length} columns but the table variable "${el.rowsFrom}" has ${count}` });
    }
  }
  if (Array.isArray(el.rows)) checkGrid(el, path, errors);
}

/** Lays the cells out on a grid, as a renderer would, so colspans and rowspans must add up to the column count in every row. */
function checkGrid(el: Obj, path: string, errors: FieldError[]): void {
  const rows = el.rows as unknown[];
  const cellsOf = (row: unknown): { cells: unknown[]; at: string } | null => (Array.isArray(row) ? { cells: row, at: '' } : isObj(row) && Array.isArray(row.cells) ? { cells: row.cells, at: '.cells' } : null);
  const span = (cell: unknown, key: 'colspan' | 'rowspan') => (isObj(cell) && Number.isInteger(cell[key]) && (cell[key] as number) > 0 ? (cell[key] as number) : 1);
  const first = cellsOf(rows[0]);
  const columnCount = Array.isArray(el.columns) ? el.columns.length : first ? first.cells.reduce<number>((n, c) => n + span(c, 'colspan'), 0) : 0;
  const source = Array.isArray(el.columns) ? `${el.columns.length} columns` : `${columnCount} columns (the width of the first row)`;
  // covered[c]: how many further rows a rowspan from above still occupies in column c; origin: the spanning cell.
  let covered: number[] = new Array<number>(columnCount).fill(0);
  const origin: string[] = [];
  const headerRows = Number.isInteger(el.headerRows) ? (el.headerRows as number) : 0;
  if (headerRows > rows.length) errors.push({ path: `${path}.headerRows`, code: 'INVALID_TABLE', message: `is ${headerRows} but the table has only ${rows.length} rows` });
  let bodyStarted = false;
  rows.forEach((row, i) => {
    const rowPath = `${path}.rows[${i}]`;
    const isHeader = i < headerRows || (isObj(row) && row.header === true);
    if (isHeader && bodyStarted) errors.push({ path: `${rowPath}.header`, code: 'INVALID_TABLE', message: 'header rows must come before the body rows' });
    if (!isHeader) bodyStarted = true;
    const entry = cellsOf(row);
    if (!entry) return;
    const fromAbove = (c: number) => (covered[c] ?? 0) > 0;
    const next = covered.map((n) => Math.max(0, n - 1));
    let col = 0;
    let filled = covered.filter((n) => n > 0).length;
    let overlap = -1;
    entry.cells.forEach((cell, j) => {
      while (fromAbove(col)) col++;
      const cs = span(cell, 'colspan');
      const rs = span(cell, 'rowspan');
      for (let k = col; k < col + cs; k++) {
        if (fromAbove(k) && overlap < 0) overlap = j;
        while (next.length <= k) next.push(0);
        if (rs > 1) {
          next[k] = rs - 1;
          origin[k] = `${rowPath}${entry.at}[${j}].rowspan`;
        }
      }
      col += cs;
      filled += cs;
    });
    if (overlap >= 0) errors.push({ path: `${rowPath}${entry.at}[${overlap}]`, code: 'INVALID_TABLE', message: 'overlaps a cell that spans down from a row above' });
    else if (filled !== columnCount) {
      errors.push({ path: rowPath, code: 'INVALID_TABLE', message: `fills ${filled} columns (counting colspans and rowspans from rows above) but the table has ${source}` });
    }
    covered = next;
  });
  const overhang = covered.findIndex((n) => n > 0);
  if (overhang >= 0) errors.push({ path: origin[overhang]!, code: 'INVALID_TABLE', message: 'spans past the last row of the table' });
}

function checkTableVariable(v: Obj, path: string, errors: FieldError[]): void {
  if (!Array.isArray(v.columns)) return;
  const columns = new Set(v.columns.map(String));
  arr(v.rows).forEach((row, i) => {
    if (!isObj(row)) return;
    for (const key of Object.keys(row)) {
      if (!columns.has(key)) errors.push({ path: `${path}.rows[${i}].${key}`, code: 'INVALID_TABLE', message: `is not one of the columns ${[...columns].join(', ')}` });
    }
  });
}

const GTIN_LENGTHS: Record<string, number> = { ean13: 13, ean8: 8, upca: 12, itf14: 14 };
const HAS_VARIABLE = /\{\{[^}]*\}\}|\$\{[^}]*\}/;

function checkBarcode(el: Obj, path: string, errors: FieldError[]): void {
  const value = el.value;
  const format = String(el.format);
  if (typeof value !== 'string' || value === '' || HAS_VARIABLE.test(value)) return; // variables are checked after substitution
  const at = `${path}.value`;
  const full = GTIN_LENGTHS[format];
  if (full) {
    if (!/^\d+$/.test(value) || (value.length !== full && value.length !== full - 1)) {
      errors.push({ path: at, code: 'INVALID_FIELD', message: `must be ${full - 1} digits, or ${full} with the check digit, for ${format}` });
    } else if (value.length === full) {
      const expected = gtinCheckDigit(value.slice(0, -1));
      if (Number(value[full - 1]) !== expected) errors.push({ path: at, code: 'INVALID_FIELD', message: `has the check digit ${value[full - 1]}; for these digits it must be ${expected}` });
    }
  } else if (format === 'code39' && !/^[0-9A-Z .$/+%-]+$/.test(value)) {
    errors.push({ path: at, code: 'INVALID_FIELD', message: 'may contain only 0-9 A-Z, space and - . $ / + % for code39' });
  } else if (format === 'code128' && !/^[\x20-\x7E]+$/.test(value)) {
    errors.push({ path: at, code: 'INVALID_FIELD', message: 'may contain only printable ASCII characters for code128' });
  }
}

/** GS1 mod-10 check digit: weights 3, 1, 3, … from the rightmost data digit. */
export function gtinCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10;
}

function checkChart(el: Obj, path: string, errors: FieldError[]): void {
  if (!isObj(el.data)) return;
  const series = arr(el.data.series);
  if (el.chartType === 'pie' && series.length > 1) errors.push({ path: `${path}.data.series`, code: 'INVALID_FIELD', message: `has ${series.length} series; a pie chart has exactly one` });
  const labels = el.data.labels;
  if (!Array.isArray(labels)) return;
  series.forEach((s, k) => {
    if (!isObj(s) || !Array.isArray(s.values) || !s.values.every((v) => typeof v === 'number')) return;
    if (s.values.length !== labels.length) errors.push({ path: `${path}.data.series[${k}].values`, code: 'INVALID_FIELD', message: `has ${s.values.length} values but data.labels has ${labels.length} labels` });
  });
}
