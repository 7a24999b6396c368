// content.xml of an ODT: the sections and blocks of the resolved document as native Writer structures
// (headings with outline levels, lists, tables, frames, notes, fields, indexes). The pictures and formula
// objects the package carries beside it are collected by OdtFrames (odt-frames.ts).
import { el, xmlDocument, type Xml, type XmlAttrs, type XmlChild } from './xml.js';
import { NS, ODF_VERSION, SEQUENCES, cm, colour, odtText, type SequenceName } from './odt-common.js';
import { AutoStyles, type ParagraphOverrides } from './odt-auto-styles.js';
import { fontName, MASTER, needsFirstPageMaster } from './odt-styles.js';
import { writeTable } from './odt-tables.js';
import { writeIndex } from './odt-indexes.js';
import { pageSectionOffsetCm } from './odt-page-fit.js';
import { OdtFrames } from './odt-frames.js';
import type { Block, Caption, FlowSection, OfficeDocument, OInline } from './model.js';

/** What a page break, a master-page switch or an anchor waiting for the next paragraph needs. */
interface Pending {
  breakBefore: boolean;
  masterPage: string | null;
  bookmarks: string[];
}

export class OdtContentWriter {
  readonly auto = new AutoStyles();
  readonly frames: OdtFrames;
  #pending: Pending;
  #notes = 0;
  #tables = 0;
  #sectionCount = 0;
  #indexes = 0;
  #inNote = false;
  #inLink = false;
  #textWidthCm: number;

  constructor(private readonly doc: OfficeDocument) {
    this.#pending = { breakBefore: false, masterPage: needsFirstPageMaster(doc) ? MASTER.first : null, bookmarks: [] };
    const m = doc.page.margins;
    this.#textWidthCm = Math.max(1, doc.page.widthCm - m.leftCm - m.rightCm);
    this.frames = new OdtFrames(this.auto, doc.styles.fontSize);
  }

  contentXml(): string {
    const body = this.#body();
    const fonts = el(
      'office:font-face-decls',
      null,
      [...new Set([this.doc.styles.bodyFont, this.doc.styles.monoFont, this.doc.styles.asianFont, this.doc.styles.complexFont].map(fontName))].map((f) => el('style:font-face', { 'style:name': fontName(f), 'svg:font-family': `'${fontName(f)}'` })),
    );
    return xmlDocument(el('office:document-content', { ...NS, 'office:version': ODF_VERSION }, fonts, this.auto.toXml(), body));
  }

  #body(): Xml {
    const out: XmlChild[] = [];
    let afterPage = false;
    this.doc.sections.forEach((s, i) => {
      if (i > 0 && (s.kind === 'page' || s.newPage || afterPage)) this.#pending.breakBefore = true;
      if (s.id) this.#pending.bookmarks.push(s.id);
      if (s.kind === 'page') {
        const offset = pageSectionOffsetCm(this.doc, s, this.#textWidthCm);
        if (offset > 0.05) out.push(this.#spacer(offset));
        out.push(this.#blocks(s.content));
      } else if (s.columns && s.columns.count > 1) {
        out.push(this.#columnSection(s));
      } else {
        out.push(this.#blocks(s.content));
      }
      afterPage = s.kind === 'page';
    });
    // Writer needs one paragraph to open an empty document on (and to carry the first page's master page).
    if (this.doc.sections.every((s) => s.content.length === 0)) out.push(this.#para('text:p', 'Text_20_body', {}, null));
    out.push(this.#carrier(true));
    const sequences = el(
      'text:sequence-decls',
      null,
      ['Illustration', 'Text', 'Drawing', ...SEQUENCES].map((name) => el('text:sequence-decl', { 'text:display-outline-level': 0, 'text:name': name })),
    );
    return el('office:body', null, el('office:text', null, sequences, out));
  }

  #blocks(blocks: Block[]): XmlChild[] {
    return blocks.map((b) => this.#block(b));
  }

  #columnSection(s: FlowSection): Xml {
    const cols = s.columns!;
    const gap = cols.spaceCm;
    const count = cols.count;
    const style = this.auto.style(
      'section',
      'Sect',
      {},
      el(
        'style:section-properties',
        { 'text:dont-balance-text-columns': 'false', 'style:editable': 'false' },
        el(
          'style:columns',
          { 'fo:column-count': count, 'fo:column-gap': cm(gap) },
          cols.separate ? el('style:column-sep', { 'style:style': 'solid', 'style:width': '0.02cm', 'style:color': colour(this.doc.styles.colors.muted), 'style:height': '100%', 'style:vertical-align': 'top' }) : null,
          Array.from({ length: count }, (_, i) => el('style:column', { 'style:rel-width': '1000*', 'fo:start-indent': cm(i === 0 ? 0 : gap / 2), 'fo:end-indent': cm(i === count - 1 ? 0 : gap / 2) })),
        ),
      ),
    );
    const outer = this.#textWidthCm;
    this.#textWidthCm = Math.max(1, (outer - gap * (count - 1)) / count);
    const content = this.#blocks(s.content);
    this.#textWidthCm = outer;
    return el('text:section', { 'text:style-name': style, 'text:name': `Section${++this.#sectionCount}` }, content, this.#carrier(true));
  }

  #block(b: Block): XmlChild {
    // Link targets other than headings (which wrap their text in a bookmark) anchor at their first paragraph.
    if (b.t !== 'heading' && 'id' in b && b.id) this.#pending.bookmarks.push(b.id);
    switch (b.t) {
      case 'heading': {
        const content = b.id ? [el('text:bookmark-start', { 'text:name': b.id }), this.#inl(b.c), el('text:bookmark-end', { 'text:name': b.id })] : this.#inl(b.c);
        return this.#para('text:h', `Heading_20_${b.level}`, { align: b.align }, content, { 'text:outline-level': b.level });
      }
      case 'par': {
        const s = b.style;
        const text = s ? { bold: s.bold, italic: s.italic, size: s.fontSize, family: s.fontFamily, color: s.color } : null;
        return this.#para('text:p', 'Text_20_body', { align: b.align, text }, this.#inl(b.c));
      }
      case 'list':
        return this.#list(b.ordered, b.start, b.items, 0);
      case 'table': {
        const { breakBefore, masterPage } = this.#pending;
        this.#pending.breakBefore = false;
        this.#pending.masterPage = null;
        const table = writeTable(this.doc, this.auto, b, ++this.#tables, this.#textWidthCm, { breakBefore, masterPage }, {
          inline: (c) => this.#inl(c),
          paragraph: (style, content) => this.#para('text:p', style, {}, content),
        });
        return [table, b.caption ? this.#caption(b.caption, 'Table') : null];
      }
      case 'image':
        return [
          this.#para('text:p', 'Figure_20_Paragraph', { align: b.align, keepWithNext: b.caption !== null }, this.frames.image(b.picture)),
          b.caption ? this.#caption(b.caption, 'Figure') : null,
        ];
      case 'code':
        return [this.#code(b), b.caption ? this.#caption(b.caption, 'Listing') : null];
      case 'math':
        if (!b.display) return this.#para('text:p', 'Text_20_body', {}, this.frames.formula(b.mathml, b.latex, false));
        if (b.number !== undefined) return [this.#numberedFormula(b.mathml, b.latex, b.number, b.caption !== null), b.caption ? this.#caption(b.caption, 'Equation') : null];
        return [this.#para('text:p', 'Formula_20_Paragraph', { keepWithNext: b.caption !== null }, this.frames.formula(b.mathml, b.latex, true)), b.caption ? this.#caption(b.caption, 'Equation') : null];
      case 'quote':
        return [
          this.#para('text:p', 'Quotations', { align: b.align }, this.#inl(b.c)),
          b.attribution ? this.#para('text:p', 'Quotation_20_Attribution', {}, ['— ', this.#inl(b.attribution)]) : null,
        ];
      case 'divider':
        return this.#para('text:p', 'Horizontal_20_Line', {}, null);
      case 'pagebreak':
        this.#pending.breakBefore = true;
        return null;
      case 'spacer':
        return this.#spacer(b.heightCm);
      case 'toc':
      case 'lof':
      case 'lot':
        // An index body is regenerated by Writer, so a break or anchor before it goes on a paragraph of its own.
        return [this.#carrier(false), writeIndex(b, ++this.#indexes)];
      case 'bibliography':
        return [
          b.title ? this.#para('text:h', 'Bibliography_20_Heading', {}, odtText(b.title), { 'text:outline-level': 1 }) : null,
          b.entries.map((e) => this.#para('text:p', 'Bibliography_20_1', {}, this.#inl(e))),
        ];
    }
  }

  /** A paragraph or heading, taking the pending page break, master page and anchors. */
  #para(tag: 'text:p' | 'text:h', base: string, o: ParagraphOverrides, content: XmlChild, attrs: XmlAttrs = {}): Xml {
    const p = this.#pending;
    const style = this.auto.paragraph(base, { ...o, breakBefore: p.breakBefore && !p.masterPage, masterPage: p.masterPage });
    const marks = p.bookmarks.map((name) => el('text:bookmark', { 'text:name': name }));
    this.#pending = { breakBefore: false, masterPage: null, bookmarks: [] };
    return el(tag, { 'text:style-name': style, ...attrs }, marks, content);
  }

  /** A display equation numbered as the PDF numbers it: centred on a centre tab, "(n)" on a right tab at the margin. */
  #numberedFormula(mathml: string, latex: string, number: number, keepWithNext: boolean): Xml {
    const width = this.#textWidthCm;
    const tabStops = [{ positionCm: width / 2, type: 'center' as const }, { positionCm: width, type: 'right' as const }];
    return this.#para('text:p', 'Formula_20_Paragraph', { align: 'left', keepWithNext, tabStops }, [el('text:tab'), this.frames.formula(mathml, latex, true), el('text:tab'), `(${number})`]);
  }

  /** An almost invisible paragraph holding what is pending, when no paragraph of the content can. */
  #carrier(anchorsOnly: boolean): Xml | null {
    const p = this.#pending;
    if (!p.bookmarks.length && (anchorsOnly || (!p.breakBefore && !p.masterPage))) return null;
    if (anchorsOnly) p.breakBefore = false;
    return this.#para('text:p', 'Standard', { lineHeightCm: 0.05, text: { size: 1 } }, null);
  }

  #spacer(heightCm: number): Xml {
    return this.#para('text:p', 'Standard', { lineHeightCm: Math.max(0.05, heightCm), marginTopCm: 0, marginBottomCm: 0, text: { size: 1 } }, null);
  }

  #list(ordered: boolean, start: number, items: Extract<Block, { t: 'list' }>['items'], depth: number): Xml {
    return el(
      'text:list',
      { 'text:style-name': depth === 0 ? (ordered ? 'Numbering_20_123' : 'List_20_1') : null },
      items.map((it, i) =>
        el(
          'text:list-item',
          // Every ordered list states where it starts, so no reader continues the numbering of an earlier list.
          { 'text:start-value': ordered && i === 0 ? (depth === 0 ? start : 1) : null },
          this.#para('text:p', 'List', {}, this.#inl(it.c)),
          it.items?.length ? this.#list(ordered, 1, it.items, depth + 1) : null,
        ),
      ),
    );
  }

  #code(b: Extract<Block, { t: 'code' }>): XmlChild {
    const digits = String(b.lines.length).length;
    const st = this.doc.styles;
    const gapCm = (Math.max(st.spaceBefore, st.spaceAfter) * 2.54) / 72;
    const last = b.lines.length - 1;
    return b.lines.map((tokens, i) =>
      this.#para('text:p', 'Preformatted_20_Text', { marginTopCm: i === 0 ? gapCm : undefined, marginBottomCm: i === last ? gapCm : undefined, keepWithNext: i === last && b.caption !== null }, [
        b.lineNumbers ? el('text:span', { 'text:style-name': 'Line_20_numbering' }, odtText(`${String(i + 1).padStart(digits)}  `)) : null,
        tokens.map((tok) =>
          tok.color || tok.bold || tok.italic
            ? el('text:span', { 'text:style-name': this.auto.text({ color: tok.color, bold: tok.bold || undefined, italic: tok.italic || undefined }) }, odtText(tok.v))
            : odtText(tok.v),
        ),
      ]),
    );
  }

  /** "Figure 3: …" with the number as a sequence field, which the illustration and table indexes collect. */
  #caption(cap: Caption, seq: SequenceName): Xml {
    const number = el('text:sequence', { 'text:ref-name': `ref${seq}${cap.number}`, 'text:name': seq, 'text:formula': `ooow:${seq}+1`, 'style:num-format': '1' }, String(cap.number));
    return this.#para('text:p', 'Caption', {}, [odtText(`${cap.label} `), number, cap.c.length ? [odtText(cap.separator ?? ': '), this.#inl(cap.c)] : null]);
  }

  #inl(nodes: OInline[]): XmlChild[] {
    return nodes.map((n) => this.#inline(n));
  }

  #inline(n: OInline): XmlChild {
    switch (n.t) {
      case 'text':
        return odtText(n.v);
      case 'strong':
        return el('text:span', { 'text:style-name': 'Strong_20_Emphasis' }, this.#inl(n.c));
      case 'emph':
        return el('text:span', { 'text:style-name': 'Emphasis' }, this.#inl(n.c));
      case 'code':
        return el('text:span', { 'text:style-name': 'Source_20_Text' }, odtText(n.v));
      case 'link':
      case 'ref': {
        // A link inside a link is not allowed in ODF; the inner one keeps its text.
        if (this.#inLink) return this.#inl(n.c);
        this.#inLink = true;
        const content = this.#inl(n.c);
        this.#inLink = false;
        const href = n.t === 'link' ? n.url : `#${n.id}`;
        return el('text:a', { 'xlink:type': 'simple', 'xlink:href': href, 'text:style-name': 'Internet_20_link', 'text:visited-style-name': 'Visited_20_Internet_20_Link' }, content);
      }
      case 'footnote': {
        // Notes cannot nest: a footnote inside a footnote prints its text in place.
        if (this.#inNote) return this.#inl(n.c);
        this.#inNote = true;
        const body = this.#inl(n.c);
        this.#inNote = false;
        const k = ++this.#notes;
        return el(
          'text:note',
          { 'text:id': `ftn${k}`, 'text:note-class': 'footnote' },
          el('text:note-citation', null, String(k)),
          el('text:note-body', null, el('text:p', { 'text:style-name': 'Footnote' }, body)),
        );
      }
      case 'math':
        return this.frames.formula(n.mathml, n.latex, false);
      case 'cite':
        return this.#inl(n.c);
      case 'br':
        return el('text:line-break');
    }
  }
}

