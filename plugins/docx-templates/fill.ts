// Fills a DOCX or ODT template: reads the package under limits, plans every placeholder, rewrites the text parts, adds pictures.
import { PluginError, type WorkerFile } from '../../kernel/plugin-api.js';
import { DEFAULT_PACKAGE_LIMITS, PackageError, entryBytes, readZip, writeZip, type OutEntry, type PackageLimits, type ZipEntry } from '../lib/office-package/zip.js';
import type { VariableValueT } from './contract.js';
import { DOCX_TEXT_PARTS, docxDialect } from './docx-format.js';
import { prepareImage, type TemplateImage } from './images.js';
import { ODT_TEXT_PARTS, odtDialect } from './odt-format.js';
import { analyze, rewrite, textPieces, type Match, type PartAnalysis, type PartWriter, type Piece, type RewritePlan } from './placeholders.js';
import { Tok, XmlError, attr, escapeXml, tokenize } from './xml-tokens.js';

export type TemplateFormat = 'docx' | 'odt';

export interface FillOutcome {
  bytes: Uint8Array;
  replaced: number;
  unresolved: string[];
  unused: string[];
}

const ODT_MIME = /^application\/vnd\.oasis\.opendocument\.text(-template)?$/;

export async function fillTemplate(
  bytes: Uint8Array,
  format: TemplateFormat,
  variables: Record<string, VariableValueT>,
  files: WorkerFile[],
  limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
): Promise<FillOutcome> {
  const pkg = openPackage(bytes, format, limits);
  const dialect = format === 'docx' ? docxDialect : odtDialect;
  const partNames = format === 'docx' ? docxTextParts(pkg) : ODT_TEXT_PARTS.filter((p) => pkg.byName.has(p));
  if (format === 'odt' && !partNames.includes('content.xml')) throw invalid('has no content.xml; it is not an ODF text document.');
  const analyses = partNames.map((name) => guardXml(() => analyze(name, pkg.text(name), dialect)));

  const { plans, unresolved, used, imageVars } = plan(analyses, variables);
  const images = new Map<string, TemplateImage>();
  let n = 0;
  for (const name of imageVars) {
    const v = variables[name] as Extract<VariableValueT, { type: 'image' }>;
    images.set(name, await prepareImage({ path: `variables.${name}`, ...v }, files, ++n));
  }
  const resolve = resolver(variables, images);

  const media = format === 'docx' ? new DocxMedia(pkg) : new OdtMedia(pkg);
  let replaced = 0;
  const changed = new Map<string, string>();
  for (const a of analyses) {
    const p = plans.get(a)!;
    if (p.replace.size === 0 && p.expand.size === 0) continue;
    const out = guardXml(() => rewrite(a, { ...p, resolve }, dialect, media.writerFor(a.part)));
    replaced += out.replaced;
    changed.set(a.part, out.xml);
  }
  for (const [name, text] of media.finish()) changed.set(name, text);

  const out: OutEntry[] = [];
  for (const e of pkg.entries) {
    const text = changed.get(e.name);
    out.push(text === undefined ? { entry: e } : { name: e.name, bytes: Buffer.from(text, 'utf8') });
    changed.delete(e.name);
  }
  for (const [name, text] of changed) out.push({ name, bytes: Buffer.from(text, 'utf8') });
  for (const m of media.files) out.push(m);
  const unused = Object.keys(variables).filter((name) => !used.has(name));
  return { bytes: writeZip(out), replaced, unresolved, unused };
}

interface OpenPackage {
  entries: ZipEntry[];
  byName: Map<string, ZipEntry>;
  text(name: string): string;
}

/** Reads the ZIP under the limits and checks every entry: it inflates to its declared size, and XML parts carry no DTD. */
function openPackage(bytes: Uint8Array, format: TemplateFormat, limits: PackageLimits): OpenPackage {
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
function docxTextParts(pkg: OpenPackage): string[] {
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

/** Decides what every placeholder becomes, which rows repeat, and checks table columns against the rows. */
function plan(analyses: PartAnalysis[], variables: Record<string, VariableValueT>) {
  const plans = new Map<PartAnalysis, Omit<RewritePlan, 'resolve'>>();
  const unresolved: string[] = [];
  const used = new Set<string>();
  const imageVars: string[] = [];
  const columns = new Map<string, Map<string, string>>();
  for (const a of analyses) {
    const p = { expand: new Map<number, { table: string; rows: Array<Record<string, string>> }>(), replace: new Set<Match>() };
    plans.set(a, p);
    for (const m of a.matches) {
      const dot = m.name.indexOf('.');
      const name = dot < 0 ? m.name : m.name.slice(0, dot);
      const v = Object.hasOwn(variables, name) ? variables[name] : undefined;
      const isTable = typeof v === 'object' && v.type === 'table';
      if (v === undefined || (dot < 0) === isTable) {
        if (!unresolved.includes(m.name)) unresolved.push(m.name);
        continue;
      }
      used.add(name);
      p.replace.add(m);
      if (typeof v === 'object' && v.type === 'image' && !imageVars.includes(name)) imageVars.push(name);
      if (!isTable) continue;
      if (m.row < 0) {
        throw new PluginError('TABLE_ROW_NOT_FOUND', `The placeholder ${m.written} (in ${a.part}) is not inside a table row; a table variable repeats the row of a real table that holds its {{${name}.<column>}} placeholders.`);
      }
      const taken = p.expand.get(m.row);
      if (taken && taken.table !== name) {
        throw new PluginError('TABLE_ROW_NOT_FOUND', `A table row in ${a.part} holds placeholders of two table variables, ${taken.table} and ${name}; one row can repeat for one table only.`);
      }
      p.expand.set(m.row, { table: name, rows: (v as Extract<VariableValueT, { type: 'table' }>).rows });
      const cols = columns.get(name) ?? new Map<string, string>();
      cols.set(m.name.slice(dot + 1), m.written);
      columns.set(name, cols);
    }
  }
  for (const [table, cols] of columns) checkColumns(table, cols, (variables[table] as Extract<VariableValueT, { type: 'table' }>).rows);
  return { plans, unresolved, used, imageVars };
}

function checkColumns(table: string, cols: Map<string, string>, rows: Array<Record<string, string>>): void {
  const names = [...cols.keys()];
  for (const [i, row] of rows.entries()) {
    const missing = names.filter((c) => !Object.hasOwn(row, c));
    const extra = Object.keys(row).filter((k) => !cols.has(k));
    if (!missing.length && !extra.length) continue;
    const parts: string[] = [];
    if (missing.length) parts.push(`is missing column${missing.length > 1 ? 's' : ''} ${missing.map((c) => `"${c}"`).join(', ')} (used by ${missing.map((c) => cols.get(c)).join(', ')})`);
    if (extra.length) parts.push(`has column${extra.length > 1 ? 's' : ''} ${extra.map((c) => `"${c}"`).join(', ')} that the template's row does not use`);
    throw new PluginError('TABLE_COLUMNS_MISMATCH', `variables.${table}.rows[${i}] ${parts.join(' and ')}; the keys of every row must equal the template's columns: ${names.join(', ')}.`);
  }
}

function resolver(variables: Record<string, VariableValueT>, images: Map<string, TemplateImage>) {
  const cache = new Map<string, Piece[]>();
  return (m: Match, rows: Readonly<Record<string, Record<string, string>>>): Piece[] | null => {
    const dot = m.name.indexOf('.');
    if (dot >= 0) {
      const value = rows[m.name.slice(0, dot)]?.[m.name.slice(dot + 1)];
      return value === undefined ? null : textPieces(value);
    }
    const hit = cache.get(m.name);
    if (hit) return hit;
    const v = variables[m.name]!;
    let pieces: Piece[];
    if (typeof v === 'string') pieces = textPieces(v);
    else if (v.type === 'image') pieces = [{ kind: 'image', image: images.get(m.name)! }];
    else if (v.type === 'list') {
      pieces = [];
      v.items.forEach((item, i) => {
        if (i > 0) pieces.push({ kind: 'break' });
        pieces.push(...textPieces(`${v.ordered ? `${i + 1}.` : '•'} ${item}`));
      });
    } else return null;
    cache.set(m.name, pieces);
    return pieces;
  };
}

interface MediaSink {
  writerFor(part: string): PartWriter;
  /** Parts to replace (relationships, content types, manifest) as text. */
  finish(): Map<string, string>;
  /** New media entries. */
  files: OutEntry[];
}

/** DOCX pictures: word/media files, a relationship in the rels of the part that shows them, and content types. */
class DocxMedia implements MediaSink {
  files: OutEntry[] = [];
  readonly #added = new Map<number, { png: string; svg?: string }>();
  readonly #rels = new Map<string, { xml: string; ids: Set<string>; byImage: Map<number, string>; extra: string[] }>();
  readonly #exts = new Set<string>();

  constructor(private readonly pkg: OpenPackage) {}

  writerFor(part: string): PartWriter {
    return { name: part, imageRef: (img) => this.#ref(part, img as TemplateImage) };
  }

  #ref(part: string, img: TemplateImage): string {
    const media = this.#media(img);
    const slash = part.lastIndexOf('/');
    const relsName = `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
    let rels = this.#rels.get(relsName);
    if (!rels) {
      const xml = this.pkg.byName.has(relsName) ? this.pkg.text(relsName) : '';
      const ids = new Set([...xml.matchAll(/\sId\s*=\s*["']([^"']*)["']/g)].map((m) => m[1]!));
      rels = { xml, ids, byImage: new Map(), extra: [] };
      this.#rels.set(relsName, rels);
    }
    const known = rels.byImage.get(img.n);
    if (known) return known;
    const dir = part.slice(0, slash + 1);
    const add = (target: string) => {
      let id = `rIdQuire${img.n}${target.endsWith('.svg') ? 's' : ''}`;
      while (rels!.ids.has(id)) id += 'x';
      rels!.ids.add(id);
      rels!.extra.push(`<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${escapeXml(relative(dir, target))}"/>`);
      return id;
    };
    const ref = media.svg ? `${add(media.png)} ${add(media.svg)}` : add(media.png);
    rels.byImage.set(img.n, ref);
    return ref;
  }

  /** The media file(s) of an image, added once per job. For SVG: the PNG is the main picture, the SVG the extension. */
  #media(img: TemplateImage): { png: string; svg?: string } {
    let m = this.#added.get(img.n);
    if (m) return m;
    const base = this.#free(`word/media/quire-image-${img.n}`);
    if (img.ext === 'svg') {
      m = { png: `${base}.png`, svg: `${base}.svg` };
      this.files.push({ name: m.png, bytes: img.png! }, { name: m.svg!, bytes: img.bytes });
      this.#exts.add('png').add('svg');
    } else {
      m = { png: `${base}.${img.ext}` };
      this.files.push({ name: m.png, bytes: img.bytes });
      this.#exts.add(img.ext);
    }
    this.#added.set(img.n, m);
    return m;
  }

  #free(base: string): string {
    let name = base;
    for (let k = 2; [...this.pkg.byName.keys()].some((e) => e.startsWith(`${name}.`)); k++) name = `${base}-${k}`;
    return name;
  }

  finish(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [name, rels] of this.#rels) {
      if (!rels.extra.length) continue;
      out.set(
        name,
        rels.xml
          ? insertBefore(rels.xml, '</Relationships>', rels.extra.join(''), name)
          : `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.extra.join('')}</Relationships>`,
      );
    }
    if (this.#exts.size) {
      const ct = this.pkg.text('[Content_Types].xml');
      const have = new Set([...ct.matchAll(/<Default\s[^>]*Extension\s*=\s*["']([^"']*)["']/g)].map((m) => m[1]!.toLowerCase()));
      const types: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp', svg: 'image/svg+xml' };
      const add = [...this.#exts].filter((e) => !have.has(e)).map((e) => `<Default Extension="${e}" ContentType="${types[e]}"/>`);
      if (add.length) out.set('[Content_Types].xml', insertBefore(ct, '</Types>', add.join(''), '[Content_Types].xml'));
    }
    return out;
  }
}

/** ODT pictures: Pictures/ files listed in META-INF/manifest.xml. */
class OdtMedia implements MediaSink {
  files: OutEntry[] = [];
  readonly #added = new Map<number, string>();
  readonly #manifest: string[] = [];

  constructor(private readonly pkg: OpenPackage) {}

  writerFor(part: string): PartWriter {
    return { name: part, imageRef: (img) => this.#ref(img as TemplateImage) };
  }

  #ref(img: TemplateImage): string {
    const known = this.#added.get(img.n);
    if (known) return known;
    let base = `Pictures/quire-image-${img.n}`;
    for (let k = 2; [...this.pkg.byName.keys()].some((e) => e.startsWith(`${base}.`)); k++) base = `Pictures/quire-image-${img.n}-${k}`;
    const add = (name: string, bytes: Uint8Array, type: string) => {
      this.files.push({ name, bytes, store: true });
      this.#manifest.push(`<manifest:file-entry manifest:full-path="${name}" manifest:media-type="${type}"/>`);
    };
    let ref: string;
    if (img.ext === 'svg') {
      add(`${base}.svg`, img.bytes, 'image/svg+xml');
      add(`${base}.png`, img.png!, 'image/png');
      ref = `${base}.svg ${base}.png`;
    } else {
      add(`${base}.${img.ext}`, img.bytes, img.mimeType);
      ref = `${base}.${img.ext}`;
    }
    this.#added.set(img.n, ref);
    return ref;
  }

  finish(): Map<string, string> {
    const out = new Map<string, string>();
    if (this.#manifest.length) {
      const name = 'META-INF/manifest.xml';
      out.set(name, insertBefore(this.pkg.text(name), '</manifest:manifest>', this.#manifest.join(''), name));
    }
    return out;
  }
}

function insertBefore(xml: string, closing: string, add: string, part: string): string {
  const at = xml.lastIndexOf(closing);
  if (at < 0) throw invalid(`has a ${part} without ${closing}.`);
  return xml.slice(0, at) + add + xml.slice(at);
}

/** A package path relative to a part's folder (both from the package root). */
function relative(dir: string, target: string): string {
  return target.startsWith(dir) ? target.slice(dir.length) : `/${target}`;
}

function localName(qname: string): string {
  return qname.slice(qname.indexOf(':') + 1);
}

function invalid(detail: string): PluginError {
  return new PluginError('INVALID_TEMPLATE', `fileId: the template ${detail}`);
}

/** XML problems of a part become INVALID_TEMPLATE naming it. */
function guardXml<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof XmlError) throw invalid(err.message.replace(/^/, 'part '));
    if (err instanceof Error && /is not well-formed XML/.test(err.message)) throw invalid(`part ${err.message}`);
    throw err;
  }
}

