// Blocks of the resolved document → Word paragraphs, tables and fields. Each element becomes the
// structure Word itself would make: heading styles, numbered lists, tables with header rows, captions
// with SEQ fields, TOC fields for contents and the lists of figures and tables.
import {
  AlignmentType,
  BorderStyle,
  HeadingLevel,
  ImageRun,
  LineRuleType,
  PageBreak,
  ShadingType,
  SimpleField,
  Table,
  TableCell,
  TableLayoutType,
  TableOfContents,
  TableRow,
  TextRun,
  WidthType,
  type FileChild,
  type Paragraph,
  type ParagraphChild,
} from 'docx';
import type { Block, BlockAlign, Caption, ListItemBlock, ParStyle, Picture, TextAlign } from './model.js';
import { hex, halfPoints, seqIdentifier, twipsFromCm, type DocxContext } from './docx-context.js';
import { inlines, officeMath, type RunFormat } from './docx-inline.js';

const HEADINGS = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6] as const;
const ALIGN = { left: AlignmentType.LEFT, center: AlignmentType.CENTER, right: AlignmentType.RIGHT, justify: AlignmentType.JUSTIFIED } as const;
/** 1 cm in EMU; docx takes image sizes in 96-dpi pixels and multiplies by 9525, so fractional pixels keep the exact size. */
const PX_PER_CM = 360000 / 9525;
/** Code blocks up to this many lines are kept on one page. */
const KEEP_CODE_LINES = 20;

const align = (a: TextAlign | BlockAlign | null | undefined) => (a ? ALIGN[a] : undefined);
/** docx writes `keepNext: false` out as an element; leaving it unset keeps large documents' XML (and its writing time) smaller. */
const keep = (on: boolean) => (on ? true : undefined);

export function blocks(ctx: DocxContext, content: Block[]): FileChild[] {
  return content.flatMap((b) => block(ctx, b));
}

function block(ctx: DocxContext, b: Block): FileChild[] {
  switch (b.t) {
    case 'heading':
      ctx.anchor(b.id);
      return [ctx.p({ heading: HEADINGS[b.level - 1], alignment: align(b.align), children: inlines(ctx, b.c) })];
    case 'par':
      return [ctx.p({ alignment: align(b.align), children: inlines(ctx, b.c, parFormat(b.style)) })];
    case 'list':
      return listItems(ctx, b.items, ctx.list(b.ordered, b.start));
    case 'table':
      return table(ctx, b);
    case 'image':
      ctx.anchor(b.id);
      return [ctx.p({ alignment: align(b.align), keepNext: keep(b.caption !== null), children: [picture(b.picture)] }), ...caption(ctx, b.caption, 'figure', b.align)];
    case 'code':
      return code(ctx, b);
    case 'math': {
      ctx.anchor(b.id);
      const eq = ctx.p({ alignment: b.display ? AlignmentType.CENTER : undefined, keepNext: keep(b.caption !== null), children: [officeMath(ctx, b.mathml, b.latex, b.display)] });
      return [eq, ...caption(ctx, b.caption, 'other', b.display ? 'center' : null)];
    }
    case 'quote': {
      const out = [ctx.p({ style: 'Quote', alignment: align(b.align), keepNext: keep(b.attribution !== null), children: inlines(ctx, b.c) })];
      if (b.attribution) out.push(ctx.p({ style: 'Quote', alignment: AlignmentType.RIGHT, children: [new TextRun('\u2014 '), ...inlines(ctx, b.attribution)] }));
      return out;
    }
    case 'divider':
      return [ctx.p({ style: 'Divider' })];
    case 'pagebreak':
      return [ctx.p({ spacing: { before: 0, after: 0 }, children: [new PageBreak()] })];
    case 'spacer':
      return [spacer(ctx, b.heightCm)];
    case 'toc':
      return [
        ...title(ctx, b.title),
        new TableOfContents(b.title || 'Contents', { hyperlink: true, headingStyleRange: `1-${b.depth}`, cachedEntries: b.entries.map((e) => ({ title: e.text, level: e.level, href: ctx.bookmark(e.id) })) }),
      ];
    case 'lof':
    case 'lot':
      return [
        ...title(ctx, b.title),
        new TableOfContents(b.title, { hyperlink: true, captionLabelIncludingNumbers: b.t === 'lof' ? ctx.seq.figure : ctx.seq.table, cachedEntries: b.entries.map((e) => ({ title: e.text, level: 1, href: ctx.bookmark(e.id) })) }),
      ];
    case 'bibliography':
      // A level-1 heading, as in the PDF, so the TOC lists the references.
      ctx.anchor(b.id);
      return [...(b.title ? [ctx.p({ heading: HeadingLevel.HEADING_1, children: [new TextRun(b.title)] })] : []), ...b.entries.map((e) => ctx.p({ style: 'Bibliography', children: inlines(ctx, e) }))];
  }
}

/** An empty paragraph exactly `heightCm` tall (used for spacers and a page section's startY). */
export function spacer(ctx: DocxContext, heightCm: number): Paragraph {
  return ctx.p({ spacing: { before: 0, after: 0, line: Math.max(1, twipsFromCm(heightCm)), lineRule: LineRuleType.EXACT }, children: [new TextRun({ text: '', size: 2 })] });
}

function title(ctx: DocxContext, text: string): Paragraph[] {
  return text ? [ctx.p({ style: 'TOCHeading', children: [new TextRun(text)] })] : [];
}

function parFormat(style: ParStyle | null): RunFormat {
  if (!style) return {};
  return {
    ...(style.bold !== undefined ? { bold: style.bold } : {}),
    ...(style.italic !== undefined ? { italics: style.italic } : {}),
    ...(style.fontSize !== undefined ? { size: halfPoints(style.fontSize) } : {}),
    ...(style.fontFamily !== undefined ? { font: style.fontFamily } : {}),
    ...(style.color !== undefined ? { color: hex(style.color) } : {}),
  };
}

/** The items as numbered paragraphs, nested items one level deeper; only the list's last paragraph keeps the space after it. */
function listItems(ctx: DocxContext, items: ListItemBlock[], numbering: { reference: string; instance: number }): Paragraph[] {
  const flat: Array<{ item: ListItemBlock; level: number }> = [];
  const walk = (list: ListItemBlock[], level: number): void => {
    for (const item of list) {
      flat.push({ item, level });
      if (item.items?.length) walk(item.items, level + 1);
    }
  };
  walk(items, 0);
  return flat.map(({ item, level }, i) =>
    ctx.p({ numbering: { ...numbering, level: Math.min(level, 8) }, spacing: { before: 0, ...(i < flat.length - 1 ? { after: 0 } : {}) }, children: inlines(ctx, item.c) }),
  );
}

/** "Figure 3: text" with the number in a SEQ field (its cached result is the resolved number), so Word renumbers and lists it. */
function caption(ctx: DocxContext, cap: Caption | null, kind: 'figure' | 'table' | 'other', placement: BlockAlign | null = null): Paragraph[] {
  if (!cap) return [];
  const seq = kind === 'figure' ? ctx.seq.figure : kind === 'table' ? ctx.seq.table : seqIdentifier(cap.label);
  return [
    ctx.p({
      style: 'Caption',
      // Under the element it names, aligned with it.
      alignment: align(placement),
      children: [new TextRun(`${cap.label} `), new SimpleField(`SEQ ${seq} \\* ARABIC`, String(cap.number)), new TextRun(cap.separator ?? ': '), ...inlines(ctx, cap.c)],
    }),
  ];
}

function picture(p: Picture): ParagraphChild {
  const type = p.mimeType === 'image/jpeg' ? 'jpg' : p.mimeType === 'image/gif' ? 'gif' : 'png';
  return new ImageRun({
    type,
    data: p.bytes,
    transformation: { width: p.widthCm * PX_PER_CM, height: p.heightCm * PX_PER_CM },
    altText: { name: p.alt ? p.alt.slice(0, 100) : 'Picture', description: p.alt, title: p.alt },
  });
}

function code(ctx: DocxContext, b: Extract<Block, { t: 'code' }>): FileChild[] {
  ctx.anchor(b.id);
  const digits = String(b.lines.length).length;
  const together = b.lines.length <= KEEP_CODE_LINES;
  const lines = b.lines.map((tokens, i) => {
    const children: ParagraphChild[] = tokens.map((t) => new TextRun({ text: t.v, ...(t.color ? { color: hex(t.color) } : {}), bold: t.bold || undefined, italics: t.italic || undefined }));
    if (b.lineNumbers) children.unshift(new TextRun({ style: 'LineNumberChar', text: `${String(i + 1).padStart(digits)}  ` }));
    return ctx.p({ style: 'SourceCode', keepNext: keep((together && i < b.lines.length - 1) || (i === b.lines.length - 1 && b.caption !== null)), children });
  });
  return [...lines, ...caption(ctx, b.caption, 'other')];
}

function table(ctx: DocxContext, b: Extract<Block, { t: 'table' }>): FileChild[] {
  const { table: ts } = ctx.doc.styles;
  const grid = columnWidths(b.widths, ctx.textWidth);
  const auto = b.widths.every((w) => w === null);
  const border = { style: BorderStyle.SINGLE, size: 4, color: hex(ts.borderColor) };
  const columns = gridColumns(b.rows);
  ctx.anchor(b.id);
  const rows = b.rows.map((row, r) => {
    const header = r < b.header;
    const stripe = !header && ts.stripe && (r - b.header) % 2 === 1;
    const fill = header ? hex(ts.headerBackground) : stripe ? hex(ts.stripeColor) : undefined;
    const cells = row.map((cell, i) => {
      const col = columns[r]![i]!;
      const width = grid.slice(col, col + cell.colspan).reduce((a, w) => a + w, 0);
      const cellAlign = cell.align ?? b.aligns[col] ?? null;
      const fmt: RunFormat = header ? { bold: true, ...(ts.headerColor ? { color: hex(ts.headerColor) } : {}) } : {};
      return new TableCell({
        children: [ctx.p({ style: 'TableText', alignment: align(cellAlign), children: inlines(ctx, cell.c, fmt) })],
        columnSpan: cell.colspan > 1 ? cell.colspan : undefined,
        rowSpan: cell.rowspan > 1 ? cell.rowspan : undefined,
        ...(auto ? {} : { width: { size: width, type: WidthType.DXA } }),
        ...(fill ? { shading: { fill, type: ShadingType.CLEAR, color: 'auto' } } : {}),
      });
    });
    return new TableRow({ children: cells, tableHeader: header || undefined, keepNext: keep(b.caption !== null && r === b.rows.length - 1) });
  });
  const t = new Table({
    rows,
    columnWidths: grid,
    // Widths given: a fixed layout keeps them. All auto: Word fits the columns to their content.
    ...(auto ? { width: { size: 0, type: WidthType.AUTO }, layout: TableLayoutType.AUTOFIT } : { width: { size: grid.reduce((a, w) => a + w, 0), type: WidthType.DXA }, layout: TableLayoutType.FIXED }),
    alignment: align(b.align),
    // Cell padding once for the table (tblCellMar), as in the PDF: 4 pt above and below, 6 pt at the sides.
    margins: { top: 80, bottom: 80, left: 120, right: 120 },
    borders: { top: border, bottom: border, left: border, right: border, insideHorizontal: border, insideVertical: border },
  });
  return [t, ...caption(ctx, b.caption, 'table', b.align)];
}

/**
 * The grid column each cell starts in. Cells covered by a rowspan from above are absent from the model's
 * rows, as in HTML, so a cell starts at the first column that no earlier rowspan still occupies.
 */
function gridColumns(rows: Extract<Block, { t: 'table' }>['rows']): number[][] {
  const busyUntil: number[] = [];
  return rows.map((row, r) => {
    let col = 0;
    return row.map((cell) => {
      while ((busyUntil[col] ?? 0) > r) col++;
      const start = col;
      for (let k = 0; k < cell.colspan; k++) busyUntil[col + k] = r + cell.rowspan;
      col += cell.colspan;
      return start;
    });
  });
}

/**
 * Column widths in twips: the model's fractions of the available width (summing to less than 1 for a
 * table of cm columns narrower than the text); an all-auto table gets equal columns as the starting grid.
 */
function columnWidths(widths: Array<number | null>, total: number): number[] {
  return widths.map((w) => Math.max(1, Math.floor((w ?? 1 / widths.length) * total)));
}
