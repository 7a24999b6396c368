// Shared pieces of the ODT writer: namespaces, units, language tags and text-property attributes.
import type { TextAlign } from './model.js';
import { el, type XmlAttrs, type XmlChild } from './xml.js';

export const ODF_VERSION = '1.2';
export const ODT_MIME = 'application/vnd.oasis.opendocument.text';

/** The namespaces every part declares (content.xml and styles.xml share them, so styles can move between them). */
export const NS: XmlAttrs = {
  'xmlns:office': 'urn:oasis:names:tc:opendocument:xmlns:office:1.0',
  'xmlns:style': 'urn:oasis:names:tc:opendocument:xmlns:style:1.0',
  'xmlns:text': 'urn:oasis:names:tc:opendocument:xmlns:text:1.0',
  'xmlns:table': 'urn:oasis:names:tc:opendocument:xmlns:table:1.0',
  'xmlns:draw': 'urn:oasis:names:tc:opendocument:xmlns:drawing:1.0',
  'xmlns:fo': 'urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0',
  'xmlns:xlink': 'http://www.w3.org/1999/xlink',
  'xmlns:dc': 'http://purl.org/dc/elements/1.1/',
  'xmlns:meta': 'urn:oasis:names:tc:opendocument:xmlns:meta:1.0',
  'xmlns:number': 'urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0',
  'xmlns:svg': 'urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0',
  'xmlns:math': 'http://www.w3.org/1998/Math/MathML',
  'xmlns:ooow': 'http://openoffice.org/2004/writer',
};

/** A length in cm with at most 3 decimals ("2.5cm"). */
export const cm = (v: number): string => `${round(v)}cm`;
export const pt = (v: number): string => `${round(v)}pt`;
const round = (v: number): string => String(Math.round(v * 1000) / 1000);

/** `fo:text-align` for an alignment (`left`/`right` become `start`/`end` so right-to-left text mirrors). */
export function foAlign(a: TextAlign): string {
  return a === 'left' ? 'start' : a === 'right' ? 'end' : a;
}

/** fo:language / fo:country of a BCP 47 tag ("de-AT" → de, AT); the country is left out when the tag has none. */
export function languageAttrs(locale: string): XmlAttrs {
  const parts = locale.split(/[-_]/);
  const language = /^[a-zA-Z]{2,3}$/.test(parts[0] ?? '') ? parts[0]!.toLowerCase() : 'en';
  const country = parts.slice(1).find((p) => /^([a-zA-Z]{2}|\d{3})$/.test(p));
  return { 'fo:language': language, 'fo:country': country ? country.toUpperCase() : null };
}

/**
 * A font family as fo:font-family expects it: one family, quoted. The name is document data: the quote
 * and list separators that would change its meaning are dropped (attribute escaping does the rest).
 */
export function fontFamily(name: string): string {
  return `'${name.replace(/['",;]/g, '').trim() || 'sans-serif'}'`;
}

export interface TextProps {
  bold?: boolean;
  italic?: boolean;
  /** pt */
  size?: number;
  family?: string;
  /** #RRGGBB */
  color?: string | null;
}

/** style:text-properties attributes; bold and italic are set for Western, Asian and complex scripts alike. */
export function textPropAttrs(p: TextProps): XmlAttrs {
  return {
    'fo:font-weight': p.bold ? 'bold' : p.bold === false ? 'normal' : null,
    'style:font-weight-asian': p.bold ? 'bold' : p.bold === false ? 'normal' : null,
    'style:font-weight-complex': p.bold ? 'bold' : p.bold === false ? 'normal' : null,
    'fo:font-style': p.italic ? 'italic' : p.italic === false ? 'normal' : null,
    'style:font-style-asian': p.italic ? 'italic' : p.italic === false ? 'normal' : null,
    'style:font-style-complex': p.italic ? 'italic' : p.italic === false ? 'normal' : null,
    'fo:font-size': p.size ? pt(p.size) : null,
    'style:font-size-asian': p.size ? pt(p.size) : null,
    'style:font-size-complex': p.size ? pt(p.size) : null,
    'fo:font-family': p.family ? fontFamily(p.family) : null,
    'style:font-family-asian': p.family ? fontFamily(p.family) : null,
    'style:font-family-complex': p.family ? fontFamily(p.family) : null,
    'fo:color': p.color ? colour(p.color) : null,
  };
}

/** A colour from the model (#RRGGBB, validated upstream); anything else falls back to black rather than corrupt a style. */
export function colour(c: string): string {
  return /^#[0-9a-fA-F]{6}$/.test(c) ? c.toLowerCase() : '#000000';
}

/** The sequence (caption numbering variable) each captioned element kind counts in; names are fixed, labels are localized. */
export type SequenceName = 'Figure' | 'Table' | 'Listing' | 'Equation';
export const SEQUENCES: SequenceName[] = ['Figure', 'Table', 'Listing', 'Equation'];

/**
 * Text as ODF character content. ODF collapses runs of spaces and ignores a space at the start of a
 * paragraph, so every space that would be lost is written as text:s; tabs and line breaks become
 * text:tab and text:line-break. The text itself stays escaped character data.
 */
export function odtText(s: string): XmlChild[] {
  const out: XmlChild[] = [];
  let last = 0;
  for (const m of s.matchAll(/ +|\t|\r\n|\n|\r/g)) {
    const i = m.index;
    const tok = m[0];
    if (tok[0] === ' ') {
      // A single space after ordinary text survives; any other space is written explicitly.
      const prev = i === 0 ? '' : s[i - 1]!;
      const keepFirst = prev !== '' && prev !== '\t' && prev !== '\n' && prev !== '\r';
      if (keepFirst && tok.length === 1) continue;
      if (i > last) out.push(s.slice(last, i));
      if (keepFirst) out.push(' ');
      const n = keepFirst ? tok.length - 1 : tok.length;
      out.push(el('text:s', { 'text:c': n > 1 ? n : null }));
    } else {
      if (i > last) out.push(s.slice(last, i));
      out.push(tok === '\t' ? el('text:tab') : el('text:line-break'));
    }
    last = i + tok.length;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}
