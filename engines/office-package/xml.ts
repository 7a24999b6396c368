// Parses one XML part of an office package into a small ordered tree, refusing DTDs (entity bombs, external entities).
import { XMLParser } from 'fast-xml-parser';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

/** A part that is not well-formed XML or declares a DTD. */
export class XmlPartError extends Error {
  override name = 'XmlPartError';
}

// Entities are decoded here, not by the parser: with no DTD allowed only the five predefined ones and
// character references exist, and decoding them in one pass keeps "&amp;#65;" literal.
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
});

/** Elements nest at most this deep (Word documents stay far below; deeper input is hostile). */
const MAX_DEPTH = 256;

export function parseXmlPart(bytes: Uint8Array, partName: string): XmlElement {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new XmlPartError(`${partName} is not UTF-8 XML`);
  }
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XmlPartError(`${partName} declares a DTD (<!DOCTYPE or <!ENTITY); refused: entity expansion and external entities`);
  let raw: unknown[];
  try {
    raw = parser.parse(text) as unknown[];
  } catch (err) {
    throw new XmlPartError(`${partName} is not well-formed XML (${(err as Error).message})`);
  }
  const roots = raw.map((n) => convert(n, partName, 0)).filter((n): n is XmlElement => typeof n !== 'string');
  if (roots.length !== 1) throw new XmlPartError(`${partName} has no single root element`);
  return roots[0]!;
}

function convert(node: unknown, partName: string, depth: number): XmlNode {
  if (depth > MAX_DEPTH) throw new XmlPartError(`${partName} nests elements more than ${MAX_DEPTH} deep`);
  const n = node as Record<string, unknown>;
  if ('#text' in n) return decodeEntities(String(n['#text']));
  const name = Object.keys(n).find((k) => k !== ':@')!;
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries((n[':@'] as Record<string, unknown>) ?? {})) attrs[k] = decodeEntities(String(v));
  const children = ((n[name] as unknown[]) ?? []).map((c) => convert(c, partName, depth + 1));
  return { name, attrs, children };
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(lt|gt|amp|quot|apos));/g, (all, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name]!;
    const cp = dec ? Number(dec) : parseInt(hex!, 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : all;
  });
}

// ---------------------------------------------------------------- walking helpers

export function isElement(n: XmlNode | undefined): n is XmlElement {
  return typeof n === 'object' && n !== null;
}

export function kids(el: XmlElement, name?: string): XmlElement[] {
  return el.children.filter((c): c is XmlElement => isElement(c) && (name === undefined || c.name === name));
}

export function kid(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el ? kids(el, name)[0] : undefined;
}

/** The first descendant with this name, depth first. */
export function find(el: XmlElement, name: string): XmlElement | undefined {
  for (const c of el.children) {
    if (!isElement(c)) continue;
    if (c.name === name) return c;
    const inner = find(c, name);
    if (inner) return inner;
  }
  return undefined;
}

/** All text of an element and its descendants. */
export function textContent(el: XmlElement): string {
  return el.children.map((c) => (isElement(c) ? textContent(c) : c)).join('');
}
