// Fills a DOCX or ODT template: reads the package under limits, plans every placeholder, rewrites the text parts, adds pictures.
import { PluginError, type WorkerFile } from '../../sdk/index.js';
import { DEFAULT_PACKAGE_LIMITS, writeZip, type OutEntry, type PackageLimits } from '../../engines/office-package/zip.js';
import type { VariableValueT } from './contract.js';
import { docxDialect } from './docx-format.js';
import { prepareImage, type TemplateImage } from './images.js';
import { ODT_TEXT_PARTS, odtDialect } from './odt-format.js';
import { DocxMedia, OdtMedia } from './media.js';
import { docxTextParts, guardXml, invalid, openPackage, type TemplateFormat } from './package.js';
import { analyze, rewrite, textPieces, type Match, type PartAnalysis, type Piece, type RewritePlan } from './placeholders.js';

export type { TemplateFormat };

export interface FillOutcome {
  bytes: Uint8Array;
  replaced: number;
  unresolved: string[];
  unused: string[];
}

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

