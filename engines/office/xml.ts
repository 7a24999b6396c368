// A tiny XML builder for the parts Quire writes itself (ODF): text and attribute values are always escaped,
// so user text can only ever become character data; markup comes only from `el` (names checked) or `trusted`.
import { escapeAttr, escapeText, xmlSafe } from '../xml-escape.js';

/** Markup already known to be well-formed. Only this module and `trusted` create it. */
export class Xml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** Children: strings are text (escaped), arrays are flattened, null/undefined/false are skipped. */
export type XmlChild = Xml | string | number | null | undefined | false | XmlChild[];
export type XmlAttrs = Record<string, string | number | boolean | null | undefined>;

// Qualified names of the vocabularies Quire writes (office:text, fo:font-size, xmlns:draw …). Names never come
// from user data; the check catches a programming mistake before it becomes a corrupt file.
const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?$/;

function checkName(name: string): string {
  if (!NAME.test(name)) throw new Error(`invalid XML name ${JSON.stringify(name)}`);
  return name;
}

function append(out: string[], child: XmlChild): void {
  if (child === null || child === undefined || child === false) return;
  if (child instanceof Xml) out.push(child.markup);
  else if (Array.isArray(child)) for (const c of child) append(out, c);
  else out.push(escapeText(String(child)));
}

/** Serialises the attributes; null/undefined/false values are left out, `true` is written "true". */
function attrs(a: XmlAttrs | null | undefined): string {
  if (!a) return '';
  let s = '';
  for (const [k, v] of Object.entries(a)) {
    if (v === null || v === undefined || v === false) continue;
    s += ` ${checkName(k)}="${escapeAttr(String(v))}"`;
  }
  return s;
}

/** An element: `el('text:p', {'text:style-name': 'Standard'}, 'user text', el('text:tab'))`. */
export function el(name: string, a?: XmlAttrs | null, ...children: XmlChild[]): Xml {
  checkName(name);
  const body: string[] = [];
  append(body, children);
  const open = `<${name}${attrs(a)}`;
  return new Xml(body.length ? `${open}>${body.join('')}</${name}>` : `${open}/>`);
}

/** Several nodes side by side, without a wrapping element. */
export function frag(...children: XmlChild[]): Xml {
  const body: string[] = [];
  append(body, children);
  return new Xml(body.join(''));
}

/**
 * Markup produced by a library that writes well-formed XML (the MathML of temml). Characters XML cannot
 * carry are still dropped. Never pass user text here.
 */
export function trusted(markup: string): Xml {
  return new Xml(xmlSafe(markup));
}

/** A complete document: the XML declaration and the root element. */
export function xmlDocument(root: Xml): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root.markup}`;
}
