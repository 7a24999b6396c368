// GFM tables → table elements: spans and alignment per cell, caption, id, widths and header rows from the attribute paragraph after the table.
import type { Nodes, PhrasingContent, Table } from 'mdast';
import type { Element, TableCell, TableColumn } from '../../contracts/document-json.js';
import { parseAttributeList, readAttributes, type Attributes, type Kind } from './attributes.js';
import type { ParseContext } from './context.js';
import { markup, phrasing } from './phrasing.js';

/** A GFM table; `attributes` come from a `{…}` paragraph right after it. */
export function table(ctx: ParseContext, node: Table, attributes: Attributes | null): Element {
  const base = ctx.path;
  const width = node.align?.length ?? node.children[0]?.children.length ?? 0;
  const rows: TableCell[][] = [];
  let down: number[] = new Array<number>(width).fill(0);
  node.children.forEach((row, r) => {
    ctx.mark(`${base}.rows[${r}]`, row);
    if (row.children.length > width) ctx.warn('INVALID_TABLE', `row ${r + 1} has ${row.children.length} cells but the header row has ${width}; the extra cells are dropped`, row.children[width]!, `${base}.rows[${r}]`);
    const next = down.map((n) => Math.max(0, n - 1));
    const cells: TableCell[] = [];
    const covered = (c: number) => {
      const cell = row.children[c];
      if (cell && cell.children.length) ctx.warn('INVALID_TABLE', `the cell in row ${r + 1}, column ${c + 1} is covered by a colspan or rowspan; its content is dropped`, cell, `${base}.rows[${r}]`);
    };
    for (let c = 0; c < width; ) {
      if ((down[c] ?? 0) > 0) {
        covered(c);
        c++;
        continue;
      }
      const cell = row.children[c];
      const path = `${base}.rows[${r}][${cells.length}]`;
      ctx.mark(path, cell ?? row);
      const { children, values } = cellAttributes(ctx, cell?.children ?? [], cell ?? row);
      const text = markup(ctx, phrasing(ctx, children), cell ?? row, { singleLine: true });
      const colspan = typeof values.colspan === 'number' ? values.colspan : 1;
      const rowspan = typeof values.rowspan === 'number' ? values.rowspan : 1;
      cells.push(values.colspan !== undefined || values.rowspan !== undefined || values.align !== undefined ? ({ text, ...values } as TableCell) : text);
      for (let k = c + 1; k < Math.min(width, c + colspan); k++) covered(k);
      for (let k = c; k < Math.min(width, c + Math.max(1, colspan)); k++) if (rowspan > 1) next[k] = rowspan - 1;
      c += Math.max(1, Math.trunc(colspan));
    }
    rows.push(cells);
    down = next;
  });
  const element: Record<string, unknown> = { type: 'table' };
  const v = attributes ? readAttributes(ctx, attributes, TABLE_ATTRIBUTES, 'a table', node) : {};
  Object.assign(element, tableSettings(ctx, v, node.align ?? [], width, node));
  element.headerRows = v.headerRows ?? 1;
  if (element.headerRows === 0) delete element.headerRows;
  element.rows = rows;
  return element as Element;
}

export const TABLE_ATTRIBUTES: Record<string, Kind> = { id: 'string', caption: 'string', align: 'string', widths: 'string', aligns: 'string', headerRows: 'integer' };

/** id, caption, placement and `columns` from `widths="2fr 1fr"` / `aligns="left right"` and the GFM delimiter row. */
export function tableSettings(ctx: ParseContext, v: Record<string, string | number | boolean>, gfmAlign: ReadonlyArray<string | null | undefined>, width: number, at: Nodes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (v.id !== undefined) out.id = v.id;
  if (v.caption !== undefined) out.caption = v.caption;
  if (v.align !== undefined) out.align = v.align;
  const widths = typeof v.widths === 'string' ? v.widths.trim().split(/\s+/) : null;
  const aligns = typeof v.aligns === 'string' ? v.aligns.trim().split(/\s+/) : null;
  const count = Math.max(width, widths?.length ?? 0, aligns?.length ?? 0);
  if (widths && widths.length !== count) ctx.error('INVALID_ATTRIBUTE', `widths gives ${widths.length} widths for ${count} columns`, at);
  if (aligns && aligns.length !== count) ctx.error('INVALID_ATTRIBUTE', `aligns gives ${aligns.length} alignments for ${count} columns`, at);
  const columns: TableColumn[] = [];
  for (let c = 0; c < count; c++) {
    const column: Record<string, unknown> = {};
    const w = widths?.[c];
    if (w !== undefined && w !== '-') column.width = /^\d+(\.\d+)?$/.test(w) ? Number(w) : w;
    const a = aligns?.[c] ?? gfmAlign[c];
    if (a && a !== '-') column.align = a;
    columns.push(column as TableColumn);
  }
  if (columns.some((col) => Object.keys(col).length)) out.columns = columns;
  return out;
}

/** `{colspan=2 rowspan=3 align=right}` at the start of a cell. */
function cellAttributes(ctx: ParseContext, children: PhrasingContent[], at: Nodes): { children: PhrasingContent[]; values: Record<string, string | number | boolean> } {
  const first = children[0];
  if (first?.type !== 'text') return { children, values: {} };
  const raw = ctx.raw(first);
  const m = /^\{[^{}\n]*\}/.exec(raw);
  if (!m || !first.value.startsWith(m[0])) return { children, values: {} };
  const parsed = parseAttributeList(m[0]);
  if (!parsed) return { children, values: {} };
  const rest = [{ ...first, value: first.value.slice(m[0].length).replace(/^[ \t]+/, '') }, ...children.slice(1)];
  if ('error' in parsed) {
    ctx.error('INVALID_ATTRIBUTE', `the cell attributes ${m[0]} ${parsed.error}`, at);
    return { children: rest, values: {} };
  }
  return { children: rest, values: readAttributes(ctx, parsed.attributes, { colspan: 'integer', rowspan: 'integer', align: 'string' }, 'a table cell', at) };
}

