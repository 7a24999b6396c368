// The variables a record gives its document's render (DESIGN §8): each submitted value as the variable kind the
// document uses, over the document's own; values left out keep the document's.
import type { VariableValue } from '../../contracts/document-json.js';
import type { DocumentRecord, FormField, FormImageValue, FormRecord, FormValue } from '../../kernel/model.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a boolean field gives its variable when the box is ticked and when not (the field's texts, else these). */
export const BOOLEAN_TEXTS = { true: 'Yes', false: 'No' } as const;

function variableOf(field: FormField, value: FormValue, own: unknown): VariableValue | undefined {
  switch (field.kind) {
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return value === true ? (field.trueText ?? BOOLEAN_TEXTS.true) : (field.falseText ?? BOOLEAN_TEXTS.false);
    case 'list':
      return { type: 'list', items: Array.isArray(value) ? value.map(String) : [], ordered: isObj(own) && own.type === 'list' && own.ordered === true };
    case 'table': {
      const rows = Array.isArray(value) ? (value.filter(isObj) as Array<Record<string, string | number>>) : [];
      const columns = field.columns?.map((c) => c.name) ?? [];
      return { type: 'table', ...(columns.length ? { columns } : {}), rows };
    }
    case 'image': {
      if (!isObj(value) || typeof value.assetId !== 'string') return undefined;
      const keep = isObj(own) && own.type === 'image' ? own : {};
      return {
        type: 'image',
        src: `/image/${(value as unknown as FormImageValue).assetId}`,
        ...(typeof keep.alt === 'string' ? { alt: keep.alt } : {}),
        ...(keep.width !== undefined ? { width: keep.width as string } : {}),
        ...(keep.height !== undefined ? { height: keep.height as string } : {}),
      } as VariableValue;
    }
    default:
      return String(value);
  }
}

/**
 * The record's variables (only those of the fields it holds a value for): merge them over the document's own, then
 * a render request's over them. text, textarea, date and choice give a string; number a number; boolean the field's
 * trueText/falseText ("Yes"/"No"); list `{type: 'list', items, ordered}` (ordered as the document's list); table
 * `{type: 'table', columns, rows}`; image `{type: 'image', src: '/image/<assetId>'}` with the document's alt and size.
 */
export function variablesOf(form: Pick<FormRecord, 'fields'>, document: Pick<DocumentRecord, 'config'>, values: Record<string, FormValue>): Record<string, VariableValue> {
  const own = isObj(document.config.variables) ? document.config.variables : {};
  const out: Record<string, VariableValue> = {};
  for (const field of form.fields) {
    if (!Object.hasOwn(values, field.name)) continue;
    const v = variableOf(field, values[field.name]!, own[field.name]);
    if (v !== undefined) out[field.name] = v;
  }
  return out;
}
