// The one place that knows the shape of the element tree: a handler table by element type, and walkers over sections' content, list items and table cells.
//
// Every translator of document JSON (normalize, references, readiness, serialize, the Typst data, the office resolver)
// dispatches through visitElement. A new element type is added to contracts/document-json.ts and then the compiler names
// every complete handler table that lacks it.
// Types only: the render threads import this (through references.ts) and start faster without TypeBox.
import type { DocumentJson, Element, ElementType, HeadingElement, ListItem, Section, TableCell, TableRow } from '../contracts/document-json.js';

export type HeadingType = HeadingElement['type'];
export type HeadingLevel = 1 | 2 | 3 | 4 | 5 | 6;

/** What a handler table is keyed by: the element types, with h1–h6 as one `heading`. */
export type ElementKind = 'heading' | Exclude<ElementType, HeadingType>;
export type ElementOfKind<K extends ElementKind> = K extends 'heading' ? HeadingElement : Extract<Element, { type: K }>;

/** A handler for every kind of element: a translator that must say what each element becomes. */
export type ElementHandlers<R, C = void> = { [K in ElementKind]: (el: ElementOfKind<K>, context: C) => R };

/** Handlers for some kinds and `otherwise` for the rest: a check that concerns a few kinds of element. */
export type SomeElementHandlers<R, C = void> = Partial<ElementHandlers<R, C>> & { otherwise: (el: Element, context: C) => R };

const HEADINGS: Record<HeadingType, true> = { h1: true, h2: true, h3: true, h4: true, h5: true, h6: true };

export function isHeading(el: Element): el is HeadingElement {
  return Object.hasOwn(HEADINGS, el.type);
}

/** 1 for an h1, … 6 for an h6. */
export function headingLevel(el: HeadingElement): HeadingLevel {
  return Number(el.type[1]) as HeadingLevel;
}

/**
 * Calls the handler for the element's kind with `context` (a path, usually). An element whose type no
 * handler knows (only an unvalidated document has one) goes to `otherwise`, or gives undefined.
 */
export function visitElement<R, C = void>(el: Element, handlers: ElementHandlers<R, C> | SomeElementHandlers<R, C>, context: C): R;
export function visitElement<R>(el: Element, handlers: ElementHandlers<R> | SomeElementHandlers<R>): R;
export function visitElement<R, C>(el: Element, handlers: ElementHandlers<R, C> | SomeElementHandlers<R, C>, context?: C): R {
  const kind: ElementKind = isHeading(el) ? 'heading' : el.type;
  const handler = (handlers as Partial<Record<ElementKind, (el: Element, context: C) => R>>)[kind];
  if (handler) return handler(el, context as C);
  return (handlers as Partial<SomeElementHandlers<R, C>>).otherwise?.(el, context as C) as R;
}

/**
 * Each element of each section in document order, with its path `sections[i].content[j]` (after `prefix`); the
 * elements a blockRef holds (a saved snapshot's content) follow it, at `….content[j].content[k]`.
 */
export function forEachElement(doc: DocumentJson, visit: (el: Element, path: string, section: Section) => void, prefix = ''): void {
  doc.sections.forEach((section, i) => walkContent(section.content, `${prefix}sections[${i}].content`, (el, path) => visit(el, path, section)));
}

function walkContent(content: readonly Element[], base: string, visit: (el: Element, path: string) => void): void {
  content.forEach((el, j) => {
    const path = `${base}[${j}]`;
    visit(el, path);
    if (el.type === 'blockRef' && Array.isArray(el.content)) walkContent(el.content as unknown as Element[], `${path}.content`, visit);
  });
}

/** The anchors a reference may point to: every section id and element id (in blocks' content too). */
export function anchorIds(doc: DocumentJson): Set<string> {
  const ids = new Set<string>();
  for (const section of doc.sections) if (section.id) ids.add(section.id);
  forEachElement(doc, (el) => {
    if ('id' in el && typeof el.id === 'string') ids.add(el.id);
  });
  return ids;
}

/**
 * Maps a list's items, depth first: `item` gets each item's text with its path and the mapped sub-items
 * (undefined when the item has no `items`, [] when it has an empty one).
 */
export function mapListItems<T>(items: readonly ListItem[], path: string, item: (text: string, path: string, children: T[] | undefined) => T): T[] {
  return items.map((it, i) => {
    if (typeof it === 'string') return item(it, `${path}[${i}]`, undefined);
    return item(it.text, `${path}[${i}].text`, it.items ? mapListItems(it.items, `${path}[${i}].items`, item) : undefined);
  });
}

/** A row's cells: a row is an array of cells or `{cells, header}`. */
export function rowCells(row: TableRow): TableCell[] {
  return Array.isArray(row) ? row : row.cells;
}

/** Maps a table's rows of cells; `cell` gets each cell with the path of its text (`…[j]`, or `…[j].text` for a cell object). */
export function mapTableCells<T>(rows: readonly TableRow[], path: string, cell: (cell: TableCell, path: string) => T): T[][] {
  return rows.map((row, i) => {
    const at = Array.isArray(row) ? `${path}[${i}]` : `${path}[${i}].cells`;
    return rowCells(row).map((c, j) => cell(c, typeof c === 'object' ? `${at}[${j}].text` : `${at}[${j}]`));
  });
}

/** A cell's text as written: a number as its digits. */
export function cellText(cell: TableCell): string {
  return typeof cell === 'number' ? String(cell) : typeof cell === 'string' ? cell : cell.text;
}
