// Prepares a validated document for quire.typ: inline markup parsed, variables and abbreviations resolved,
// tables normalised, charts/QR/barcodes drawn as SVG, LaTeX converted, citations turned into Hayagriva.
import { parseInline, inlineText, type Inline } from '../../document/inline-markup.js';
import type { DocumentJson, Element, ListItem, TableCell, TableElement, CslItem, HeaderFooter } from '../../contracts/document-json.js';
import { chartSvg } from '../graphics/chart-svg.js';
import { qrSvg } from '../graphics/qr-svg.js';
import { barcodeSvg } from '../graphics/barcode-svg.js';
import { latexToTypst } from './latex-to-typst.js';
import { cslToHayagriva, citationStyleName } from './csl-hayagriva.js';
import { fontStack, monoStack } from '../fonts/pdf-fonts.js';
import { documentCjkVariant, type CjkVariant } from '../fonts/scripts.js';
import { documentStrings } from '../fonts/glyph-coverage.js';
import { wordsFor } from '../../document/locale-words.js';
import { isoDocumentDate } from '../../document/document-date.js';
import { anchorIds, headingLevel, mapListItems, rowCells, visitElement, type ElementHandlers } from '../../document/element-visitor.js';
import { CHART_PALETTE, DEFAULT_HEADINGS, RenderInputError, documentColors, furnitureParts, pageGeometry, parseLength as length, parseLocale, plainChartText, renderEach, substitute, tableStyle, variableText, type LoadedImage } from '../render-input.js';

export { RenderInputError, substitute, type LoadedImage };

/** A file the compiler sees in its virtual workspace. */
export interface ShadowFile {
  path: string;
  bytes: Uint8Array;
}

export interface TypstInput {
  data: Record<string, unknown>;
  files: ShadowFile[];
}

type TInline = Record<string, unknown>;

const PAPER: Record<string, string> = { A4: 'a4', A3: 'a3', A5: 'a5', Letter: 'us-letter', Legal: 'us-legal' };
const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg' };
/**
 * Builds the JSON quire.typ draws and the virtual files it reads. `images` maps each `src` of the
 * document (and of image variables) to its loaded bytes.
 */
export function buildTypstInput(doc: DocumentJson, images: Map<string, LoadedImage>, options: { fontDirsUsed?: boolean } = {}): TypstInput {
  return new Builder(doc, images).build(options);
}

class Builder {
  readonly files: ShadowFile[] = [];
  readonly problems: Array<{ path: string; message: string }> = [];
  readonly #imagePaths = new Map<string, { path: string; format: string }>();
  readonly #abbrSeen = new Set<string>();
  #cited = false;
  #hasBibliography = false;
  readonly #defaults;
  readonly #colors;
  readonly #locale;
  readonly #words;
  /** Which CJK glyph forms come first in every font list (docs/rendering.md, "Scripts and fonts"). */
  readonly #cjk: CjkVariant;

  constructor(
    private readonly doc: DocumentJson,
    private readonly images: Map<string, LoadedImage>,
  ) {
    this.#defaults = doc.defaults ?? {};
    this.#colors = documentColors(this.#defaults);
    this.#locale = parseLocale(this.#defaults.locale);
    this.#words = wordsFor(this.#locale.lang);
    this.#cjk = documentCjkVariant(this.#defaults.locale, function* () {
      for (const s of documentStrings(doc)) yield s.text;
    });
  }

  build(_options: { fontDirsUsed?: boolean }): TypstInput {
    const doc = this.doc;
    const d = doc.document;
    const defaults = this.#defaults;
    const locale = this.#locale;
    const words = this.#words;
    const sections = doc.sections.map((s, i) => {
      // Paths name the request field (`config.…`), as the 400 answers and PROFILE_UNMET do.
      const path = `config.sections[${i}]`;
      const content = this.#blocks(s.content, `${path}.content`);
      if (s.type === 'page') return { kind: 'page', id: s.id ?? null, align: s.align ?? 'top', startY: s.startY ?? null, content };
      const columns = s.columns ? { count: s.columns.count, space: s.columns.space ?? 1.27, rules: null as ColumnRules | null } : null;
      // A rule between columns is drawn on the pages of a section that starts its own pages.
      if (columns && s.columns?.separate && columns.count > 1 && s.newPage !== false) columns.rules = columnRules(d, columns.count, columns.space);
      return { kind: 'flow', id: s.id ?? null, newPage: s.newPage !== false, columns, content };
    });
    const style = defaults.citationStyle ?? 'apa';
    if (this.#cited && !this.#hasBibliography) {
      // Typst needs the bibliography to resolve citations: a document that cites without one gets it at the end.
      const last = sections.at(-1);
      const bib = { t: 'bibliography', title: words.references, style: citationStyleName(style) };
      if (last && last.kind === 'flow') (last.content as unknown[]).push(bib);
      else sections.push({ kind: 'flow', id: null, newPage: false, columns: null, content: [bib] });
    }
    if (this.problems.length) throw new RenderInputError(this.problems);

    const fonts = defaults.fonts ?? {};
    const paragraph = defaults.paragraph ?? {};
    const lineHeight = paragraph.lineHeight ?? 1.35;
    const headings = DEFAULT_HEADINGS.map((base, i) => {
      const h = defaults.headings?.[`h${i + 1}` as 'h1'] ?? {};
      return { size: h.size ?? base.size, weight: (h.weight ?? base.weight) === 'normal' ? 'regular' : (h.weight ?? base.weight), color: h.color ?? null, above: h.spacingBefore ?? base.above, below: h.spacingAfter ?? base.below };
    });
    const margin = { top: d.marginTop ?? null, right: d.marginRight ?? null, bottom: d.marginBottom ?? null, left: d.marginLeft ?? null };
    const data = {
      meta: {
        title: d.title !== undefined ? this.#plain(d.title) : null,
        author: d.author !== undefined ? [this.#plain(d.author)] : [],
        // A PDF has one description (Typst's `description`, the Info dictionary's Subject): the subject, else the abstract.
        subject: d.subject !== undefined ? this.#plain(d.subject) : d.abstract !== undefined ? this.#plain(d.abstract) : null,
        keywords: (d.keywords ?? []).map((k) => this.#plain(k)),
        date: typstDate(d.date !== undefined ? this.#plain(d.date) : undefined),
      },
      lang: locale.lang,
      // zh-Hant without a region: Typst's Traditional Chinese conventions (quotes, punctuation) are those of zh-TW.
      region: locale.region ?? (locale.lang === 'zh' && this.#cjk === 'TC' ? 'tw' : null),
      page: { paper: PAPER[d.size ?? 'A4'], flipped: d.orientation === 'landscape', margin },
      fonts: { body: fontStack(fonts.family, this.#cjk), mono: monoStack(this.#cjk) },
      style: {
        fontSize: fonts.size ?? 10.5,
        leading: Math.max(0.1, lineHeight - 0.75),
        parSpacing: Math.max(paragraph.spacingBefore ?? 0, paragraph.spacingAfter ?? 8),
        colors: this.#colors,
        headings,
        table: tableStyle(defaults),
      },
      header: this.#furniture(defaults.header),
      footer: this.#furniture(defaults.footer),
      bibliography: { data: doc.citations?.length ? cslToHayagriva(doc.citations as CslItem[]) : '{}', style: citationStyleName(style) },
      words,
      sections,
    };
    return { data, files: this.files };
  }

  // -------------------------------------------------------------- text

  #plain(text: string): string {
    return substitute(text, this.doc.variables ?? {});
  }

  #inline(text: string | number | undefined): TInline[] {
    if (text === undefined) return [];
    if (typeof text === 'number') return [{ t: 'text', v: String(text) }];
    return this.#resolve(parseInline(text));
  }

  #resolve(nodes: Inline[]): TInline[] {
    const out: TInline[] = [];
    for (const n of nodes) {
      switch (n.t) {
        case 'var':
          out.push({ t: 'text', v: variableText(this.doc.variables ?? {}, n.name) });
          break;
        case 'strong':
        case 'emph':
        case 'footnote':
          out.push({ t: n.t, c: this.#resolve(n.c) });
          break;
        case 'link':
          out.push({ t: 'link', url: n.url, c: this.#resolve(n.c) });
          break;
        case 'ref':
          out.push({ t: 'ref', id: n.id, c: this.#resolve(n.c) });
          break;
        case 'abbr': {
          const full = this.doc.abbreviations?.[n.key];
          if (full !== undefined && !this.#abbrSeen.has(n.key)) {
            this.#abbrSeen.add(n.key);
            out.push({ t: 'abbr', key: n.key, full });
          } else out.push({ t: 'abbr', key: n.key });
          break;
        }
        case 'cite': {
          const known = this.#citationIds();
          const items = n.items.filter((it) => known.has(it.key));
          // An unknown key is a warning on the job (scanReferences); it prints as written, never breaks the render.
          for (const it of n.items) if (!known.has(it.key)) out.push({ t: 'text', v: `[${it.key}]` });
          if (items.length) {
            this.#cited = true;
            out.push({ t: 'cite', items });
          }
          break;
        }
        case 'math': {
          const converted = latexToTypst(n.latex);
          if (converted.ok) out.push({ t: 'math', typst: converted.typst, latex: n.latex });
          else out.push({ t: 'code', v: n.latex });
          break;
        }
        default:
          out.push(n as TInline);
      }
    }
    return this.#dropBrokenRefs(out);
  }

  #citationIdSet: Set<string> | null = null;
  #citationIds(): Set<string> {
    this.#citationIdSet ??= new Set((this.doc.citations ?? []).map((c) => c.id));
    return this.#citationIdSet;
  }

  /** A link to an anchor that does not exist would stop Typst; it prints as its label (warned about on the job). */
  #dropBrokenRefs(nodes: TInline[]): TInline[] {
    if (!nodes.some((n) => n.t === 'ref')) return nodes;
    return nodes.flatMap((n) => (n.t === 'ref' && !this.#anchors().has(n.id as string) ? (n.c as TInline[]) : [n]));
  }

  #anchorSet: Set<string> | null = null;
  #anchors(): Set<string> {
    this.#anchorSet ??= anchorIds(this.doc);
    return this.#anchorSet;
  }

  #furniture(spec: HeaderFooter | undefined): Record<string, unknown> | null {
    if (!spec?.text) return null;
    return { parts: furnitureParts(spec.text, this.doc.variables ?? {}), align: spec.align ?? 'center', skipFirstPage: spec.skipFirstPage ?? false };
  }

  // -------------------------------------------------------------- blocks

  #blocks(elements: Element[], path: string): unknown[] {
    return renderEach(elements, path, this.problems, (el, at) => visitElement(el, this.#typst, at));
  }

  /** What quire.typ draws for each element. */
  readonly #typst: ElementHandlers<Record<string, unknown> | null, string> = {
    heading: (el) => ({ t: 'heading', level: headingLevel(el), c: this.#inline(el.text), id: el.id ?? null, align: el.align ?? null }),
    text: (el) => ({ t: 'par', c: this.#inline(el.text), align: el.align ?? null, style: el.style ? { ...el.style, fonts: el.style.fontFamily ? fontStack(el.style.fontFamily, this.#cjk) : null } : null }),
    list: (el) => ({ t: 'list', ordered: el.ordered ?? false, start: el.start ?? 1, items: this.#listItems(el.items) }),
    table: (el, path) => this.#table(el, path),
    image: (el, path) => {
      // A captioned image is not decorative: without alt text, its caption describes it (PDF/UA-1 needs one or the other).
      const alt = el.alt.trim() || el.caption === undefined ? this.#plain(el.alt) : this.#plain(inlineText(parseInline(el.caption)));
      return { t: 'image', ...this.#image(el.src, `${path}.src`), alt, width: length(el.width), height: length(el.height), caption: this.#caption(el.caption), id: el.id ?? null, align: el.align ?? 'center' };
    },
    chart: (el) => {
      const widthPt = 16 * 28.3465;
      const heightPt = widthPt * 0.56;
      const chart = chartSvg(plainChartText(el, (text) => this.#plain(text)), { widthPt, heightPt, fontFamily: fontStack(this.#defaults.fonts?.family)[0]!, colors: { text: this.#colors.text, muted: this.#colors.muted, palette: CHART_PALETTE } });
      const width = el.width !== undefined ? length(el.width) : { k: 'pct', v: 100 };
      return { t: 'image', ...this.#svg(chart.svg), alt: chart.description, width, height: length(el.height), caption: this.#caption(el.caption), id: el.id ?? null, align: el.align ?? 'center' };
    },
    qrCode: (el) => {
      const value = this.#plain(el.value);
      const qr = qrSvg(value, { color: '#000000' });
      const size = el.size ?? 3;
      return { t: 'image', ...this.#svg(qr.svg), alt: `QR code: ${value}`, width: { k: 'cm', v: size }, height: null, caption: this.#caption(el.caption), id: null, align: el.align ?? 'left' };
    },
    barcode: (el) => {
      const value = this.#plain(el.value);
      const code = barcodeSvg(value, el.format, { heightCm: el.height ?? 1.5, showText: el.showText !== false, fontFamily: fontStack(this.#defaults.fonts?.family)[0] });
      return { t: 'image', ...this.#svg(code.svg), alt: `Barcode (${el.format}): ${value}`, width: null, height: null, caption: null, id: null, align: el.align ?? 'left' };
    },
    code: (el) => ({ t: 'code', code: el.code, lang: el.language ?? null, lineNumbers: el.lineNumbers ?? false, caption: this.#caption(el.caption), id: el.id ?? null }),
    math: (el, path) => {
      const converted = latexToTypst(el.latex);
      if (!converted.ok) throw new RenderInputError([{ path: `${path}.latex`, message: converted.message }]);
      return { t: 'math', typst: converted.typst, latex: el.latex, display: el.display !== false, caption: this.#caption(el.caption), id: el.id ?? null };
    },
    quote: (el) => ({ t: 'quote', c: this.#inline(el.text), attribution: el.attribution !== undefined ? this.#inline(el.attribution) : null, align: el.align ?? null }),
    divider: () => ({ t: 'divider' }),
    pageBreak: () => ({ t: 'pagebreak' }),
    spacer: (el) => ({ t: 'spacer', height: el.height }),
    toc: (el) => ({ t: 'toc', title: el.title !== undefined ? this.#plain(el.title) : null, depth: el.depth ?? 3 }),
    listOfFigures: (el) => ({ t: 'lof', title: el.title !== undefined ? this.#plain(el.title) : this.#words.figures }),
    listOfTables: (el) => ({ t: 'lot', title: el.title !== undefined ? this.#plain(el.title) : this.#words.tables }),
    bibliography: (el, path) => {
      if (this.#hasBibliography) throw new RenderInputError([{ path, message: 'a document can hold one bibliography; remove this one' }]);
      this.#hasBibliography = true;
      return { t: 'bibliography', title: el.title !== undefined ? this.#plain(el.title) : this.#words.references, style: citationStyleName(el.style ?? this.#defaults.citationStyle ?? 'apa') };
    },
    variableRef: (el, path) => this.#variableRef(el.name, path),
    blockRef: (el, path) => {
      throw new RenderInputError([{ path, message: `reusable block "${el.blockId}" was not inserted: the server inserts an organization's blocks before a render (POST /render, /render/markdown, /render/document/{id}); a document given to the renderer directly must hold the blocks' content instead of blockRef elements` }]);
    },
  };

  #caption(caption: string | undefined): TInline[] | null {
    return caption !== undefined ? this.#inline(caption) : null;
  }

  #listItems(items: ListItem[]): unknown[] {
    return mapListItems<Record<string, unknown>>(items, '', (text, _path, children) => ({ c: this.#inline(text), ...(children ? { items: children } : {}) }));
  }

  #table(el: TableElement, path: string): Record<string, unknown> {
    let rows: Array<Array<Record<string, unknown>>>;
    let header = el.headerRows ?? 0;
    const cell = (c: TableCell): Record<string, unknown> => {
      if (typeof c === 'object') return { c: this.#inline(c.text), colspan: c.colspan ?? 1, rowspan: c.rowspan ?? 1, align: c.align ?? null };
      return { c: this.#inline(c), colspan: 1, rowspan: 1, align: null };
    };
    if (el.rowsFrom) {
      const v = (this.doc.variables ?? {})[el.rowsFrom] as { columns?: string[]; rows: Array<Record<string, string | number>> };
      const columns = v.columns ?? Object.keys(v.rows[0] ?? {});
      const text = (value: string | number | undefined) => ({ c: [{ t: 'text', v: value === undefined ? '' : String(value) }], colspan: 1, rowspan: 1, align: null });
      rows = [columns.map((c) => text(c)), ...v.rows.map((r) => columns.map((c) => text(r[c])))];
      header = 1;
    } else {
      const source = el.rows ?? [];
      rows = source.map((r) => rowCells(r).map(cell));
      header = Math.max(header, source.filter((r) => !Array.isArray(r) && r.header).length);
    }
    const count = el.columns?.length ?? rows[0]?.reduce((n, c) => n + (c.colspan as number), 0) ?? 1;
    const columns = Array.from({ length: count }, (_, i) => length(el.columns?.[i]?.width ?? 'auto'));
    const aligns = Array.from({ length: count }, (_, i) => el.columns?.[i]?.align ?? null);
    if (!rows.length) throw new RenderInputError([{ path: `${path}.rows`, message: 'a table needs at least one row' }]);
    return { t: 'table', rows, header, columns, aligns, caption: el.caption !== undefined ? this.#inline(el.caption) : null, id: el.id ?? null, align: el.align ?? null };
  }

  #variableRef(name: string, path: string): Record<string, unknown> | null {
    const value = (this.doc.variables ?? {})[name];
    if (value === undefined) throw new RenderInputError([{ path: `${path}.name`, message: `"${name}" is not defined in variables` }]);
    if (typeof value === 'string' || typeof value === 'number') return { t: 'par', c: [{ t: 'text', v: String(value) }], align: null, style: null };
    const v = value as { type: string } & Record<string, unknown>;
    if (v.type === 'image') {
      const alt = typeof v.alt === 'string' ? this.#plain(v.alt) : '';
      return { t: 'image', ...this.#image(v.src as string, `config.variables.${name}.src`), alt, width: length(v.width as number | string | undefined), height: length(v.height as number | string | undefined), caption: null, id: null, align: 'left' };
    }
    if (v.type === 'list') {
      return { t: 'list', ordered: v.ordered === true, start: 1, items: (v.items as string[]).map((s) => ({ c: [{ t: 'text', v: s }] })) };
    }
    return this.#table({ type: 'table', rowsFrom: name }, path);
  }

  #image(src: string, path: string): { path: string; format: string } {
    const known = this.#imagePaths.get(src);
    if (known) return known;
    const loaded = this.images.get(src);
    if (!loaded) throw new RenderInputError([{ path, message: `image ${src} was not loaded` }]);
    const format = IMAGE_FORMATS[loaded.mimeType];
    if (!format) throw new RenderInputError([{ path, message: `image ${src} is ${loaded.mimeType}; images must be PNG, JPEG, GIF, WebP or SVG` }]);
    const entry = { path: `/img/${this.files.length}`, format };
    this.files.push({ path: entry.path, bytes: loaded.bytes });
    this.#imagePaths.set(src, entry);
    return entry;
  }

  #svg(svg: string): { path: string; format: string } {
    const entry = { path: `/img/${this.files.length}`, format: 'svg' };
    this.files.push({ path: entry.path, bytes: Buffer.from(svg, 'utf8') });
    return entry;
  }
}

interface ColumnRules {
  /** cm from the left page edge */
  xs: number[];
  /** cm from the top page edge, and the rule's length */
  top: number;
  length: number;
}

/** Where the rules between columns go on a page (between the margins of pageGeometry). */
function columnRules(d: DocumentJson['document'], count: number, gutter: number): ColumnRules {
  const page = pageGeometry(d);
  const [w, h] = [page.widthCm, page.heightCm];
  const { leftCm: left, rightCm: right, topCm: top, bottomCm: bottom } = page.margins;
  const column = (w - left - right - (count - 1) * gutter) / count;
  const xs = Array.from({ length: count - 1 }, (_, k) => left + (k + 1) * column + k * gutter + gutter / 2);
  return { xs, top, length: h - top - bottom };
}

export { inlineText };

/** An ISO `document.date` as the arguments of Typst's datetime (UTC); null: the render's time (`auto`). */
function typstDate(text: string | undefined): Record<string, number> | null {
  const date = isoDocumentDate(text);
  if (!date) return null;
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: date.getUTCHours(), minute: date.getUTCMinutes(), second: date.getUTCSeconds() };
}
