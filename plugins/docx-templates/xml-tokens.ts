// A small, strict XML scanner for office parts: tags, text and the rest, with positions; DTDs are refused.

export const enum Tok {
  Text,
  Open,
  Close,
  Empty,
  /** Comments, processing instructions, CDATA: copied as they are. */
  Other,
}

export interface Token {
  type: Tok;
  start: number;
  end: number;
  /** Qualified element name for tags; '' otherwise. */
  name: string;
}

/** XML that cannot be read safely (a DTD) or at all; the message names the part. */
export class XmlError extends Error {
  override name = 'XmlError';
  constructor(
    readonly reason: 'DTD' | 'MALFORMED',
    message: string,
  ) {
    super(message);
  }
}

/** Splits `xml` into tokens. Throws XmlError on a DOCTYPE (entity expansion, external entities) or broken markup. */
export function tokenize(xml: string, part: string): Token[] {
  const tokens: Token[] = [];
  const n = xml.length;
  let i = 0;
  while (i < n) {
    const lt = xml.indexOf('<', i);
    if (lt < 0) {
      tokens.push({ type: Tok.Text, start: i, end: n, name: '' });
      break;
    }
    if (lt > i) tokens.push({ type: Tok.Text, start: i, end: lt, name: '' });
    const c = xml.charCodeAt(lt + 1);
    if (c === 0x21 /* ! */) {
      if (xml.startsWith('<!--', lt)) i = until(xml, '-->', lt + 4, part);
      else if (xml.startsWith('<![CDATA[', lt)) i = until(xml, ']]>', lt + 9, part);
      else throw new XmlError('DTD', `${part} has a DOCTYPE or other declaration (<!…>); documents with DTDs are refused (entity expansion, external entities).`);
      tokens.push({ type: Tok.Other, start: lt, end: i, name: '' });
      continue;
    }
    if (c === 0x3f /* ? */) {
      i = until(xml, '?>', lt + 2, part);
      tokens.push({ type: Tok.Other, start: lt, end: i, name: '' });
      continue;
    }
    if (c === 0x2f /* / */) {
      const gt = xml.indexOf('>', lt + 2);
      if (gt < 0) throw malformed(part, lt);
      tokens.push({ type: Tok.Close, start: lt, end: gt + 1, name: xml.slice(lt + 2, gt).trim() });
      i = gt + 1;
      continue;
    }
    // Start or empty tag: attribute values may hold '>' and '/', so quotes are followed.
    let j = lt + 1;
    while (j < n && !isNameEnd(xml.charCodeAt(j))) j++;
    const name = xml.slice(lt + 1, j);
    if (!name) throw malformed(part, lt);
    for (;;) {
      if (j >= n) throw malformed(part, lt);
      const ch = xml.charCodeAt(j);
      if (ch === 0x22 || ch === 0x27) {
        const close = xml.indexOf(ch === 0x22 ? '"' : "'", j + 1);
        if (close < 0) throw malformed(part, lt);
        j = close + 1;
      } else if (ch === 0x3e /* > */) {
        const empty = xml.charCodeAt(j - 1) === 0x2f;
        tokens.push({ type: empty ? Tok.Empty : Tok.Open, start: lt, end: j + 1, name });
        i = j + 1;
        break;
      } else j++;
    }
  }
  return tokens;
}

function until(xml: string, close: string, from: number, part: string): number {
  const k = xml.indexOf(close, from);
  if (k < 0) throw malformed(part, from);
  return k + close.length;
}

function isNameEnd(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x3e || c === 0x2f;
}

function malformed(part: string, at: number): XmlError {
  return new XmlError('MALFORMED', `${part} is not well-formed XML (near character ${at}).`);
}

/** Text as it reads: the five predefined entities and character references (a DTD, the only source of others, is refused). */
export function decodeText(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(lt|gt|amp|quot|apos));/g, (all, dec?: string, hex?: string, name?: string) => {
    if (name) return ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[name]!;
    const cp = dec ? Number(dec) : parseInt(hex!, 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : all;
  });
}

/** User text as XML character data or attribute value (the office writers' escaping, shared). */

/** The value of one attribute in a start tag's source, or null. */
export function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name.replace(/[.:]/g, '\\$&')}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag);
  return m ? decodeText(m[2] ?? m[3] ?? '') : null;
}
