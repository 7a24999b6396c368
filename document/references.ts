// The references in a document's text (anchors, citations, abbreviations, variables) and the literal spans that hide
// them. No schema and no Ajv here: the render threads import this (through readiness.ts) and start faster without them.
import type { FieldError } from '../contracts/errors.js';
import type { DocumentJson, Element } from '../contracts/document-json.js';
import { forEachElement, mapListItems, mapTableCells, visitElement, type ElementHandlers } from './element-visitor.js';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Every anchor id in document order (sections, then their anchored elements), first occurrence wins. */
export function walkAnchors(doc: unknown, onDuplicate?: (id: string, path: string, first: string) => void): Map<string, string> {
  const anchors = new Map<string, string>();
  const claim = (id: unknown, path: string) => {
    if (typeof id !== 'string' || id === '') return;
    const first = anchors.get(id);
    if (first === undefined) anchors.set(id, path);
    else onDuplicate?.(id, path, first);
  };
  if (!isObj(doc)) return anchors;
  arr(doc.sections).forEach((section, i) => {
    if (!isObj(section)) return;
    claim(section.id, `sections[${i}].id`);
    const walk = (content: unknown[], base: string) =>
      content.forEach((el, j) => {
        if (!isObj(el)) return;
        claim(el.id, `${base}[${j}].id`);
        if (el.type === 'blockRef' && Array.isArray(el.content)) walk(el.content, `${base}[${j}].content`);
      });
    walk(arr(section.content), `sections[${i}].content`);
  });
  return anchors;
}

export interface ReferenceReport {
  /** `[label](#id)` whose id no section or anchored element has. */
  brokenReferences: FieldError[];
  /** `@[key]` whose key is not the id of a citation. */
  undefinedCitations: FieldError[];
  /** `~KEY~` whose key is not in abbreviations. */
  undefinedAbbreviations: FieldError[];
  /** `{{name}}` / `${name}` naming no variable. */
  unknownVariables: FieldError[];
  /** The names `unknownVariables` reports, each once, in document order (a form asks for them as text fields). */
  unknownVariableNames: string[];
}

/**
 * Finds the references in every text field of a valid document. Inline-markup fields (headings, text,
 * quotes, list items, table cells, captions) are scanned for all four kinds; plain fields (metadata,
 * alt text, chart labels, titles, QR and barcode values, header and footer) for variables only. Code
 * spans, math spans and backslash-escaped characters are literal; code and math elements are not scanned.
 */
export function scanReferences(doc: DocumentJson): ReferenceReport {
  const report: ReferenceReport = { brokenReferences: [], undefinedCitations: [], undefinedAbbreviations: [], unknownVariables: [], unknownVariableNames: [] };
  const anchors = walkAnchors(doc);
  const citations = new Set((doc.citations ?? []).map((c) => c.id));
  const abbreviations = doc.abbreviations ?? {};
  const variables = doc.variables ?? {};
  const seen = new Set<string>();
  const add = (list: FieldError[], path: string, key: string, code: string, message: string) => {
    const id = `${code}|${path}|${key}`;
    if (seen.has(id)) return;
    seen.add(id);
    list.push({ path, code, message });
  };

  const scanVariables = (text: string, path: string, reserved: readonly string[] = []) => {
    for (const m of text.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}|\$\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}/g)) {
      const name = (m[1] ?? m[2])!;
      if (Object.hasOwn(variables, name) || reserved.includes(name)) continue;
      if (!report.unknownVariableNames.includes(name)) report.unknownVariableNames.push(name);
      add(report.unknownVariables, path, name, 'UNKNOWN_VARIABLE', `uses ${m[0]}, but "${name}" is not defined in variables`);
    }
  };
  const plain = (text: unknown, path: string) => {
    if (typeof text === 'string' && text.includes('{')) scanVariables(text, path);
  };
  const markup = (text: unknown, path: string) => {
    if (typeof text !== 'string' || !/[[@~{]/.test(text)) return; // most cells and paragraphs reference nothing
    const s = maskLiterals(text);
    for (const m of s.matchAll(/\[[^\]\n]*\]\(#([^)\s]*)\)/g)) {
      const id = m[1]!;
      if (!anchors.has(id)) add(report.brokenReferences, path, id, 'BROKEN_REFERENCE', `links to #${id}, but no section, heading, table, figure, listing or equation has the id "${id}"`);
    }
    for (const m of s.matchAll(/@\[([^\]\n]+)\]/g)) {
      for (const part of m[1]!.split(';')) {
        const key = part.split(',')[0]!.trim().replace(/^@/, '');
        if (key && !citations.has(key)) add(report.undefinedCitations, path, key, 'UNDEFINED_CITATION', `cites "${key}", which is not in citations`);
      }
    }
    for (const m of s.matchAll(/~([A-Za-z0-9_-]{1,32})~/g)) {
      const key = m[1]!;
      if (!Object.hasOwn(abbreviations, key)) add(report.undefinedAbbreviations, path, key, 'UNDEFINED_ABBREVIATION', `uses ~${key}~, but "${key}" is not in abbreviations`);
    }
    scanVariables(s, path);
  };

  const d = doc.document;
  plain(d.title, 'document.title');
  plain(d.author, 'document.author');
  plain(d.subject, 'document.subject');
  plain(d.subtitle, 'document.subtitle');
  plain(d.date, 'document.date');
  plain(d.abstract, 'document.abstract');
  (d.keywords ?? []).forEach((k, i) => plain(k, `document.keywords[${i}]`));
  forEachElement(doc, (el, path) => scanElement(el, path, markup, plain));
  for (const part of ['header', 'footer'] as const) {
    const text = doc.defaults?.[part]?.text;
    if (text) scanVariables(text, `defaults.${part}.text`, ['page', 'pages']);
  }
  return report;
}

export type Scan = (text: unknown, path: string) => void;

/**
 * Calls `markup` with each field of an element that holds inline markup (links, references, citations) and
 * `plain` with each text field that does not, with their paths: the one list of an element's texts.
 */
export function scanElement(el: Element, path: string, markup: Scan, plain: Scan): void {
  visitElement(el, SCAN_FIELDS, { path, markup, plain });
}

interface ScanContext {
  path: string;
  markup: Scan;
  plain: Scan;
}

const SCAN_FIELDS: ElementHandlers<void, ScanContext> = {
  heading: (el, { path, markup }) => markup(el.text, `${path}.text`),
  text: (el, { path, markup }) => markup(el.text, `${path}.text`),
  quote: (el, { path, markup }) => {
    markup(el.text, `${path}.text`);
    markup(el.attribution, `${path}.attribution`);
  },
  list: (el, { path, markup }) => void mapListItems(el.items, `${path}.items`, (text, at) => markup(text, at)),
  table: (el, { path, markup }) => {
    markup(el.caption, `${path}.caption`);
    mapTableCells(el.rows ?? [], `${path}.rows`, (cell, at) => markup(typeof cell === 'object' ? cell.text : cell, at));
  },
  image: (el, { path, markup, plain }) => {
    markup(el.caption, `${path}.caption`);
    plain(el.alt, `${path}.alt`);
  },
  chart: (el, { path, markup, plain }) => {
    markup(el.caption, `${path}.caption`);
    plain(el.title, `${path}.title`);
    plain(el.xLabel, `${path}.xLabel`);
    plain(el.yLabel, `${path}.yLabel`);
    (el.data.labels ?? []).forEach((l, i) => plain(l, `${path}.data.labels[${i}]`));
    el.data.series.forEach((s, i) => plain(s.name, `${path}.data.series[${i}].name`));
  },
  qrCode: (el, { path, markup, plain }) => {
    plain(el.value, `${path}.value`);
    markup(el.caption, `${path}.caption`);
  },
  barcode: (el, { path, plain }) => plain(el.value, `${path}.value`),
  code: (el, { path, markup }) => markup(el.caption, `${path}.caption`),
  math: (el, { path, markup }) => markup(el.caption, `${path}.caption`),
  toc: (el, { path, plain }) => plain(el.title, `${path}.title`),
  listOfFigures: (el, { path, plain }) => plain(el.title, `${path}.title`),
  listOfTables: (el, { path, plain }) => plain(el.title, `${path}.title`),
  bibliography: (el, { path, plain }) => plain(el.title, `${path}.title`),
  // Nothing here is text a reader sees: names, ids and sizes.
  divider: () => {},
  pageBreak: () => {},
  spacer: () => {},
  variableRef: () => {},
  blockRef: () => {},
};

/**
 * Blanks what inline markup treats literally — backslash escapes, `code spans` and $math$ spans
 * (an opening $ not followed by a space or `{`, a closing $ not preceded by a space nor followed by a
 * digit) — so that references inside them are not reported.
 */
export function maskLiterals(text: string): string {
  if (!/[\\`$]/.test(text)) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      out += '  ';
      i += 2;
    } else if (c === '`') {
      let n = 1;
      while (text[i + n] === '`') n++;
      const fence = '`'.repeat(n);
      let end = text.indexOf(fence, i + n);
      while (end >= 0 && text[end + n] === '`') end = text.indexOf(fence, end + n + 1);
      if (end < 0) {
        out += fence;
        i += n;
      } else {
        out += ' '.repeat(end + n - i);
        i = end + n;
      }
    } else if (c === '$' && i + 1 < text.length && !/[\s{$]/.test(text[i + 1]!)) {
      let end = -1;
      for (let j = i + 2; j < text.length; j++) {
        if (text[j] === '\\') j++;
        else if (text[j] === '$' && !/\s/.test(text[j - 1]!) && !/\d/.test(text[j + 1] ?? '')) {
          end = j;
          break;
        }
      }
      if (end < 0) {
        out += c;
        i += 1;
      } else {
        out += ' '.repeat(end + 1 - i);
        i = end + 1;
      }
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}
