// Turns a validated document into the OfficeDocument the DOCX and ODT writers translate, answering every
// question that does not depend on the file format the way the PDF target does (engines/typst/typst-data.ts
// and quire.typ): variables, abbreviations, broken references, unknown citation keys, table variables,
// caption numbering, default styles and page geometry. What Typst does on its own there (CSL, LaTeX, code
// highlighting, drawing SVG) is done here with citeproc, Temml, lowlight and @napi-rs/canvas.
// The elements are resolved in resolve-blocks.ts, their inline markup in resolve-inline.ts.
import type { CslItem, DocumentJson, HeaderFooter } from '../../contracts/document-json.js';
import { anchorIds } from '../../document/element-visitor.js';
import { PluginError } from '../../sdk/plugin-api.js';
import { fontStack, MONO_STACK } from '../fonts/pdf-fonts.js';
import { officeScriptFonts } from '../fonts/scripts.js';
import { documentStrings } from '../fonts/glyph-coverage.js';
import { wordsFor, type Words } from '../../document/locale-words.js';
import { isoDocumentDate } from '../../document/document-date.js';
import { DEFAULT_HEADINGS, RenderInputError, documentColors, furnitureParts, pageGeometry, parseLocale, tableStyle, type LoadedImage } from '../render-input.js';
import { formatCitations, type CitationStyle } from './csl.js';
import type { SizeCm } from './pictures.js';
import { BlockResolver } from './resolve-blocks.js';
import { InlineResolver } from './resolve-inline.js';
import type { Furniture, OfficeDocument, OfficeSection } from './model.js';

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

class Resolver {
  readonly #problems: Array<{ path: string; message: string }> = [];
  readonly #warnings: OfficeDocument['warnings'] = [];
  readonly #defaults: NonNullable<DocumentJson['defaults']>;
  readonly #colors;
  readonly #words: Words;
  readonly #page;
  readonly #text: InlineResolver;
  readonly #blocks: BlockResolver;

  constructor(
    private readonly doc: DocumentJson,
    images: Map<string, LoadedImage>,
    private readonly options: ResolveOptions,
  ) {
    this.#defaults = doc.defaults ?? {};
    this.#colors = documentColors(this.#defaults);
    this.#words = wordsFor(parseLocale(this.#defaults.locale).lang);
    this.#page = pageGeometry(doc.document);
    // Anchors a reference may point to: section ids and element ids, as in the PDF.
    const anchors = anchorIds(doc);
    this.#text = new InlineResolver(doc, anchors, this.#warnings);
    this.#blocks = new BlockResolver(doc, images, options.fontDirs ?? [], anchors, this.#textArea(), this.#words, this.#text, this.#problems);
  }

  async resolve(): Promise<OfficeDocument> {
    const doc = this.doc;
    const d = doc.document;
    const defaults = this.#defaults;
    const words = this.#words;
    const blocks = this.#blocks;
    const sections: OfficeSection[] = doc.sections.map((s, i) => {
      // Paths name the request field (`config.…`), as the 400 answers and the PDF target do.
      const path = `config.sections[${i}]`;
      if (s.type === 'page') {
        blocks.box = this.#textArea();
        return { kind: 'page', id: s.id ?? null, align: s.align ?? 'top', startY: s.startY ?? null, content: blocks.blocks(s.content, `${path}.content`) };
      }
      const columns = s.columns && s.columns.count > 1 ? { count: s.columns.count, spaceCm: s.columns.space ?? 1.27, separate: s.columns.separate ?? false } : null;
      const area = this.#textArea();
      blocks.box = columns ? { widthCm: (area.widthCm - (columns.count - 1) * columns.spaceCm) / columns.count, heightCm: area.heightCm } : area;
      return { kind: 'flow', id: s.id ?? null, newPage: s.newPage !== false, columns, content: blocks.blocks(s.content, `${path}.content`) };
    });
    if (this.#text.clusters.length && !blocks.bibliography) {
      // As in the PDF: a document that cites without a bibliography gets one at the end.
      const bib = blocks.newBibliography(words.references);
      const last = sections.at(-1);
      if (last && last.kind === 'flow') last.content.push(bib);
      else sections.push({ kind: 'flow', id: null, newPage: false, columns: null, content: [bib] });
    }
    // citeproc runs on this thread while the pictures decode and encode on libuv's.
    this.#formatCitations();
    this.#problems.push(...(await blocks.pictures.done()));
    if (this.#problems.length) throw new RenderInputError(this.#problems);
    blocks.fillLists();

    const fonts = defaults.fonts ?? {};
    const paragraph = defaults.paragraph ?? {};
    const bodyFont = fontStack(fonts.family)[0]!;
    const scriptFonts = officeScriptFonts(defaults.locale, function* () {
      for (const s of documentStrings(doc)) yield s.text;
    });
    const title = d.title !== undefined ? this.#text.plain(d.title) : null;
    return {
      meta: {
        title,
        author: d.author !== undefined ? this.#text.plain(d.author) : null,
        subject: d.subject !== undefined ? this.#text.plain(d.subject) : null,
        description: d.abstract !== undefined ? this.#text.plain(d.abstract) : null,
        keywords: (d.keywords ?? []).map((k) => this.#text.plain(k)),
        // An ISO document.date is the document's date; otherwise the job's time.
        created: isoDocumentDate(d.date !== undefined ? this.#text.plain(d.date) : undefined)?.toISOString() ?? this.options.createdAt,
      },
      locale: defaults.locale ?? 'en-US',
      page: this.#page,
      styles: {
        bodyFont,
        monoFont: MONO_STACK[0]!,
        asianFont: scriptFonts.asian ?? bodyFont,
        complexFont: scriptFonts.complex ?? bodyFont,
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

  #furniture(spec: HeaderFooter | undefined): Furniture | null {
    if (!spec?.text) return null;
    return { parts: furnitureParts(spec.text, this.doc.variables ?? {}), align: spec.align ?? 'center', skipFirstPage: spec.skipFirstPage ?? false };
  }

  /** Citations in document order (numeric styles number by first citation) and the bibliography, with CSL. */
  #formatCitations(): void {
    const clusters = this.#text.clusters;
    if (!clusters.length) return;
    const style: CitationStyle = this.#bibliographyStyle() ?? this.#defaults.citationStyle ?? 'apa';
    let formatted: ReturnType<typeof formatCitations>;
    try {
      formatted = formatCitations(style, this.#defaults.locale ?? 'en-US', (this.doc.citations ?? []) as CslItem[], clusters.map((c) => c.cluster));
    } catch (err) {
      // A missing CSL file is the server's problem (PluginError); anything else comes from the items.
      if (err instanceof PluginError) throw err;
      this.#problems.push({ path: 'config.citations', message: `the citations could not be formatted with CSL (${style}): ${(err as Error).message}` });
      return;
    }
    clusters.forEach((c, i) => (c.node.c = formatted.citations[i]!));
    if (this.#blocks.bibliography) this.#blocks.bibliography.entries = formatted.bibliography;
  }

  /** The bibliography element's own style wins for the whole document, as Typst formats citations with it. */
  #bibliographyStyle(): CitationStyle | undefined {
    for (const s of this.doc.sections) for (const el of s.content) if (el.type === 'bibliography') return el.style;
    return undefined;
  }
}
