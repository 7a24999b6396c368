// Reads PDF/A and PDF/UA claims from an XMP packet and rewrites its document-information properties to match the Info dictionary.
import { escapeXml } from '../../engines/xml-escape.js';

const NS = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dc: 'http://purl.org/dc/elements/1.1/',
  pdf: 'http://ns.adobe.com/pdf/1.3/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  pdfaid: 'http://www.aiim.org/pdfa/ns/id/',
  pdfuaid: 'http://www.aiim.org/pdfua/ns/id/',
} as const;

export interface XmpValues {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  creator?: string;
  producer?: string;
  creationDate?: string;
  modificationDate?: string;
}

/** Where each value lives in XMP and how it is written (plain text, a language alternative, an ordered list). */
const PROPERTIES: Array<{ key: keyof XmpValues; ns: keyof typeof NS; local: string; form: 'text' | 'alt' | 'seq' }> = [
  { key: 'title', ns: 'dc', local: 'title', form: 'alt' },
  { key: 'author', ns: 'dc', local: 'creator', form: 'seq' },
  { key: 'subject', ns: 'dc', local: 'description', form: 'alt' },
  { key: 'keywords', ns: 'pdf', local: 'Keywords', form: 'text' },
  { key: 'creator', ns: 'xmp', local: 'CreatorTool', form: 'text' },
  { key: 'producer', ns: 'pdf', local: 'Producer', form: 'text' },
  { key: 'creationDate', ns: 'xmp', local: 'CreateDate', form: 'text' },
  { key: 'modificationDate', ns: 'xmp', local: 'ModifyDate', form: 'text' },
];

/** The prefixes bound to `uri` anywhere in the packet (usually one). */
function prefixesOf(xml: string, uri: string): string[] {
  const found = new Set<string>();
  const re = /xmlns:([A-Za-z_][\w.-]*)\s*=\s*(["'])(.*?)\2/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) if (m[3] === uri) found.add(m[1]!);
  return [...found];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A simple property's value, written as an element or an attribute, with any of its prefixes. */
function simpleValue(xml: string, ns: keyof typeof NS, local: string): string | null {
  for (const prefix of prefixesOf(xml, NS[ns])) {
    const name = escapeRegExp(`${prefix}:${local}`);
    const element = new RegExp(`<${name}(?:\\s[^>]*)?>\\s*([^<]*?)\\s*</${name}>`).exec(xml);
    if (element) return element[1]!;
    const attribute = new RegExp(`\\s${name}\\s*=\\s*(["'])(.*?)\\1`).exec(xml);
    if (attribute) return attribute[2]!;
  }
  return null;
}

export function pdfAClaim(xml: string): { part: number; conformance: string | null; identifier: string } | null {
  const part = Number(simpleValue(xml, 'pdfaid', 'part'));
  if (!Number.isInteger(part) || part < 1) return null;
  const conformance = simpleValue(xml, 'pdfaid', 'conformance')?.toUpperCase() || null;
  return { part, conformance, identifier: `PDF/A-${part}${conformance ? conformance.toLowerCase() : ''}` };
}

export function pdfUAClaim(xml: string): { part: number; identifier: string } | null {
  const part = Number(simpleValue(xml, 'pdfuaid', 'part'));
  if (!Number.isInteger(part) || part < 1) return null;
  return { part, identifier: `PDF/UA-${part}` };
}

/**
 * `xml` with each given property replaced: its old element or attribute forms (under any prefix
 * bound to its namespace) are removed, and a new element, declaring its own namespaces, is added to
 * the first rdf:Description. Returns null when the packet has no rdf:Description to add to.
 */
export function updateXmp(xml: string, values: XmpValues): string | null {
  const rdf = prefixesOf(xml, NS.rdf)[0];
  if (!rdf) return null;
  const description = new RegExp(`<${escapeRegExp(rdf)}:Description\\b[^>]*?(/?)>`).exec(xml);
  if (!description) return null;
  let out = xml;
  let added = '';
  for (const p of PROPERTIES) {
    const value = values[p.key];
    if (value === undefined) continue;
    for (const prefix of prefixesOf(out, NS[p.ns])) {
      const name = escapeRegExp(`${prefix}:${p.local}`);
      out = out
        .replace(new RegExp(`<${name}(?:\\s[^>]*)?/>`, 'g'), '')
        .replace(new RegExp(`<${name}(?:\\s[^>]*)?>[\\s\\S]*?</${name}>`, 'g'), '')
        .replace(new RegExp(`\\s${name}\\s*=\\s*(["']).*?\\1`, 'g'), '');
    }
    const text = escapeXml(value);
    const body =
      p.form === 'text'
        ? text
        : p.form === 'alt'
          ? `<rdf:Alt><rdf:li xml:lang="x-default">${text}</rdf:li></rdf:Alt>`
          : `<rdf:Seq><rdf:li>${text}</rdf:li></rdf:Seq>`;
    const rdfDecl = p.form === 'text' ? '' : ` xmlns:rdf="${NS.rdf}"`;
    added += `<${p.ns}:${p.local} xmlns:${p.ns}="${NS[p.ns]}"${rdfDecl}>${body}</${p.ns}:${p.local}>`;
  }
  // Attribute removals may have moved the Description tag; find it again in the edited text.
  const again = new RegExp(`<${escapeRegExp(rdf)}:Description\\b[^>]*?(/?)>`).exec(out)!;
  const tag = again[0];
  const opened = again[1] === '/' ? `${tag.slice(0, -2).trimEnd()}>` : tag;
  const insert = again[1] === '/' ? `${opened}${added}</${rdf}:Description>` : `${opened}${added}`;
  return out.slice(0, again.index) + insert + out.slice(again.index + tag.length);
}
