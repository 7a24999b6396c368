// Tables in ODF: a full grid where every spanned-over position is a covered cell, header rows in
// table:table-header-rows (Writer repeats them on every page), column widths, cell fill, borders and stripes.
import { el, type Xml, type XmlChild } from './xml.js';
import { cm, colour } from './odt-common.js';
import type { AutoStyles } from './odt-auto-styles.js';
import type { OfficeDocument, TableCellBlock, TextAlign } from './model.js';

type TableBlock = Extract<OfficeDocument['sections'][number]['content'][number], { t: 'table' }>;

export interface TableWriter {
  /** A cell's paragraph content. */
  inline(c: TableCellBlock['c']): XmlChild;
  /** Wraps a cell paragraph, taking any pending bookmark (a table's id lands in its first cell). */
  paragraph(style: string, content: XmlChild): Xml;
}

/** One grid row: the cells placed in it and the positions covered by spans from the left or from above. */
type Slot = { cell: TableCellBlock } | { covered: true } | { empty: true };

/** Lays the rows (each listing only the cells that start in it) onto the grid of `columns` columns. */
export function layoutGrid(rows: TableCellBlock[][], columns: number): Slot[][] {
  const grid: Slot[][] = rows.map(() => []);
  rows.forEach((row, r) => {
    let c = 0;
    for (const cell of row) {
      while (grid[r]![c]) c++;
      const colspan = Math.max(1, Math.min(cell.colspan, columns - c));
      const rowspan = Math.max(1, Math.min(cell.rowspan, rows.length - r));
      for (let dr = 0; dr < rowspan; dr++) {
        for (let dc = 0; dc < colspan; dc++) grid[r + dr]![c + dc] = dr === 0 && dc === 0 ? { cell: { ...cell, colspan, rowspan } } : { covered: true };
      }
      c += colspan;
    }
  });
  const width = Math.max(columns, ...grid.map((g) => g.length));
  for (const g of grid) for (let c = 0; c < width; c++) g[c] ??= { empty: true };
  return grid;
}

export function writeTable(doc: OfficeDocument, auto: AutoStyles, b: TableBlock, index: number, textWidthCm: number, pageBreak: { breakBefore: boolean; masterPage: string | null }, w: TableWriter): Xml {
  const ts = doc.styles.table;
  const columns = Math.max(1, b.widths.length, ...b.rows.map((r) => r.reduce((n, c) => n + Math.max(1, c.colspan), 0)));
  // ODF needs at least one row. The resolver refuses a table without rows; should one arrive, it keeps an empty row.
  const grid = layoutGrid(b.rows.length ? b.rows : [[]], columns);
  const widths = columnWidths(b.widths, grid[0]?.length ?? columns);
  // Fractions summing to less than 1 make a table of fixed columns narrower than the text, placed by `align`.
  const share = b.widths.every((w) => w === null) ? 1 : Math.min(1, b.widths.reduce<number>((s, w) => s + (w ?? 0), 0));
  const full = share >= 0.999;
  const tableWidthCm = textWidthCm * (full ? 1 : share);
  const name = `Table${index}`;
  const tableStyle = auto.style(
    'table',
    'Tbl',
    { 'style:master-page-name': pageBreak.masterPage },
    el('style:table-properties', {
      'style:width': cm(tableWidthCm),
      'table:align': full ? 'margins' : (b.align ?? 'left'),
      'fo:margin-top': '0.2cm',
      'fo:margin-bottom': b.caption ? '0cm' : '0.3cm',
      'fo:break-before': pageBreak.breakBefore ? 'page' : null,
      'style:may-break-between-rows': 'true',
      'fo:keep-with-next': b.caption ? 'always' : null,
    }),
  );
  const border = `0.5pt solid ${colour(ts.borderColor)}`;
  const cellStyles = new Map<string, string>();
  const cellStyle = (kind: 'header' | 'body' | 'stripe') => cellStyles.get(kind) ?? cellStyles.set(kind, newCellStyle(kind)).get(kind)!;
  const newCellStyle = (kind: 'header' | 'body' | 'stripe') =>
    auto.style(
      'table-cell',
      'Cell',
      {},
      el('style:table-cell-properties', {
        'fo:padding-left': '0.2cm',
        'fo:padding-right': '0.2cm',
        'fo:padding-top': '0.1cm',
        'fo:padding-bottom': '0.1cm',
        'fo:border': border,
        'fo:background-color': kind === 'header' ? colour(ts.headerBackground) : kind === 'stripe' ? colour(ts.stripeColor) : 'transparent',
      }),
    );
  const paraStyles = new Map<string, string>();
  const paraStyle = (header: boolean, align: TextAlign | null) => {
    const key = `${header}:${align}`;
    return paraStyles.get(key) ?? paraStyles.set(key, auto.paragraph(header ? 'Table_20_Heading' : 'Table_20_Contents', { align })).get(key)!;
  };

  const rowXml = (slots: Slot[], r: number) => {
    const header = r < b.header;
    const kind = header ? 'header' : ts.stripe && (r - b.header) % 2 === 1 ? 'stripe' : 'body';
    return el(
      'table:table-row',
      null,
      slots.map((slot, c) => {
        if ('covered' in slot) return el('table:covered-table-cell');
        const cell = 'cell' in slot ? slot.cell : null;
        const align = cell?.align ?? b.aligns[c] ?? null;
        return el(
          'table:table-cell',
          {
            'table:style-name': cellStyle(kind),
            'office:value-type': 'string',
            'table:number-columns-spanned': cell && cell.colspan > 1 ? cell.colspan : null,
            'table:number-rows-spanned': cell && cell.rowspan > 1 ? cell.rowspan : null,
          },
          w.paragraph(paraStyle(header, align), cell ? w.inline(cell.c) : null),
        );
      }),
    );
  };
  const rows = grid.map(rowXml);
  const header = rows.slice(0, b.header);
  return el(
    'table:table',
    { 'table:name': name, 'table:style-name': tableStyle },
    widths.map((f) => el('table:table-column', { 'table:style-name': auto.style('table-column', 'Col', {}, el('style:table-column-properties', { 'style:column-width': cm(f * tableWidthCm), 'style:rel-width': `${Math.max(1, Math.round(f * 10000))}*` })) })),
    header.length ? el('table:table-header-rows', null, header) : null,
    rows.slice(b.header),
  );
}

/** Each column's share of the table's width (summing to 1): given widths relative to each other, auto columns sharing what is left. */
export function columnWidths(widths: Array<number | null>, columns: number): number[] {
  const given = Array.from({ length: columns }, (_, i) => widths[i] ?? null);
  const fixed = given.reduce<number>((s, w) => s + (w !== null && w > 0 ? w : 0), 0);
  const autos = given.filter((w) => w === null || w <= 0).length;
  const rest = autos ? Math.max(0, 1 - fixed) / autos || 1 / columns : 0;
  const raw = given.map((w) => (w !== null && w > 0 ? w : rest));
  const sum = raw.reduce((s, w) => s + w, 0) || 1;
  return raw.map((w) => w / sum);
}
