// The normal form of a document: what a round trip through Extended Markdown may change without changing the document's meaning.
//
// parseMarkdown(serializeMarkdown(doc)) equals doc after both pass through normalizeDocument:
//  - schema defaults are filled in (validateDocument: size A4, newPage true, …);
//  - every markup field is in its canonical spelling (document/markdown/inline.ts): escapes only
//    where needed, `{{name}}` for `${name}`, spaces and line breaks at its ends dropped, line breaks
//    in headings, table cells and quote attributions as spaces, nested emphasis that JSON cannot
//    express simplified;
//  - paragraphs whose text is empty are dropped (Markdown has no empty paragraph), and so is an empty `style`;
//  - table cells are strings (a number as written, `{text}` without spans or alignment as its text),
//    rows are arrays, header rows are counted in `headerRows` (absent when 0), `columns` without any
//    width or alignment are absent;
//  - list items without sub-items are strings; an ordered list's `start` of 1 is absent;
//  - an empty quote attribution is absent.
import type { DocumentJson, Element, ListItem, TableCell, TableElement } from '../../contracts/document-json.js';
import { validateDocument } from '../validator.js';
import { canonicalMarkup } from './json-markup.js';
import { mapListItems, rowCells, visitElement, type SomeElementHandlers } from '../element-visitor.js';
import { countHeaderRows } from './serialize.js';

export function normalizeDocument(doc: DocumentJson): DocumentJson {
  const validation = validateDocument(doc);
  const copy: DocumentJson = validation.document ?? structuredClone(doc);
  copy.sections = copy.sections.map((section) => ({ ...section, content: normalizeContent(section.content) }) as typeof section);
  return copy;
}

function normalizeContent(content: readonly Element[]): Element[] {
  return content.map(normalizeElement).filter((e): e is Element => e !== null);
}

const single = { singleLine: true };

function normalizeElement(el: Element): Element | null {
  return visitElement(el, NORMAL_FORM);
}

const captioned = <E extends { caption?: string }>(el: E): E => (el.caption === undefined ? el : { ...el, caption: canonicalMarkup(el.caption) });

const NORMAL_FORM: SomeElementHandlers<Element | null> = {
  heading: (el) => ({ ...el, text: canonicalMarkup(el.text, single) }),
  text: (el) => {
    const text = canonicalMarkup(el.text);
    if (!text) return null;
    const out = { ...el, text };
    if (out.style && !Object.keys(out.style).length) delete out.style;
    return out;
  },
  quote: (el) => {
    const out = { ...el, text: canonicalMarkup(el.text) };
    if (el.attribution !== undefined) {
      const attribution = canonicalMarkup(el.attribution, single);
      if (attribution) out.attribution = attribution;
      else delete out.attribution;
    }
    return out;
  },
  list: (el) => {
    const out = { ...el, items: mapListItems<ListItem>(el.items, '', (item, _path, items) => (items?.length ? { text: canonicalMarkup(item), items } : canonicalMarkup(item))) };
    if (out.start === 1) delete out.start;
    return out;
  },
  table: (el) => normalizeTable(el),
  image: captioned,
  chart: captioned,
  qrCode: captioned,
  code: captioned,
  math: captioned,
  blockRef: (el) => (el.content === undefined ? el : { ...el, content: normalizeContent(el.content as unknown as Element[]) as unknown as typeof el.content }),
  otherwise: (el) => el,
};

function normalizeTable(el: TableElement): TableElement {
  const out: TableElement = { ...el };
  if (out.caption !== undefined) out.caption = canonicalMarkup(out.caption);
  if (out.columns && out.columns.every((c) => c.width === undefined && c.align === undefined)) delete out.columns;
  if (el.rows) {
    const headerRows = countHeaderRows(el);
    out.rows = el.rows.map((row) => rowCells(row).map(normalizeCell));
    if (headerRows) out.headerRows = headerRows;
    else delete out.headerRows;
  }
  return out;
}

function normalizeCell(cell: TableCell): TableCell {
  if (typeof cell === 'number') return canonicalMarkup(String(cell), single);
  if (typeof cell === 'string') return canonicalMarkup(cell, single);
  const text = canonicalMarkup(cell.text, single);
  if (cell.colspan === undefined && cell.rowspan === undefined && cell.align === undefined) return text;
  return { ...cell, text };
}
