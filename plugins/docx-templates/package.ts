// The template's package: the ZIP read under limits with every entry checked, and the parts that hold text.
import { PluginError } from '../../sdk/index.js';
import { PackageError, entryBytes, readZip, type PackageLimits, type ZipEntry } from '../../engines/office-package/zip.js';
import { DOCX_TEXT_PARTS } from './docx-format.js';
import { Tok, XmlError, attr, tokenize } from './xml-tokens.js';

export type TemplateFormat = 'docx' | 'odt';

const ODT_MIME = /^application\/vnd\.oasis\.opendocument\.text(-template)?$/;

export interface OpenPackage {
  entries: ZipEntry[];
  byName: Map<string, ZipEntry>;
  text(name: string): string;
}

/** Reads the ZIP under the limits and checks every entry: it inflates to its declared size, and XML parts carry no DTD. */
export function openPackage(bytes: Uint8Array, format: TemplateFormat, limits: PackageLimits): OpenPackage {
  let entries: ZipEntry[];
  const texts = new Map<string, string>();
  try {
    entries = readZip(bytes, limits);
    for (const e of entries) {
      const data = entryBytes(e);
      if (/\.(xml|rels)$/i.test(e.name) || e.name === 'mimetype') {
        const text = new TextDecoder().decode(data);
        if (/<!(DOCTYPE|ENTITY)/i.test(text)) throw new XmlError('DTD', `${e.name} has a DOCTYPE or ENTITY declaration; documents with DTDs are refused (entity expansion, external entities).`);
        texts.set(e.name, text);
      }
    }
  } catch (err) {
    if (err instanceof PackageError) throw new PluginError(err.reason === 'LIMIT' ? 'TEMPLATE_TOO_LARGE' : 'INVALID_TEMPLATE', `fileId: the template ${err.message}`);
    if (err instanceof XmlError) throw invalid(err.message);
    throw err;
  }
  const byName = new Map(entries.map((e) => [e.name, e]));
  if (format === 'odt' && !ODT_MIME.test((texts.get('mimetype') ?? '').trim())) throw invalid('has no ODF text mimetype entry; it is not an ODT document.');
  if (format === 'docx' && !texts.has('[Content_Types].xml')) throw invalid('has no [Content_Types].xml; it is not a DOCX document.');
  return {
    entries,
    byName,
    text(name) {
      const t = texts.get(name);
      if (t === undefined) throw invalid(`has no part ${name}.`);
      return t;
    },
  };
}

/** The parts of a DOCX whose content type holds document text, from [Content_Types].xml. */
export function docxTextParts(pkg: OpenPackage): string[] {
  const xml = pkg.text('[Content_Types].xml');
  const parts: string[] = [];
  for (const t of guardXml(() => tokenize(xml, '[Content_Types].xml'))) {
    if ((t.type === Tok.Empty || t.type === Tok.Open) && localName(t.name) === 'Override') {
      const tag = xml.slice(t.start, t.end);
      const type = attr(tag, 'ContentType');
      const partName = attr(tag, 'PartName');
      if (type && partName && DOCX_TEXT_PARTS.includes(type)) parts.push(partName.replace(/^\//, ''));
    }
  }
  const main = parts.find((p) => pkg.byName.has(p));
  if (!main) throw invalid('has no main document part; it is not a DOCX document.');
  return parts.filter((p) => pkg.byName.has(p));
}

function localName(qname: string): string {
  return qname.slice(qname.indexOf(':') + 1);
}

export function invalid(detail: string): PluginError {
  return new PluginError('INVALID_TEMPLATE', `fileId: the template ${detail}`);
}

/** XML problems of a part become INVALID_TEMPLATE naming it. */
export function guardXml<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof XmlError) throw invalid(err.message.replace(/^/, 'part '));
    if (err instanceof Error && /is not well-formed XML/.test(err.message)) throw invalid(`part ${err.message}`);
    throw err;
  }
}

