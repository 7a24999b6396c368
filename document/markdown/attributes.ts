// Attribute lists `{#id key=value key="quoted value" flag}`: read after headings, images, tables, paragraphs and code fences, and written back.
//
// The syntax is the one remark-directive gives directives, so a reader learns it once: `#x` is the
// id, a bare `key` is a flag (`lineNumbers`), quoted values may hold spaces and decode character
// references (`&quot;`, `&amp;`, `&#10;`).
import { decodeNamedCharacterReference } from 'decode-named-character-reference';
import type { Nodes } from 'mdast';
import type { ParseContext } from './context.js';

export type Attributes = Map<string, string>;

/** Reads `{…}`; null when the text is not an attribute list (so that it stays text). */
export function parseAttributeList(text: string): { attributes: Attributes } | { error: string } | null {
  const t = text.trim();
  if (!t.startsWith('{') || t.startsWith('{{') || !t.endsWith('}')) return null;
  const body = t.slice(1, -1);
  const attributes: Attributes = new Map();
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '#' || c === '.') {
      const m = /^[^\s"'<=>`{}.#]+/.exec(body.slice(i + 1));
      if (!m) return null;
      if (c === '.') return { error: `classes (.${m[0]}) are not supported; use key=value attributes` };
      if (attributes.has('id')) return { error: 'has two ids' };
      attributes.set('id', m[0]);
      i += 1 + m[0].length;
      continue;
    }
    const key = /^[A-Za-z_:][A-Za-z0-9_.:-]*/.exec(body.slice(i));
    if (!key) return null;
    i += key[0].length;
    let value = '';
    if (body[i] === '=') {
      i++;
      const q = body[i];
      if (q === '"' || q === "'") {
        const end = body.indexOf(q, i + 1);
        if (end < 0) return null;
        value = decodeReferences(body.slice(i + 1, end));
        i = end + 1;
      } else {
        const m = /^[^\s"'<=>`{}]+/.exec(body.slice(i));
        if (!m) return null;
        value = decodeReferences(m[0]);
        i += m[0].length;
      }
    }
    if (i < body.length && !/\s/.test(body[i]!)) return null;
    if (attributes.has(key[0])) return { error: `has the attribute ${key[0]} twice` };
    attributes.set(key[0], value);
  }
  return { attributes };
}

/** Decodes `&name;`, `&#10;` and `&#x1F600;` as CommonMark does. */
export function decodeReferences(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{0,31}));/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) {
      const decoded = decodeNamedCharacterReference(name);
      return decoded === false ? whole : decoded;
    }
    const cp = dec ? Number(dec) : parseInt(hex!, 16);
    return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : '\uFFFD';
  });
}

const PLAIN_VALUE = /^[A-Za-z0-9_.:%#/+-]+$/;

/** One attribute as written; values that need it are quoted, with `&`, `"` and line breaks as references. */
export function formatAttribute(key: string, value: string | number | boolean, idShorthand = true): string {
  if (value === true) return key;
  if (value === false) return `${key}=false`;
  const v = String(value);
  // `#x` stops at `.` and `#` (as in remark-directive): ids with a dot are written id=….
  if (key === 'id' && idShorthand && /^[A-Za-z0-9_][A-Za-z0-9_:-]*$/.test(v)) return `#${v}`;
  if (PLAIN_VALUE.test(v)) return `${key}=${v}`;
  // `![` would make Markdown see an image inside the attribute list of an image paragraph.
  return `${key}="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/!\[/g, '&#33;[')}"`;
}

/**
 * `{…}` from key/value pairs in order; undefined values are left out; '' when nothing is left. Without `idShorthand`
 * an id is written `id=…`, not `#…` (where the id names something else than an anchor: a block's).
 */
export function formatAttributeList(entries: Array<[string, string | number | boolean | undefined]>, idShorthand = true): string {
  const parts = entries.filter((e): e is [string, string | number | boolean] => e[1] !== undefined).map(([k, v]) => formatAttribute(k, v, idShorthand));
  return parts.length ? `{${parts.join(' ')}}` : '';
}

// ---------------------------------------------------------------- typed reading

export type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'length';

/**
 * Converts attribute values by kind: `number` and `integer` as written (range checks are the
 * validator's), `boolean` accepts a bare flag, `true` and `false`, `length` is cm (a number) or a
 * percentage string. Returns an error message naming the attribute and what it accepts.
 */
export function typedAttributes(attributes: Attributes, spec: Record<string, Kind>, what: string): { values: Record<string, string | number | boolean>; errors: string[] } {
  const values: Record<string, string | number | boolean> = {};
  const errors: string[] = [];
  for (const [key, raw] of attributes) {
    const kind = spec[key];
    if (!kind) {
      const allowed = Object.keys(spec);
      errors.push(`${what} has no attribute "${key}"${allowed.length ? `; allowed: ${allowed.join(', ')}` : ''}`);
      continue;
    }
    const value = convert(raw, kind);
    if (value === undefined) errors.push(`${what}: ${key}="${raw}" ${describe(kind)}`);
    else values[key] = value;
  }
  return { values, errors };
}

function convert(raw: string, kind: Kind): string | number | boolean | undefined {
  const v = raw.trim();
  switch (kind) {
    case 'string':
      return raw;
    case 'number':
      return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(v) ? Number(v) : undefined;
    case 'integer':
      return /^[+-]?\d+$/.test(v) ? Number(v) : undefined;
    case 'boolean':
      return v === '' || v === 'true' ? true : v === 'false' ? false : undefined;
    case 'length':
      if (/%$/.test(v)) return v;
      return /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(v) ? Number(v) : undefined;
  }
}

function describe(kind: Kind): string {
  switch (kind) {
    case 'number':
      return 'must be a number';
    case 'integer':
      return 'must be a whole number';
    case 'boolean':
      return 'must be true or false (or the bare name for true)';
    case 'length':
      return 'must be a number of cm or a percentage such as 50%';
    default:
      return 'is not valid';
  }
}

/** Reads an attribute list and types it; errors are reported at the node. */
export function readAttributes(ctx: ParseContext, attributes: Attributes, spec: Record<string, Kind>, what: string, at: Nodes): Record<string, string | number | boolean> {
  const { values, errors } = typedAttributes(attributes, spec, what);
  for (const e of errors) ctx.error('INVALID_ATTRIBUTE', e, at);
  return values;
}
