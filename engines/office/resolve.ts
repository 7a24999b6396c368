// Turns a validated document into the OfficeDocument the DOCX and ODT writers translate, answering every
// question that does not depend on the file format the way the PDF target does (engines/typst/typst-data.ts
// and quire.typ): variables, abbreviations, broken references, unknown citation keys, table variables,
// caption numbering, default styles and page geometry. What Typst does on its own there (CSL, LaTeX, code
// highlighting, drawing SVG) is done here with citeproc, Temml, lowlight and @napi-rs/canvas.
// Longer than 400 lines: one pass over the element tree answering every format-independent question; the element visitor that would shorten it is planned in docs/architecture.md.
import { parseInline, inlineText, type Inline } from '../../document/inline-markup.js';
import type { ChartElement, CslItem, DocumentJson, Element, HeaderFooter, ListItem, TableCell, TableElement } from '../../contracts/document-json.js';
import { PluginError } from '../../sdk/plugin-api.js';
import { chartSvg } from '../graphics/chart-svg.js';
import { qrSvg } from '../graphics/qr-svg.js';
import { barcodeSvg } from '../graphics/barcode-svg.js';
import { fontStack, MONO_STACK } from '../fonts/pdf-fonts.js';
import { wordsFor, type Words } from '../../document/locale-words.js';
import {
  CHART_PALETTE,
  DEFAULT_HEADINGS,
  RenderInputError,
  documentColors,
  furnitureParts,
  pageGeometry,
  parseLength,
  parseLocale,
  substitute,
  tableStyle,
  variableText,
  type Length,
  type LoadedImage,
} from '../render-input.js';
import { formatCitations, type CitationCluster, type CitationStyle } from './csl.js';
import { latexToMathml } from './math.js';
import { highlightCode } from './highlight.js';
import { PictureQueue, fitSize, naturalSizeCm, pixelSize, rasterPixels, type SizeCm } from './pictures.js';
import type { Block, Caption, Furniture, ListItemBlock, OfficeDocument, OfficeSection, OInline, ParStyle, TableCellBlock, TextAlign } from './model.js';

export interface ResolveOptions {
  /** ISO time the job was created: the document's creation date. */
  createdAt: string;
  /** The operator's font folders (settings.fontDirs), for text in charts and barcodes. */
  fontDirs?: string[];
}

/**
 * Resolves `doc` (validated, defaults filled) for the office writers. `images` maps each `src` of the
 * document (and of image variables) to its loaded bytes. Every problem is collected with its path and
 * thrown together as one RenderInputError.
 */
export async function resolveDocument(doc: DocumentJson, images: Map<string, LoadedImage>, options: ResolveOptions): Promise<OfficeDocument> {
  return new Resolver(doc, images, options).resolve();
}

/**
 * Loads what the first document would otherwise pay for (about a second of CPU: fonts for SVG text, the
 * apa and ieee CSL engines, Temml, lowlight's grammars, the canvas): call it when a render thread starts.
 */
export async function warmUpResolver(): Promise<void> {
  const citations = [{ id: 'w', type: 'book' as const, title: 'Warm-up', author: [{ family: 'Quire', given: 'Q' }], issued: { 'date-parts': [[2020]] } }];
  const content = [
    { type: 'text' as const, text: 'Warm-up @[w, p. 1] $x^2$' },
    { type: 'code' as const, language: 'python', code: 'def f(): return 1' },
    { type: 'math' as const, latex: '\\frac{1}{2}' },
    { type: 'chart' as const, chartType: 'bar' as const, title: 'Warm-up', width: 2, data: { labels: ['a'], series: [{ name: 's', values: [1] }] } },
  ];
  for (const citationStyle of ['apa', 'ieee'] as const) {
    await resolveDocument({ document: { type: 'docx' }, sections: [{ type: 'flow', content }], citations, defaults: { citationStyle } }, new Map(), { createdAt: new Date(0).toISOString() });
  }
}

/** The chart size the PDF draws (16 cm wide, 0.56 as high) before scaling it to the element's width. */
const CHART_WIDTH_PT = 16 * 28.3465;
const CHART_HEIGHT_PT = CHART_WIDTH_PT * 0.56;
const PT_PER_CM = 72 / 2.54;

type CaptionKind = 'figure' | 'table' | 'listing' | 'equation';
type CiteNode = Extract<OInline, { t: 'cite' }>;
type TocBlock = Extract<Block, { t: 'toc' }>;
type ListBlock = Extract<Block, { t: 'lof' | 'lot' }>;
type BibliographyBlock = Extract<Block, { t: 'bibliography' }>;

class Resolver {
  readonly #problems: Array<{ path: string; message: string }> = [];
  readonly #warnings: OfficeDocument['warnings'] = [];
  readonly #variables: Record<string, unknown>;
  readonly #defaults: NonNullable<DocumentJson['defaults']>;
  readonly #colors;
  readonly #words: Words;
  readonly #page;
  readonly #abbrSeen = new Set<string>();
  /** Anchors a reference may point to: section ids and element ids, as in the PDF. */
  readonly #anchors = new Set<string>();
  /** Every bookmark id in use, so generated ones never collide with the document's. */
  readonly #ids = new Set<string>();
  readonly #idCounters = new Map<string, number>();
  readonly #citationKeys: Set<string>;
  readonly #clusters: Array<{ cluster: CitationCluster; node: CiteNode }> = [];
  #bibliography: BibliographyBlock | null = null;
  readonly #headings: Array<{ level: number; c: OInline[]; id: string }> = [];
  readonly #captions: Array<{ kind: CaptionKind; caption: Caption; id: string | null }> = [];
  readonly #counters: Record<CaptionKind, number> = { figure: 0, table: 0, listing: 0, equation: 0 };
  #equationNumber = 0;
  readonly #tocs: TocBlock[] = [];
  readonly #lists: ListBlock[] = [];
  readonly #pictures: PictureQueue;
  /** Where pictures must fit: the text area of the page, or one column of it. */
  #box: SizeCm;

  constructor(
    private readonly doc: DocumentJson,
    images: Map<string, LoadedImage>,
    private readonly options: ResolveOptions,
  ) {
    this.#variables = doc.variables ?? {};
    this.#defaults = doc.defaults ?? {};
    this.#colors = documentColors(this.#defaults);
    this.#words = wordsFor(parseLocale(this.#defaults.locale).lang);
    this.#page = pageGeometry(doc.document);
    this.#box = this.#textArea();
    this.#pictures = new PictureQueue(images, options.fontDirs ?? []);
    this.#citationKeys = new Set((doc.citations ?? []).map((c) => c.id));
    for (const s of doc.sections) {
      if (s.id) this.#anchors.add(s.id);
      for (const el of s.content) if ('id' in el && typeof el.id === 'string') this.#anchors.add(el.id);
    }
    for (const id of this.#anchors) this.#ids.add(id);
  }

  async resolve(): Promise<OfficeDocument> {
    const doc = this.doc;
    const d = doc.document;
    const defaults = this.#defaults;
    const words = this.#words;
    const sections: OfficeSection[] = doc.sections.map((s, i) => {
      // Paths name the request field (`config.…`), as the 400 answers and the PDF target do.
      const path = `config.sections[${i}]`;
      if (s.type === 'page') {
        this.#box = this.#textArea();
        return { kind: 'page', id: s.id ?? null, align: s.align ?? 'top', startY: s.startY ?? null, content: this.#blocks(s.content, `${path}.content`) };
      }
      const columns = s.columns && s.columns.count > 1 ? { count: s.columns.count, spaceCm: s.columns.space ?? 1.27, separate: s.columns.separate ?? false } : null;
      const area = this.#textArea();
      this.#box = columns ? { widthCm: (area.widthCm - (columns.count - 1) * columns.spaceCm) / columns.count, heightCm: area.heightCm } : area;
      return { kind: 'flow', id: s.id ?? null, newPage: s.newPage !== false, columns, content: this.#blocks(s.content, `${path}.content`) };
    });
    if (this.#clusters.length && !this.#bibliography) {
      // As in the PDF: a document that cites without a bibliography gets one at the end.
      const bib = this.#newBibliography(words.references);
      const last = sections.at(-1);
      if (last && last.kind === 'flow') last.content.push(bib);
      else sections.push({ kind: 'flow', id: null, newPage: false, columns: null, content: [bib] });
    }
    // citeproc runs on this thread while the pictures decode and encode on libuv's.
    this.#formatCitations();
    this.#problems.push(...(await this.#pictures.done()));
    if (this.#problems.length) throw new RenderInputError(this.#problems);
    this.#fillLists();

    const fonts = defaults.fonts ?? {};
    const paragraph = defaults.paragraph ?? {};
    const title = d.title !== undefined ? this.#plain(d.title) : null;
    return {
      meta: {
        title,
        author: d.author !== undefined ? this.#plain(d.author) : null,
        subject: d.subject !== undefined ? this.#plain(d.subject) : null,
        keywords: (d.keywords ?? []).map((k) => this.#plain(k)),
        created: this.options.createdAt,
      },
      locale: defaults.locale ?? 'en-US',
      page: this.#page,
      styles: {
        bodyFont: fontStack(fonts.family)[0]!,
        monoFont: MONO_STACK[0]!,
        fontSize: fonts.size ?? 10.5,
        lineHeight: paragraph.lineHeight ?? 1.35,
        // Typst puts one gap between paragraphs, the larger of the two settings; Word and LibreOffice add
        // space before and after, so the whole gap goes after.
        spaceBefore: 0,
        spaceAfter: Math.max(paragraph.spacingBefore ?? 0, paragraph.spacingAfter ?? 8),
        colors: this.#colors,
        headings: DEFAULT_HEADINGS.map((base, i) => {
          const h = defaults.headings?.[`h${i + 1}` as 'h1'] ?? {};
          return { size: h.size ?? base.size, bold: (h.weight ?? base.weight) !== 'normal', color: h.color ?? this.#colors.primary, spaceBefore: h.spacingBefore ?? base.above, spaceAfter: h.spacingAfter ?? base.below };
        }),
        table: tableStyle(defaults),
      },
      header: this.#furniture(defaults.header),
      footer: this.#furniture(defaults.footer),
      sections,
      warnings: this.#warnings,
    };
  }

  #textArea(): SizeCm {
    const p = this.#page;
    return { widthCm: p.widthCm - p.margins.leftCm - p.margins.rightCm, heightCm: p.heightCm - p.margins.topCm - p.margins.bottomCm };
  }

  // -------------------------------------------------------------- text

  #plain(text: string): string {
    return substitute(text, this.#variables);
  }

  #inline(text: string | number | undefined, path: string): OInline[] {
    if (text === undefined) return [];
    if (typeof text === 'number') return [{ t: 'text', v: String(text) }];
    return this.#resolveInline(parseInline(text), path);
  }

  #resolveInline(nodes: Inline[], path: string): OInline[] {
    const out: OInline[] = [];
    for (const n of nodes) {
      switch (n.t) {
        case 'var':
          out.push({ t: 'text', v: variableText(this.#variables, n.name) });
          break;
        case 'strong':
        case 'emph':
        case 'footnote':
          out.push({ t: n.t, c: this.#resolveInline(n.c, path) });
          break;
        case 'link':
          out.push({ t: 'link', url: n.url, c: this.#resolveInline(n.c, path) });
          break;
        case 'ref':
          // A link to an anchor that does not exist prints as its label (the job warns about it), as in the PDF.
          if (this.#anchors.has(n.id)) out.push({ t: 'ref', id: n.id, c: this.#resolveInline(n.c, path) });
          else out.push(...this.#resolveInline(n.c, path));
          break;
        case 'abbr': {
          // quire.typ prints "Full text (KEY)" the first time a known abbreviation is used, the key after that.
          const full = this.doc.abbreviations?.[n.key];
          if (full !== undefined && !this.#abbrSeen.has(n.key)) {
            this.#abbrSeen.add(n.key);
            out.push({ t: 'text', v: `${full} (${n.key})` });
          } else out.push({ t: 'text', v: n.key });
          break;
        }
        case 'cite': {
          const items = n.items.filter((it) => this.#citationKeys.has(it.key));
          // An unknown key is a warning on the job; it prints as written, never breaks the render.
          for (const it of n.items) if (!this.#citationKeys.has(it.key)) out.push({ t: 'text', v: `[${it.key}]` });
          if (items.length) {
            const node: CiteNode = { t: 'cite', c: [] };
            this.#clusters.push({ cluster: { items }, node });
            out.push(node);
          }
          break;
        }
        case 'math': {
          const converted = latexToMathml(n.latex, false);
          if (converted.ok) out.push({ t: 'math', mathml: converted.mathml, latex: n.latex });
          else {
            // As in the PDF, inline math that cannot be converted is shown as its LaTeX source.
            out.push({ t: 'code', v: n.latex });
            this.#warnings.push({ path, code: 'MATH_NOT_CONVERTED', message: `inline math $${n.latex}$ is shown as LaTeX source: ${converted.message}` });
          }
          break;
        }
        default:
          out.push(n);
      }
    }
    return out;
  }

  #furniture(spec: HeaderFooter | undefined): Furniture | null {
    if (!spec?.text) return null;
    return { parts: furnitureParts(spec.text, this.#variables), align: spec.align ?? 'center', skipFirstPage: spec.skipFirstPage ?? false };
  }

  /** The bibliography's title is a level-1 heading in every target, listed in the table of contents (as Typst does). */
  #newBibliography(title: string): BibliographyBlock {
    const id = this.#newId('_bib');
    if (title) this.#headings.push({ level: 1, c: [{ t: 'text', v: title }], id });
    this.#bibliography = { t: 'bibliography', title, entries: [], id };
    return this.#bibliography;
  }

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
    const label = { figure: this.#words.figure, table: this.#words.table, listing: this.#words.listing, equation: this.#words.equation }[kind];
    return { label, number: ++this.#counters[kind], separator: this.#words.captionSeparator, c: this.#inline(text, `${path}.caption`) };
  }

  /** Captioned figures and tables are listed (listOfFigures/listOfTables): they need a bookmark to link to. */
  #register(kind: CaptionKind, caption: Caption | null, id: string | null): string | null {
    if (!caption) return id;
    const bookmark = id ?? (kind === 'figure' ? this.#newId('_fig') : kind === 'table' ? this.#newId('_tab') : null);
    this.#captions.push({ kind, caption, id: bookmark });
    return bookmark;
  }

  // -------------------------------------------------------------- blocks

  #blocks(elements: Element[], path: string): Block[] {
    const out: Block[] = [];
    elements.forEach((el, i) => {
      const at = `${path}[${i}]`;
      try {
        const block = this.#block(el, at);
        if (block) out.push(block);
      } catch (err) {
        if (err instanceof RenderInputError) this.#problems.push(...err.problems);
        else this.#problems.push({ path: at, message: (err as Error).message });
      }
    });
    return out;
  }

  #block(el: Element, path: string): Block | null {
    switch (el.type) {
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6': {
        const level = Number(el.type[1]) as 1 | 2 | 3 | 4 | 5 | 6;
        const c = this.#inline(el.text, `${path}.text`);
        // Every heading gets a bookmark so that the table of contents can link to it.
        const id = el.id ?? this.#newId('_h');
        this.#headings.push({ level, c, id });
        return { t: 'heading', level, c, id, align: el.align ?? null };
      }
      case 'text': {
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
        return { t: 'par', c: this.#inline(el.text, `${path}.text`), align: el.align ?? null, style };
      }
      case 'list':
        return { t: 'list', ordered: el.ordered ?? false, start: el.start ?? 1, items: this.#listItems(el.items, `${path}.items`) };
      case 'table':
        return this.#table(el, path);
      case 'image': {
        // A captioned image is not decorative: without alt text, its caption describes it (as in the PDF).
        const alt = el.alt.trim() || el.caption === undefined ? this.#plain(el.alt) : this.#plain(inlineText(parseInline(el.caption)));
        const picture = this.#pictures.user(el.src, `${path}.src`, alt, parseLength(el.width), parseLength(el.height), this.#box);
        const caption = this.#caption('figure', el.caption, path);
        return { t: 'image', picture, caption, id: this.#register('figure', caption, el.id ?? null), align: el.align ?? 'center' };
      }
      case 'chart':
        return this.#chart(el, path);
      case 'qrCode': {
        const value = this.#plain(el.value);
        const qr = qrSvg(value, { color: '#000000' });
        const side = el.size ?? 3;
        const size = fitSize({ widthCm: side, heightCm: side }, { k: 'cm', v: side }, null, this.#box);
        // Whole pixels per module keep the symbol sharp for scanners.
        const total = qr.modules + 8;
        const px = Math.max(1, Math.round(rasterPixels(size).width / total)) * total;
        const picture = this.#pictures.svg(qr.svg, size, { width: px, height: px }, `QR code: ${value}`, path);
        const caption = this.#caption('figure', el.caption, path);
        return { t: 'image', picture, caption, id: this.#register('figure', caption, null), align: el.align ?? 'left' };
      }
      case 'barcode': {
        const value = this.#plain(el.value);
        const code = barcodeSvg(value, el.format, { heightCm: el.height ?? 1.5, showText: el.showText !== false, fontFamily: fontStack(this.#defaults.fonts?.family)[0] });
        const natural = pixelSize(Buffer.from(code.svg, 'utf8'));
        const size = fitSize(naturalSizeCm(natural.width, natural.height), null, null, this.#box);
        const picture = this.#pictures.svg(code.svg, size, rasterPixels(size), `Barcode (${el.format}): ${value}`, path);
        return { t: 'image', picture, caption: null, id: null, align: el.align ?? 'left' };
      }
      case 'code': {
        const caption = this.#caption('listing', el.caption, path);
        return { t: 'code', lines: highlightCode(el.code, el.language ?? null), lang: el.language ?? null, lineNumbers: el.lineNumbers ?? false, caption, id: this.#register('listing', caption, el.id ?? null) };
      }
      case 'math': {
        const display = el.display !== false;
        const converted = latexToMathml(el.latex, display);
        if (!converted.ok) throw new RenderInputError([{ path: `${path}.latex`, message: converted.message }]);
        const caption = this.#caption('equation', el.caption, path);
        const block: Extract<Block, { t: 'math' }> = { t: 'math', mathml: converted.mathml, latex: el.latex, display, caption, id: this.#register('equation', caption, el.id ?? null) };
        // quire.typ numbers a display equation that has an id, "(1)", with Typst's equation counter.
        if (display && el.id !== undefined) block.number = ++this.#equationNumber;
        return block;
      }
      case 'quote':
        return { t: 'quote', c: this.#inline(el.text, `${path}.text`), attribution: el.attribution !== undefined ? this.#inline(el.attribution, `${path}.attribution`) : null, align: el.align ?? null };
      case 'divider':
        return { t: 'divider' };
      case 'pageBreak':
        return { t: 'pagebreak' };
      case 'spacer':
        return { t: 'spacer', heightCm: el.height };
      case 'toc': {
        // No title: what Typst's outline prints in the document language ("Contents", "Inhaltsverzeichnis").
        const toc: TocBlock = { t: 'toc', title: el.title !== undefined ? this.#plain(el.title) : this.#words.contents, depth: el.depth ?? 3, entries: [] };
        this.#tocs.push(toc);
        return toc;
      }
      case 'listOfFigures':
      case 'listOfTables': {
        const figures = el.type === 'listOfFigures';
        const list: ListBlock = { t: figures ? 'lof' : 'lot', title: el.title !== undefined ? this.#plain(el.title) : figures ? this.#words.figures : this.#words.tables, entries: [] };
        this.#lists.push(list);
        return list;
      }
      case 'bibliography': {
        if (this.#bibliography) throw new RenderInputError([{ path, message: 'a document can hold one bibliography; remove this one' }]);
        return this.#newBibliography(el.title !== undefined ? this.#plain(el.title) : this.#words.references);
      }
      case 'variableRef':
        return this.#variableRef(el.name, path);
      case 'blockRef':
        throw new RenderInputError([{ path, message: `reusable block "${el.blockId}" cannot be rendered yet: reusable blocks are not available on this server; replace the blockRef with the block's content` }]);
    }
  }

  #listItems(items: ListItem[], path: string): ListItemBlock[] {
    return items.map((item, i) => {
      if (typeof item === 'string') return { c: this.#inline(item, `${path}[${i}]`) };
      const block: ListItemBlock = { c: this.#inline(item.text, `${path}[${i}].text`) };
      if (item.items) block.items = this.#listItems(item.items, `${path}[${i}].items`);
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
      rows = source.map((r, i) => {
        const cells = Array.isArray(r) ? r : r.cells;
        const at = Array.isArray(r) ? `${path}.rows[${i}]` : `${path}.rows[${i}].cells`;
        return cells.map((c: TableCell, j) => {
          if (typeof c === 'object') return { c: this.#inline(c.text, `${at}[${j}].text`), colspan: c.colspan ?? 1, rowspan: c.rowspan ?? 1, align: c.align ?? null };
          return { c: this.#inline(c, `${at}[${j}]`), colspan: 1, rowspan: 1, align: null };
        });
      });
      header = Math.max(header, source.filter((r) => !Array.isArray(r) && r.header).length);
    }
    if (!rows.length) throw new RenderInputError([{ path: `${path}.rows`, message: 'a table needs at least one row' }]);
    const count = el.columns?.length ?? rows[0]!.reduce((n, c) => n + c.colspan, 0);
    const widths = columnWidths(Array.from({ length: count }, (_, i) => parseLength(el.columns?.[i]?.width ?? 'auto')), this.#box.widthCm);
    const aligns: Array<TextAlign | null> = Array.from({ length: count }, (_, i) => el.columns?.[i]?.align ?? null);
    const caption = this.#caption('table', el.caption, path);
    return { t: 'table', rows, header: Math.min(header, rows.length), widths, aligns, caption, id: this.#register('table', caption, el.id ?? null), align: el.align ?? null };
  }

  #chart(el: ChartElement, path: string): Block {
    // Text in the chart is plain text with variables substituted, as in the PDF.
    const plainChart: ChartElement = {
      ...el,
      title: el.title !== undefined ? this.#plain(el.title) : undefined,
      xLabel: el.xLabel !== undefined ? this.#plain(el.xLabel) : undefined,
      yLabel: el.yLabel !== undefined ? this.#plain(el.yLabel) : undefined,
      data: { ...el.data, labels: el.data.labels?.map((l) => this.#plain(l)), series: el.data.series.map((s) => ({ ...s, name: this.#plain(s.name) })) },
    };
    const chart = chartSvg(plainChart, { widthPt: CHART_WIDTH_PT, heightPt: CHART_HEIGHT_PT, fontFamily: fontStack(this.#defaults.fonts?.family)[0]!, colors: { text: this.#colors.text, muted: this.#colors.muted, palette: CHART_PALETTE } });
    const natural = { widthCm: chart.widthPt / PT_PER_CM, heightCm: chart.heightPt / PT_PER_CM };
    const size = fitSize(natural, el.width !== undefined ? parseLength(el.width) : { k: 'pct', v: 100 }, parseLength(el.height), this.#box);
    const picture = this.#pictures.svg(chart.svg, size, rasterPixels(size), chart.description, path);
    const caption = this.#caption('figure', el.caption, path);
    return { t: 'image', picture, caption, id: this.#register('figure', caption, el.id ?? null), align: el.align ?? 'center' };
  }

  #variableRef(name: string, path: string): Block | null {
    const value = this.#variables[name];
    if (value === undefined) throw new RenderInputError([{ path: `${path}.name`, message: `"${name}" is not defined in variables` }]);
    if (typeof value === 'string' || typeof value === 'number') return { t: 'par', c: [{ t: 'text', v: String(value) }], align: null, style: null };
    const v = value as { type: string } & Record<string, unknown>;
    if (v.type === 'image') {
      const alt = typeof v.alt === 'string' ? this.#plain(v.alt) : '';
      const picture = this.#pictures.user(v.src as string, `config.variables.${name}.src`, alt, parseLength(v.width as number | string | undefined), parseLength(v.height as number | string | undefined), this.#box);
      return { t: 'image', picture, caption: null, id: null, align: 'left' };
    }
    if (v.type === 'list') {
      return { t: 'list', ordered: v.ordered === true, start: 1, items: (v.items as string[]).map((s) => ({ c: [{ t: 'text', v: s }] })) };
    }
    return this.#table({ type: 'table', rowsFrom: name }, path);
  }

  // -------------------------------------------------------------- after the content

  /** Citations in document order (numeric styles number by first citation) and the bibliography, with CSL. */
  #formatCitations(): void {
    if (!this.#clusters.length) return;
    const style: CitationStyle = this.#bibliographyStyle() ?? this.#defaults.citationStyle ?? 'apa';
    let formatted: ReturnType<typeof formatCitations>;
    try {
      formatted = formatCitations(style, this.#defaults.locale ?? 'en-US', (this.doc.citations ?? []) as CslItem[], this.#clusters.map((c) => c.cluster));
    } catch (err) {
      // A missing CSL file is the server's problem (PluginError); anything else comes from the items.
      if (err instanceof PluginError) throw err;
      this.#problems.push({ path: 'config.citations', message: `the citations could not be formatted with CSL (${style}): ${(err as Error).message}` });
      return;
    }
    this.#clusters.forEach((c, i) => (c.node.c = formatted.citations[i]!));
    if (this.#bibliography) this.#bibliography.entries = formatted.bibliography;
  }

  /** The bibliography element's own style wins for the whole document, as Typst formats citations with it. */
  #bibliographyStyle(): CitationStyle | undefined {
    for (const s of this.doc.sections) for (const el of s.content) if (el.type === 'bibliography') return el.style;
    return undefined;
  }

  #fillLists(): void {
    for (const toc of this.#tocs) toc.entries = this.#headings.filter((h) => h.level <= toc.depth).map((h) => ({ level: h.level, text: plainText(h.c), id: h.id }));
    for (const list of this.#lists) {
      const kind = list.t === 'lof' ? 'figure' : 'table';
      list.entries = this.#captions.filter((c) => c.kind === kind && c.id !== null).map((c) => ({ text: `${c.caption.label} ${c.caption.number}${c.caption.separator ?? ': '}${plainText(c.caption.c)}`, id: c.id! }));
    }
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

/** Text of resolved inline nodes for outlines (table of contents, lists of figures): footnotes left out. */
export function plainText(nodes: OInline[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.t === 'text' || n.t === 'code') out += n.v;
    else if (n.t === 'math') out += n.latex;
    else if (n.t === 'br') out += ' ';
    else if (n.t !== 'footnote') out += plainText(n.c);
  }
  return out;
}
