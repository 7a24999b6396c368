// The body of word/document.xml → document JSON elements: headings, paragraphs, nested lists, tables with spans, images, page breaks.
import type { Element, ImageElement, ListItem, TableCell, TableElement, TableRow } from '../../contracts/document-json.js';
import { DOCUMENT_LIMITS } from '../../contracts/document-json.js';
import { inlineText, type Inline } from '../../document/inline-markup.js';
import { toMarkup } from '../../document/markdown/json-markup.js';
import { pendingImagePath } from '../../sdk/index.js';
import { isElement, kid, kids, textContent, type XmlElement } from '../../engines/office-package/xml.js';
import type { ImportContext } from './context.js';
import { paragraphPieces, type Piece } from './inline.js';

const L = DOCUMENT_LIMITS;

/** An image the converter placed: its package part and the ref its element's src names until the kernel stores it. */
export interface PlacedImage {
  ref: string;
  part: string;
}

interface OpenList {
  numId: string;
  ordered: boolean;
  start: number;
  root: ListItem[];
  /** The item arrays from the top level down to the current level. */
  stack: ListItem[][];
}

export class BodyConverter {
  readonly elements: Element[] = [];
  readonly images: PlacedImage[] = [];
  readonly counts = { paragraphs: 0, headings: 0, lists: 0, tables: 0, images: 0, footnotes: 0, pageBreaks: 0 };
  #list: OpenList | null = null;
  #paragraph = 0;
  #table = 0;
  #where = '';
  #flags = new Set<string>();

  constructor(private readonly ctx: ImportContext, private readonly part: string) {
    ctx.location = () => this.#where;
    ctx.flag = (name) => {
      if (this.#flags.has(name)) return true;
      this.#flags.add(name);
      return false;
    };
  }

  body(body: XmlElement): void {
    for (const c of body.children) {
      if (!isElement(c)) continue;
      if (c.name === 'w:p') this.#paragraphElement(c);
      else if (c.name === 'w:tbl') {
        this.#closeList();
        this.#tableElement(c);
      } else if (c.name === 'w:sdt') {
        const content = kid(c, 'w:sdtContent');
        if (content) this.body(content);
      } else if (c.name === 'w:customXml' || c.name === 'w:ins' || c.name === 'w:moveTo') this.body(c);
      else if (c.name === 'm:oMathPara') {
        this.#where = `${this.part} paragraph ${this.#paragraph + 1}`;
        this.ctx.report.warn('MATH_DROPPED', this.#where, 'An equation was left out.');
      }
    }
    this.#closeList();
  }

  #enter(): void {
    this.#paragraph++;
    this.#where = `${this.part} paragraph ${this.#paragraph}`;
    this.#flags = new Set();
  }

  #paragraphElement(p: XmlElement): void {
    this.#enter();
    const pPr = kid(p, 'w:pPr');
    const styleId = kid(pPr, 'w:pStyle')?.attrs['w:val'];
    const pieces = paragraphPieces(p, this.ctx);
    const outline = kid(pPr, 'w:outlineLvl')?.attrs['w:val'];
    const level = outline !== undefined && Number(outline) < 9 ? Math.min(6, Number(outline) + 1) : this.ctx.styles.headingLevel(styleId);
    const numPr = kid(pPr, 'w:numPr');
    const directLevel = Number(kid(numPr, 'w:ilvl')?.attrs['w:val'] ?? 0);
    const direct = numPr ? { numId: kid(numPr, 'w:numId')?.attrs['w:val'] ?? '0', ilvl: directLevel, formatLevel: directLevel } : undefined;
    const numbering = direct ?? this.ctx.styles.numbering(styleId);
    const inline = pieces.flatMap((x) => (x.k === 'inline' ? [x.node] : []));
    this.counts.footnotes += countFootnotes(inline);

    if (numbering && numbering.numId !== '0' && level === undefined) {
      this.#listItem(numbering.numId, numbering.ilvl, numbering.formatLevel, inline);
      this.#blocks(pieces.filter((x) => x.k !== 'inline'));
      return;
    }
    this.#closeList();
    // Inline content between images and page breaks becomes one paragraph (or heading) each.
    let run: Inline[] = [];
    const flush = () => {
      if (run.some((n) => !(n.t === 'text' && !n.v.trim()) && n.t !== 'br')) this.#textBlock(run, level, kid(pPr, 'w:jc')?.attrs['w:val']);
      run = [];
    };
    for (const x of pieces) {
      if (x.k === 'inline') run.push(x.node);
      else {
        flush();
        this.#blocks([x]);
      }
    }
    flush();
    // A section break inside the body: the next section starts on a new page unless it is continuous.
    const sectPr = kid(pPr, 'w:sectPr');
    if (sectPr) {
      const type = kid(sectPr, 'w:type')?.attrs['w:val'];
      this.ctx.report.warn('SECTION_SETTINGS_MERGED', this.#where, 'A section break; the page settings of the last section apply to the whole document.');
      if (type !== 'continuous') this.#push({ type: 'pageBreak' });
    }
  }

  #textBlock(nodes: Inline[], level: number | undefined, jc: string | undefined): void {
    const align = jc === 'center' ? 'center' : jc === 'right' || jc === 'end' ? 'right' : jc === 'both' || jc === 'distribute' ? 'justify' : undefined;
    if (level !== undefined) {
      const text = this.#markup(nodes, L.headingLength, true);
      if (!text.trim()) return;
      this.counts.headings++;
      this.#push({ type: `h${level}` as 'h1', text, ...(align && align !== 'justify' ? { align } : {}) });
      return;
    }
    this.counts.paragraphs++;
    this.#push({ type: 'text', text: this.#markup(nodes, L.textLength, false), ...(align ? { align } : {}) });
  }

  #blocks(pieces: Piece[]): void {
    for (const x of pieces) {
      if (x.k === 'pageBreak') {
        this.#closeList();
        this.counts.pageBreaks++;
        this.#push({ type: 'pageBreak' });
      } else if (x.k === 'image') {
        const image = this.#image(x);
        if (image) {
          this.#closeList();
          this.#push(image);
        }
      }
    }
  }

  #image(x: Extract<Piece, { k: 'image' }>): ImageElement | null {
    if (this.ctx.inTable) {
      this.ctx.report.warn('IMAGE_IN_TABLE_DROPPED', this.#where, 'An image inside a table cell was left out; table cells hold text only.');
      return null;
    }
    const rel = this.ctx.rels.get(x.rel);
    if (!rel || rel.external || !this.ctx.pkg.has(rel.target)) {
      this.ctx.report.warn('IMAGE_UNSUPPORTED', this.#where, rel?.external ? `A linked (not embedded) image ${rel.target} was left out.` : 'An image whose part is missing from the package was left out.');
      return null;
    }
    let placed = this.images.find((i) => i.part === rel.target);
    if (!placed) {
      placed = { ref: `img${this.images.length + 1}`, part: rel.target };
      this.images.push(placed);
    }
    this.counts.images++;
    const width = x.widthCm !== undefined ? Math.round(Math.min(100, Math.max(0.01, x.widthCm)) * 100) / 100 : undefined;
    return { type: 'image', src: pendingImagePath(placed.ref), alt: x.alt.slice(0, L.altLength), ...(width ? { width } : {}) };
  }

  // ------------------------------------------------------------------ lists

  #listItem(numId: string, ilvl: number, formatLevel: number, nodes: Inline[]): void {
    const kind = this.ctx.numbering.level(numId, formatLevel);
    if (!this.#list || (ilvl === 0 && this.#list.numId !== numId)) {
      this.#closeList();
      const top = this.ctx.numbering.level(numId, 0);
      const root: ListItem[] = [];
      this.#list = { numId, ordered: ilvl === 0 ? kind.ordered : top.ordered, start: top.start, root, stack: [root] };
    }
    const list = this.#list;
    if (kind.ordered !== list.ordered && !this.ctx.flag('list-kind')) {
      this.ctx.report.warn('LIST_KIND_MIXED', this.#where, `A ${kind.ordered ? 'numbered' : 'bulleted'} level inside a ${list.ordered ? 'numbered' : 'bulleted'} list takes the list's kind.`);
    }
    let level = ilvl;
    if (level >= L.listDepth) {
      this.ctx.report.warn('LIST_DEPTH_CLAMPED', this.#where, `A list item at level ${ilvl + 1} was moved to level ${L.listDepth}.`);
      level = L.listDepth - 1;
    }
    while (list.stack.length - 1 > level) list.stack.pop();
    // Deeper: the previous item gets a sub-list (one level at a time; a jump of several levels nests once).
    while (list.stack.length - 1 < level) {
      const items = list.stack[list.stack.length - 1]!;
      const last = items[items.length - 1];
      if (last === undefined) break;
      const parent = typeof last === 'string' ? { text: last, items: [] as ListItem[] } : last;
      parent.items ??= [];
      items[items.length - 1] = parent;
      list.stack.push(parent.items);
    }
    const items = list.stack[list.stack.length - 1]!;
    if (items.length < L.listItems) items.push(this.#markup(nodes, L.cellLength, true));
  }

  #closeList(): void {
    const list = this.#list;
    if (!list) return;
    this.#list = null;
    if (!list.root.length) return;
    this.counts.lists++;
    this.#push({ type: 'list', ordered: list.ordered, ...(list.ordered && list.start !== 1 ? { start: list.start } : {}), items: list.root });
  }

  // ------------------------------------------------------------------ tables

  #tableElement(tbl: XmlElement): void {
    this.#table++;
    const tableWhere = `${this.part} table ${this.#table}`;
    const grid = kids(kid(tbl, 'w:tblGrid') ?? tbl, 'w:gridCol').map((g) => Number(g.attrs['w:w']) || 0);
    type Cell = { text: string; colspan: number; rowspan: number };
    const rows: Array<{ cells: Cell[]; header: boolean; width: number }> = [];
    const open: Array<Cell | null> = [];
    let headerRun = true;
    for (const [r, tr] of kids(tbl, 'w:tr').entries()) {
      if (rows.length >= L.tableRows) break;
      const trPr = kid(tr, 'w:trPr');
      const header: boolean = headerRun && onOffAttr(kid(trPr, 'w:tblHeader'));
      headerRun = header;
      const cells: Cell[] = [];
      let col = 0;
      const before = Number(kid(trPr, 'w:gridBefore')?.attrs['w:val'] ?? 0);
      for (let i = 0; i < before; i++, col++) {
        const blank = { text: '', colspan: 1, rowspan: 1 };
        cells.push(blank);
        open[col] = null;
      }
      for (const [c, tc] of cellsOf(tr).entries()) {
        const tcPr = kid(tc, 'w:tcPr');
        const span = Math.max(1, Math.min(L.tableColumns, Number(kid(tcPr, 'w:gridSpan')?.attrs['w:val'] ?? 1) || 1));
        const vMerge = kid(tcPr, 'w:vMerge');
        const mergeKind = vMerge ? (vMerge.attrs['w:val'] === 'restart' ? 'restart' : 'continue') : 'none';
        if (mergeKind === 'continue' && open[col]) {
          open[col]!.rowspan++;
          col += span;
          continue;
        }
        this.#where = `${tableWhere} row ${r + 1} cell ${c + 1}`;
        const cell = { text: this.#cellText(tc, header), colspan: span, rowspan: 1 };
        cells.push(cell);
        for (let k = col; k < col + span; k++) open[k] = mergeKind === 'restart' ? cell : null;
        col += span;
      }
      rows.push({ cells, header, width: col });
    }
    if (!rows.length) return;
    const columns = Math.min(L.tableColumns, Math.max(grid.length, ...rows.map((r) => r.width)));
    const out: TableRow[] = [];
    for (const [r, row] of rows.entries()) {
      let cells = row.cells;
      if (row.width < columns) {
        this.ctx.report.warn('TABLE_REPAIRED', `${tableWhere} row ${r + 1}`, `The row had ${row.width} of ${columns} columns; empty cells were added.`);
        cells = [...cells, ...Array.from({ length: columns - row.width }, () => ({ text: '', colspan: 1, rowspan: 1 }))];
      }
      const plain: TableCell[] = cells.map((c) => (c.colspan === 1 && c.rowspan === 1 ? c.text : { text: c.text, ...(c.colspan > 1 ? { colspan: c.colspan } : {}), ...(c.rowspan > 1 ? { rowspan: c.rowspan } : {}) }));
      out.push(row.header ? { cells: plain, header: true } : plain);
    }
    this.counts.tables++;
    const table: TableElement = { type: 'table', rows: out };
    if (grid.length === columns && grid.every((w) => w > 0)) table.columns = grid.map((w) => ({ width: `${Math.min(999, Math.max(0.1, Math.round(w / 56.7) / 10))}fr` }));
    this.#push(table);
  }

  /** A cell's paragraphs as one line; nested tables become text, images are left out. Header cells shown all bold lose that bold: header rows are bold anyway. */
  #cellText(tc: XmlElement, header: boolean): string {
    const nodes: Inline[] = [];
    const wasInTable = this.ctx.inTable;
    this.ctx.inTable = true;
    const add = (el: XmlElement) => {
      for (const c of el.children) {
        if (!isElement(c)) continue;
        if (c.name === 'w:p') {
          this.#paragraph++;
          const inline = paragraphPieces(c, this.ctx).flatMap((x) => {
            if (x.k === 'image') this.ctx.report.warn('IMAGE_IN_TABLE_DROPPED', this.#where, 'An image inside a table cell was left out; table cells hold text only.');
            return x.k === 'inline' ? [x.node] : [];
          });
          this.counts.footnotes += countFootnotes(inline);
          if (inline.length && nodes.length) nodes.push({ t: 'text', v: ' ' });
          nodes.push(...inline);
        } else if (c.name === 'w:tbl') {
          this.ctx.report.warn('NESTED_TABLE_FLATTENED', this.#where, 'A table inside this cell became text.');
          nodes.push({ t: 'text', v: ` ${kids(c, 'w:tr').map((tr) => cellsOf(tr).map((x) => textContent(x).trim()).join(' | ')).join(' / ')} ` });
        } else if (c.name === 'w:sdt' || c.name === 'w:sdtContent' || c.name === 'w:customXml') add(c);
      }
    };
    add(tc);
    this.ctx.inTable = wasInTable;
    const shown = nodes.filter((n) => !(n.t === 'text' && !n.v.trim()));
    if (header && shown.length === 1 && shown[0]!.t === 'strong') return this.#markup(shown[0]!.c, L.cellLength, true);
    return this.#markup(nodes, L.cellLength, true);
  }

  // ------------------------------------------------------------------ helpers

  /** Inline nodes as markup that escapes Word's text (`*`, `[`, `{{`, `~`, `^[`, `$`, `@[` stay literal; live placeholders are variable nodes by now), cut to a limit. */
  #markup(nodes: Inline[], max: number, singleLine: boolean): string {
    const r = toMarkup(nodes, { singleLine });
    if (r.simplified) this.ctx.report.warn('FORMATTING_SIMPLIFIED', this.#where, 'Emphasis the markup cannot express here was dropped; the text is kept.');
    if (r.markup.length <= max) return r.markup;
    this.ctx.report.warn('TEXT_TRUNCATED', this.#where, `The text (${r.markup.length} characters as markup) was cut to fit the limit of ${max}.`);
    return toMarkup([{ t: 'text', v: inlineText(nodes).slice(0, Math.floor(max / 2)) }], { singleLine }).markup;
  }

  #push(el: Element): void {
    this.elements.push(el);
  }
}

function onOffAttr(el: XmlElement | undefined): boolean {
  if (!el) return false;
  const v = el.attrs['w:val'];
  return v === undefined || !['0', 'false', 'off'].includes(v.toLowerCase());
}

/** The cells of a row, looking through content controls and custom XML around them. */
function cellsOf(tr: XmlElement): XmlElement[] {
  const out: XmlElement[] = [];
  for (const c of tr.children) {
    if (!isElement(c)) continue;
    if (c.name === 'w:tc') out.push(c);
    else if (c.name === 'w:sdt') out.push(...cellsOf(kid(c, 'w:sdtContent') ?? c));
    else if (c.name === 'w:customXml') out.push(...cellsOf(c));
  }
  return out;
}

function countFootnotes(nodes: Inline[]): number {
  let n = 0;
  for (const x of nodes) {
    if (x.t === 'footnote') n++;
    else if ('c' in x) n += countFootnotes(x.c);
  }
  return n;
}
