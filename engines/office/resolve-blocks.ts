// The elements of a document resolved into office blocks, one handler per element type: headings bookmarked for the
// table of contents, captions numbered per kind as Typst counts figures, pictures sized to the page or column, tables
// with their widths, and the table of contents and lists of figures and tables filled once the content is known.
import { parseInline, inlineText } from '../../document/inline-markup.js';
import type { ChartElement, DocumentJson, Element, ListItem, TableElement } from '../../contracts/document-json.js';
import { headingLevel, mapListItems, mapTableCells, visitElement, type ElementHandlers } from '../../document/element-visitor.js';
import type { Words } from '../../document/locale-words.js';
import { chartSvg } from '../graphics/chart-svg.js';
import { qrSvg } from '../graphics/qr-svg.js';
import { barcodeSvg } from '../graphics/barcode-svg.js';
import { fontStack } from '../fonts/pdf-fonts.js';
import { documentCjkVariant, type CjkVariant } from '../fonts/scripts.js';
import { documentStrings } from '../fonts/glyph-coverage.js';
import { CHART_PALETTE, RenderInputError, documentColors, parseLength, plainChartText, renderEach, type Length, type LoadedImage } from '../render-input.js';
import { highlightCode } from './highlight.js';
import { latexToMathml } from './math.js';
import { PictureQueue, fitSize, naturalSizeCm, pixelSize, rasterPixels, type SizeCm } from './pictures.js';
import { plainText, type InlineResolver } from './resolve-inline.js';
import type { Block, Caption, ListItemBlock, OInline, ParStyle, TableCellBlock, TextAlign } from './model.js';

/** The chart size the PDF draws (16 cm wide, 0.56 as high) before scaling it to the element's width. */
const CHART_WIDTH_PT = 16 * 28.3465;
const CHART_HEIGHT_PT = CHART_WIDTH_PT * 0.56;
const PT_PER_CM = 72 / 2.54;

type CaptionKind = 'figure' | 'table' | 'listing' | 'equation';
type TocBlock = Extract<Block, { t: 'toc' }>;
type ListBlock = Extract<Block, { t: 'lof' | 'lot' }>;
export type BibliographyBlock = Extract<Block, { t: 'bibliography' }>;

export class BlockResolver {
  readonly #variables: Record<string, unknown>;
  readonly #defaults: NonNullable<DocumentJson['defaults']>;
  readonly #colors;
  /** Every bookmark id in use, so generated ones never collide with the document's. */
  readonly #ids: Set<string>;
  readonly #idCounters = new Map<string, number>();
  readonly #headings: Array<{ level: number; c: OInline[]; id: string }> = [];
  readonly #captions: Array<{ kind: CaptionKind; caption: Caption; id: string | null }> = [];
  readonly #counters: Record<CaptionKind, number> = { figure: 0, table: 0, listing: 0, equation: 0 };
  #equationNumber = 0;
  readonly #tocs: TocBlock[] = [];
  readonly #lists: ListBlock[] = [];
  readonly pictures: PictureQueue;
  bibliography: BibliographyBlock | null = null;
  /** Where pictures must fit: the text area of the page, or one column of it. */
  box: SizeCm;

  constructor(
    doc: DocumentJson,
    images: Map<string, LoadedImage>,
    fontDirs: string[],
    anchors: ReadonlySet<string>,
    box: SizeCm,
    private readonly words: Words,
    private readonly text: InlineResolver,
    private readonly problems: Array<{ path: string; message: string }>,
  ) {
    this.#variables = doc.variables ?? {};
    this.#defaults = doc.defaults ?? {};
    this.#colors = documentColors(this.#defaults);
    this.#ids = new Set(anchors);
    this.box = box;
    let cjk: CjkVariant | undefined;
    const texts = function* () {
      for (const s of documentStrings(doc)) yield s.text;
    };
    // As the PDF chooses it (engines/typst/typst-data.ts), worked out only for a picture whose text needs it.
    this.pictures = new PictureQueue(images, fontDirs, () => (cjk ??= documentCjkVariant(this.#defaults.locale, texts)));
  }

  /** A section's content; a problem of one element is collected with its path and the others still resolved. */
  blocks(elements: Element[], path: string): Block[] {
    return renderEach(elements, path, this.problems, (el, at) => visitElement(el, this.#office, at));
  }

  /** The bibliography's title is a level-1 heading in every target, listed in the table of contents (as Typst does). */
  newBibliography(title: string): BibliographyBlock {
    const id = this.#newId('_bib');
    if (title) this.#headings.push({ level: 1, c: [{ t: 'text', v: title }], id });
    this.bibliography = { t: 'bibliography', title, entries: [], id };
    return this.bibliography;
  }

  /** The entries of the table of contents and the lists of figures and tables, once every heading and caption is known. */
  fillLists(): void {
    for (const toc of this.#tocs) toc.entries = this.#headings.filter((h) => h.level <= toc.depth).map((h) => ({ level: h.level, text: plainText(h.c), id: h.id }));
    for (const list of this.#lists) {
      const kind = list.t === 'lof' ? 'figure' : 'table';
      list.entries = this.#captions.filter((c) => c.kind === kind && c.id !== null).map((c) => ({ text: `${c.caption.label} ${c.caption.number}${c.caption.separator ?? ': '}${plainText(c.caption.c)}`, id: c.id! }));
    }
  }

  readonly #office: ElementHandlers<Block | null, string> = {
    heading: (el, path) => {
      const level = headingLevel(el);
      const c = this.text.inline(el.text, `${path}.text`);
      // Every heading gets a bookmark so that the table of contents can link to it.
      const id = el.id ?? this.#newId('_h');
      this.#headings.push({ level, c, id });
      return { t: 'heading', level, c, id, align: el.align ?? null };
    },
    text: (el, path) => {
      let style: ParStyle | null = null;
      if (el.style) {
        const s = el.style;
        style = {};
        if (s.bold !== undefined) style.bold = s.bold;
        if (s.italic !== undefined) style.italic = s.italic;
        if (s.fontSize !== undefined) style.fontSize = s.fontSize;
        if (s.fontFamily !== undefined) style.fontFamily = fontStack(s.fontFamily)[0]!;
        if (s.color !== undefined) style.color = s.color;
      }
      return { t: 'par', c: this.text.inline(el.text, `${path}.text`), align: el.align ?? null, style };
    },
    list: (el, path) => ({ t: 'list', ordered: el.ordered ?? false, start: el.start ?? 1, items: this.#listItems(el.items, `${path}.items`) }),
    table: (el, path) => this.#table(el, path),
    image: (el, path) => {
      // A captioned image is not decorative: without alt text, its caption describes it (as in the PDF).
      const alt = el.alt.trim() || el.caption === undefined ? this.text.plain(el.alt) : this.text.plain(inlineText(parseInline(el.caption)));
      const picture = this.pictures.user(el.src, `${path}.src`, alt, parseLength(el.width), parseLength(el.height), this.box);
      const caption = this.#caption('figure', el.caption, path);
      return { t: 'image', picture, caption, id: this.#register('figure', caption, el.id ?? null), align: el.align ?? 'center' };
    },
    chart: (el, path) => this.#chart(el, path),
    qrCode: (el, path) => {
      const value = this.text.plain(el.value);
      const qr = qrSvg(value, { color: '#000000' });
      const side = el.size ?? 3;
      const size = fitSize({ widthCm: side, heightCm: side }, { k: 'cm', v: side }, null, this.box);
      // Whole pixels per module keep the symbol sharp for scanners.
      const total = qr.modules + 8;
      const px = Math.max(1, Math.round(rasterPixels(size).width / total)) * total;
      const picture = this.pictures.svg(qr.svg, size, { width: px, height: px }, `QR code: ${value}`, path);
      const caption = this.#caption('figure', el.caption, path);
      return { t: 'image', picture, caption, id: this.#register('figure', caption, null), align: el.align ?? 'left' };
    },
    barcode: (el, path) => {
      const value = this.text.plain(el.value);
      const code = barcodeSvg(value, el.format, { heightCm: el.height ?? 1.5, showText: el.showText !== false, fontFamily: fontStack(this.#defaults.fonts?.family)[0] });
      const natural = pixelSize(Buffer.from(code.svg, 'utf8'));
      const size = fitSize(naturalSizeCm(natural.width, natural.height), null, null, this.box);
      const picture = this.pictures.svg(code.svg, size, rasterPixels(size), `Barcode (${el.format}): ${value}`, path);
      return { t: 'image', picture, caption: null, id: null, align: el.align ?? 'left' };
    },
    code: (el, path) => {
      const caption = this.#caption('listing', el.caption, path);
      return { t: 'code', lines: highlightCode(el.code, el.language ?? null), lang: el.language ?? null, lineNumbers: el.lineNumbers ?? false, caption, id: this.#register('listing', caption, el.id ?? null) };
    },
    math: (el, path) => {
      const display = el.display !== false;
      const converted = latexToMathml(el.latex, display);
      if (!converted.ok) throw new RenderInputError([{ path: `${path}.latex`, message: converted.message }]);
      const caption = this.#caption('equation', el.caption, path);
      const block: Extract<Block, { t: 'math' }> = { t: 'math', mathml: converted.mathml, latex: el.latex, display, caption, id: this.#register('equation', caption, el.id ?? null) };
      // quire.typ numbers a display equation that has an id, "(1)", with Typst's equation counter.
      if (display && el.id !== undefined) block.number = ++this.#equationNumber;
      return block;
    },
    quote: (el, path) => ({ t: 'quote', c: this.text.inline(el.text, `${path}.text`), attribution: el.attribution !== undefined ? this.text.inline(el.attribution, `${path}.attribution`) : null, align: el.align ?? null }),
    divider: () => ({ t: 'divider' }),
    pageBreak: () => ({ t: 'pagebreak' }),
    spacer: (el) => ({ t: 'spacer', heightCm: el.height }),
    toc: (el) => {
      // No title: what Typst's outline prints in the document language ("Contents", "Inhaltsverzeichnis").
      const toc: TocBlock = { t: 'toc', title: el.title !== undefined ? this.text.plain(el.title) : this.words.contents, depth: el.depth ?? 3, entries: [] };
      this.#tocs.push(toc);
      return toc;
    },
    listOfFigures: (el) => this.#list('lof', el.title !== undefined ? this.text.plain(el.title) : this.words.figures),
    listOfTables: (el) => this.#list('lot', el.title !== undefined ? this.text.plain(el.title) : this.words.tables),
    bibliography: (el, path) => {
      if (this.bibliography) throw new RenderInputError([{ path, message: 'a document can hold one bibliography; remove this one' }]);
      return this.newBibliography(el.title !== undefined ? this.text.plain(el.title) : this.words.references);
    },
    variableRef: (el, path) => this.#variableRef(el.name, path),
    blockRef: (el, path) => {
      throw new RenderInputError([{ path, message: `reusable block "${el.blockId}" was not inserted: the server inserts an organization's blocks before a render (POST /render, /render/markdown, /render/document/{id}); a document given to the renderer directly must hold the blocks' content instead of blockRef elements` }]);
    },
  };

  /** A bookmark id not used by the document: `_h1`, `_h2`, … for headings, `_fig1` for figures, … */
  #newId(prefix: string): string {
    let n = this.#idCounters.get(prefix) ?? 0;
    let id: string;
    do id = `${prefix}${++n}`;
    while (this.#ids.has(id));
    this.#idCounters.set(prefix, n);
    this.#ids.add(id);
    return id;
  }

  /** A numbered caption, counted per kind as Typst counts figures of one kind. */
  #caption(kind: CaptionKind, text: string | undefined, path: string): Caption | null {
    if (text === undefined) return null;
    const label = { figure: this.words.figure, table: this.words.table, listing: this.words.listing, equation: this.words.equation }[kind];
    return { label, number: ++this.#counters[kind], separator: this.words.captionSeparator, c: this.text.inline(text, `${path}.caption`) };
  }

  /** Captioned figures and tables are listed (listOfFigures/listOfTables): they need a bookmark to link to. */
  #register(kind: CaptionKind, caption: Caption | null, id: string | null): string | null {
    if (!caption) return id;
    const bookmark = id ?? (kind === 'figure' ? this.#newId('_fig') : kind === 'table' ? this.#newId('_tab') : null);
    this.#captions.push({ kind, caption, id: bookmark });
    return bookmark;
  }

  #list(t: ListBlock['t'], title: string): ListBlock {
    const list: ListBlock = { t, title, entries: [] };
    this.#lists.push(list);
    return list;
  }

  #listItems(items: ListItem[], path: string): ListItemBlock[] {
    return mapListItems<ListItemBlock>(items, path, (text, at, children) => {
      const block: ListItemBlock = { c: this.text.inline(text, at) };
      if (children) block.items = children;
      return block;
    });
  }

  #table(el: TableElement, path: string): Block {
    let rows: TableCellBlock[][];
    let header = el.headerRows ?? 0;
    if (el.rowsFrom) {
      const v = this.#variables[el.rowsFrom] as { type?: string; columns?: string[]; rows?: Array<Record<string, string | number>> } | undefined;
      if (!v || typeof v !== 'object' || v.type !== 'table' || !Array.isArray(v.rows)) {
        throw new RenderInputError([{ path: `${path}.rowsFrom`, message: `"${el.rowsFrom}" is not a table variable` }]);
      }
      const columns = v.columns ?? Object.keys(v.rows[0] ?? {});
      const text = (value: string | number | undefined): TableCellBlock => ({ c: [{ t: 'text', v: value === undefined ? '' : String(value) }], colspan: 1, rowspan: 1, align: null });
      rows = [columns.map((c) => text(c)), ...v.rows.map((r) => columns.map((c) => text(r[c])))];
      header = 1;
    } else {
      const source = el.rows ?? [];
      rows = mapTableCells(source, `${path}.rows`, (c, at) => {
        if (typeof c === 'object') return { c: this.text.inline(c.text, at), colspan: c.colspan ?? 1, rowspan: c.rowspan ?? 1, align: c.align ?? null };
        return { c: this.text.inline(c, at), colspan: 1, rowspan: 1, align: null };
      });
      header = Math.max(header, source.filter((r) => !Array.isArray(r) && r.header).length);
    }
    if (!rows.length) throw new RenderInputError([{ path: `${path}.rows`, message: 'a table needs at least one row' }]);
    const count = el.columns?.length ?? rows[0]!.reduce((n, c) => n + c.colspan, 0);
    const widths = columnWidths(Array.from({ length: count }, (_, i) => parseLength(el.columns?.[i]?.width ?? 'auto')), this.box.widthCm);
    const aligns: Array<TextAlign | null> = Array.from({ length: count }, (_, i) => el.columns?.[i]?.align ?? null);
    const caption = this.#caption('table', el.caption, path);
    return { t: 'table', rows, header: Math.min(header, rows.length), widths, aligns, caption, id: this.#register('table', caption, el.id ?? null), align: el.align ?? null };
  }

  #chart(el: ChartElement, path: string): Block {
    // Text in the chart is plain text with variables substituted, as in the PDF.
    const chart = chartSvg(plainChartText(el, (text) => this.text.plain(text)), { widthPt: CHART_WIDTH_PT, heightPt: CHART_HEIGHT_PT, fontFamily: fontStack(this.#defaults.fonts?.family)[0]!, colors: { text: this.#colors.text, muted: this.#colors.muted, palette: CHART_PALETTE } });
    const natural = { widthCm: chart.widthPt / PT_PER_CM, heightCm: chart.heightPt / PT_PER_CM };
    const size = fitSize(natural, el.width !== undefined ? parseLength(el.width) : { k: 'pct', v: 100 }, parseLength(el.height), this.box);
    const picture = this.pictures.svg(chart.svg, size, rasterPixels(size), chart.description, path);
    const caption = this.#caption('figure', el.caption, path);
    return { t: 'image', picture, caption, id: this.#register('figure', caption, el.id ?? null), align: el.align ?? 'center' };
  }

  #variableRef(name: string, path: string): Block | null {
    const value = this.#variables[name];
    if (value === undefined) throw new RenderInputError([{ path: `${path}.name`, message: `"${name}" is not defined in variables` }]);
    if (typeof value === 'string' || typeof value === 'number') return { t: 'par', c: [{ t: 'text', v: String(value) }], align: null, style: null };
    const v = value as { type: string } & Record<string, unknown>;
    if (v.type === 'image') {
      const alt = typeof v.alt === 'string' ? this.text.plain(v.alt) : '';
      const picture = this.pictures.user(v.src as string, `config.variables.${name}.src`, alt, parseLength(v.width as number | string | undefined), parseLength(v.height as number | string | undefined), this.box);
      return { t: 'image', picture, caption: null, id: null, align: 'left' };
    }
    if (v.type === 'list') {
      return { t: 'list', ordered: v.ordered === true, start: 1, items: (v.items as string[]).map((s) => ({ c: [{ t: 'text', v: s }] })) };
    }
    return this.#table({ type: 'table', rowsFrom: name }, path);
  }
}

/**
 * Column widths as fractions of the available width: cm and % as given; fr columns share what is left,
 * auto columns counting as 1fr when other columns have widths. All-auto tables stay null (the writer's
 * autofit); fractions over 1 are scaled down to fit.
 */
function columnWidths(lengths: Length[], availableCm: number): Array<number | null> {
  if (lengths.every((l) => l === null || l.k === 'auto')) return lengths.map(() => null);
  const fixed = lengths.map((l) => (l?.k === 'cm' ? l.v / availableCm : l?.k === 'pct' ? l.v / 100 : null));
  const fr = lengths.map((l) => (l?.k === 'fr' ? l.v : l === null || l.k === 'auto' ? 1 : 0));
  const used = fixed.reduce<number>((s, f) => s + (f ?? 0), 0);
  const totalFr = fr.reduce((s, f) => s + f, 0);
  const rest = Math.max(0, 1 - used);
  const widths = lengths.map((_, i) => fixed[i] ?? (totalFr > 0 ? (rest * fr[i]!) / totalFr : 0));
  const sum = widths.reduce((s, w) => s + w, 0);
  return sum > 1 ? widths.map((w) => w / sum) : widths;
}
