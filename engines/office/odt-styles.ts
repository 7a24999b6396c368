// styles.xml of an ODT: the named paragraph, character and list styles (from the document's `defaults`),
// the heading outline, footnote settings, page layouts and the master pages carrying header and footer.
import { el, frag, xmlDocument, type Xml, type XmlAttrs, type XmlChild } from './xml.js';
import { NS, ODF_VERSION, cm, colour, fontFamily, foAlign, languageAttrs, odtText, pt, textPropAttrs, type TextProps } from './odt-common.js';
import type { Furniture, OfficeDocument } from './model.js';

/** Master page names. The first-page one exists only when a header or footer skips the first page. */
export const MASTER = { standard: 'Standard', first: 'First_20_Page' } as const;

/** Header/footer box: its minimum height and the gap to the body, taken out of the page margin. */
const FURNITURE_HEIGHT_CM = 0.6;
const FURNITURE_GAP_CM = 0.4;

/** Whether the document needs a separate first-page master (a header or footer that skips page 1). */
export function needsFirstPageMaster(doc: OfficeDocument): boolean {
  return Boolean(doc.header?.skipFirstPage || doc.footer?.skipFirstPage);
}

export function stylesXml(doc: OfficeDocument): string {
  const s = doc.styles;
  const fonts = el(
    'office:font-face-decls',
    null,
    [...new Map([s.bodyFont, s.monoFont, s.asianFont, s.complexFont].map((f) => [fontName(f), f])).values()].map((f) =>
      el('style:font-face', { 'style:name': fontName(f), 'svg:font-family': fontFamily(f), 'style:font-pitch': f === s.monoFont ? 'fixed' : 'variable' }),
    ),
  );
  const root = el(
    'office:document-styles',
    { ...NS, 'office:version': ODF_VERSION },
    fonts,
    el('office:styles', null, defaultStyles(doc), paragraphStyles(doc), textStyles(doc), listStyles(), outlineStyle(), notesConfiguration()),
    el('office:automatic-styles', null, pageLayouts(doc)),
    masterPages(doc),
  );
  return xmlDocument(root);
}

/** style:name of a font face: the family name with the characters a style name cannot hold replaced. */
export function fontName(family: string): string {
  return family.replace(/['",;]/g, '').trim() || 'sans-serif';
}

function paraStyle(name: string, display: string, parent: string | null, par: XmlAttrs | null, text: XmlAttrs | null, extra: XmlAttrs = {}, children: XmlChild = null): Xml {
  return el(
    'style:style',
    { 'style:name': name, 'style:display-name': display, 'style:family': 'paragraph', 'style:parent-style-name': parent, ...extra },
    par || children ? el('style:paragraph-properties', par, children) : null,
    text ? el('style:text-properties', text) : null,
  );
}

function textStyle(name: string, display: string, text: XmlAttrs): Xml {
  return el('style:style', { 'style:name': name, 'style:display-name': display, 'style:family': 'text' }, el('style:text-properties', text));
}

function defaultStyles(doc: OfficeDocument): Xml {
  const s = doc.styles;
  const lang = languageAttrs(doc.locale);
  return frag(
    el(
      'style:default-style',
      { 'style:family': 'paragraph' },
      el('style:paragraph-properties', { 'style:writing-mode': 'page', 'style:tab-stop-distance': '1.25cm', 'fo:hyphenation-ladder-count': 'no-limit' }),
      el('style:text-properties', {
        'style:font-name': fontName(s.bodyFont),
        'style:font-name-asian': fontName(s.asianFont),
        'style:font-name-complex': fontName(s.complexFont),
        'fo:font-size': pt(s.fontSize),
        'style:font-size-asian': pt(s.fontSize),
        'style:font-size-complex': pt(s.fontSize),
        'fo:color': colour(s.colors.text),
        ...lang,
        'fo:hyphenate': 'false',
      }),
    ),
    el('style:default-style', { 'style:family': 'graphic' }, el('style:graphic-properties', { 'style:flow-with-text': 'false', 'draw:shadow': 'hidden' })),
    el('style:default-style', { 'style:family': 'table' }, el('style:table-properties', { 'table:border-model': 'collapsing' })),
  );
}

function paragraphStyles(doc: OfficeDocument): Xml {
  const s = doc.styles;
  // Typst (the PDF) puts one paragraph spacing between paragraphs; Writer adds the space below one to the
  // space above the next, so the body style carries the larger of the two below and nothing above.
  const gap = Math.max(s.spaceBefore, s.spaceAfter);
  const lineAtLeast = pt(s.fontSize * s.lineHeight);
  const muted = colour(s.colors.muted);
  const headerText = s.table.headerColor ? colour(s.table.headerColor) : null;
  const mono: TextProps = { family: s.monoFont };
  const headings = s.headings.slice(0, 6).map((h, i) =>
    paraStyle(
      `Heading_20_${i + 1}`,
      `Heading ${i + 1}`,
      'Heading',
      { 'fo:margin-top': pt(h.spaceBefore), 'fo:margin-bottom': pt(h.spaceAfter), 'fo:keep-with-next': 'always' },
      textPropAttrs({ size: h.size, bold: h.bold, color: h.color }),
      { 'style:next-style-name': 'Text_20_body', 'style:default-outline-level': i + 1, 'style:class': 'text' },
    ),
  );
  const contents = Array.from({ length: 10 }, (_, i) =>
    paraStyle(`Contents_20_${i + 1}`, `Contents ${i + 1}`, 'Index', { 'fo:margin-left': cm(i * 0.5), 'fo:margin-top': '0cm', 'fo:margin-bottom': pt(2) }, null, { 'style:class': 'index' }),
  );
  return frag(
    paraStyle('Standard', 'Standard', null, { 'style:line-height-at-least': lineAtLeast }, null, { 'style:class': 'text' }),
    paraStyle('Text_20_body', 'Text body', 'Standard', { 'fo:margin-top': '0pt', 'fo:margin-bottom': pt(gap) }, null, { 'style:class': 'text' }),
    paraStyle('Heading', 'Heading', 'Standard', { 'fo:keep-with-next': 'always' }, { 'style:font-name': fontName(s.bodyFont), 'fo:color': colour(s.colors.primary) }, { 'style:next-style-name': 'Text_20_body', 'style:class': 'text' }),
    headings,
    paraStyle('List', 'List', 'Text_20_body', { 'fo:margin-bottom': pt(Math.min(gap, 3)) }, null, { 'style:class': 'list' }),
    paraStyle('Caption', 'Caption', 'Standard', { 'fo:text-align': 'center', 'fo:margin-top': pt(4), 'fo:margin-bottom': pt(gap + 4) }, { ...textPropAttrs({ size: s.fontSize * 0.9 }), 'fo:color': muted }, { 'style:class': 'extra' }),
    paraStyle('Figure_20_Paragraph', 'Figure Paragraph', 'Standard', { 'fo:margin-top': pt(gap), 'fo:margin-bottom': pt(gap) }, null, { 'style:class': 'extra' }),
    paraStyle('Formula_20_Paragraph', 'Formula Paragraph', 'Standard', { 'fo:text-align': 'center', 'fo:margin-top': pt(gap), 'fo:margin-bottom': pt(gap) }, null, { 'style:class': 'extra' }),
    paraStyle('Quotations', 'Quotations', 'Standard', { 'fo:margin-left': cm(1), 'fo:margin-right': cm(1), 'fo:margin-top': pt(gap / 2), 'fo:margin-bottom': pt(gap / 2) }, null, { 'style:class': 'html' }),
    paraStyle('Quotation_20_Attribution', 'Quotation Attribution', 'Quotations', { 'fo:text-align': 'end', 'fo:margin-top': '0pt', 'fo:margin-bottom': pt(gap) }, { 'fo:color': muted }, { 'style:class': 'html' }),
    paraStyle(
      'Preformatted_20_Text',
      'Preformatted Text',
      'Standard',
      // Consecutive code lines join into one shaded box (join-border); the block's first and last lines add
      // the paragraph spacing above and below it (odt-content.ts), which ODF 1.2 has no contextual rule for.
      { 'fo:margin-top': '0pt', 'fo:margin-bottom': '0pt', 'fo:background-color': '#f7f7f7', 'fo:padding': '0.15cm', 'fo:border': 'none', 'style:join-border': 'true', 'fo:line-height': '115%' },
      textPropAttrs({ ...mono, size: s.fontSize * 0.9 }),
      { 'style:class': 'html' },
    ),
    paraStyle('Table_20_Contents', 'Table Contents', 'Standard', { 'fo:margin-top': '0pt', 'fo:margin-bottom': '0pt' }, null, { 'style:class': 'extra' }),
    paraStyle('Table_20_Heading', 'Table Heading', 'Table_20_Contents', null, { ...textPropAttrs({ bold: true }), 'fo:color': headerText }, { 'style:class': 'extra' }),
    paraStyle('Footnote', 'Footnote', 'Standard', { 'fo:margin-left': cm(0.5), 'fo:text-indent': cm(-0.5), 'fo:line-height': '100%' }, textPropAttrs({ size: s.fontSize * 0.85 }), { 'style:class': 'extra' }),
    paraStyle('Header', 'Header', 'Standard', { 'fo:text-align': furnitureAlign(doc.header), 'fo:line-height': '100%' }, { ...textPropAttrs({ size: s.fontSize * 0.85 }), 'fo:color': muted }, { 'style:class': 'extra' }),
    paraStyle('Footer', 'Footer', 'Standard', { 'fo:text-align': furnitureAlign(doc.footer), 'fo:line-height': '100%' }, { ...textPropAttrs({ size: s.fontSize * 0.85 }), 'fo:color': muted }, { 'style:class': 'extra' }),
    paraStyle(
      'Horizontal_20_Line',
      'Horizontal Line',
      'Standard',
      { 'fo:margin-top': pt(gap / 2), 'fo:margin-bottom': pt(gap), 'fo:border-bottom': `0.6pt solid ${muted}`, 'fo:padding': '0cm', 'fo:line-height': '100%' },
      textPropAttrs({ size: 2 }),
      { 'style:class': 'html' },
    ),
    paraStyle('Index', 'Index', 'Standard', null, null, { 'style:class': 'index' }),
    paraStyle('Contents_20_Heading', 'Contents Heading', 'Heading', { 'fo:margin-top': pt(s.headings[0]?.spaceBefore ?? 12), 'fo:margin-bottom': pt(s.headings[0]?.spaceAfter ?? 6) }, textPropAttrs({ size: s.headings[0]?.size ?? 16, bold: true }), { 'style:class': 'index' }),
    contents,
    paraStyle('Illustration_20_Index_20_Heading', 'Illustration Index Heading', 'Contents_20_Heading', null, null, { 'style:class': 'index' }),
    paraStyle('Illustration_20_Index_20_1', 'Illustration Index 1', 'Index', { 'fo:margin-bottom': pt(2) }, null, { 'style:class': 'index' }),
    paraStyle('Table_20_index_20_heading', 'Table index heading', 'Contents_20_Heading', null, null, { 'style:class': 'index' }),
    paraStyle('Table_20_index_20_1', 'Table index 1', 'Index', { 'fo:margin-bottom': pt(2) }, null, { 'style:class': 'index' }),
    // The bibliography's title is a real heading (level 1, in the outline), as the PDF's is.
    paraStyle('Bibliography_20_Heading', 'Bibliography Heading', 'Heading_20_1', null, null, { 'style:default-outline-level': 1, 'style:class': 'index' }),
    paraStyle('Bibliography_20_1', 'Bibliography 1', 'Index', { 'fo:margin-left': cm(1.27), 'fo:text-indent': cm(-1.27), 'fo:margin-bottom': pt(gap / 2) }, null, { 'style:class': 'index' }),
    el('style:style', { 'style:name': 'Graphics', 'style:family': 'graphic' }, el('style:graphic-properties', { 'text:anchor-type': 'as-char', 'style:vertical-pos': 'top', 'style:vertical-rel': 'baseline', 'style:wrap': 'none' })),
    el('style:style', { 'style:name': 'Formula', 'style:family': 'graphic' }, el('style:graphic-properties', { 'text:anchor-type': 'as-char', 'style:vertical-pos': 'middle', 'style:vertical-rel': 'text', 'style:wrap': 'none' })),
  );
}

function textStyles(doc: OfficeDocument): Xml {
  const s = doc.styles;
  const primary = colour(s.colors.primary);
  return frag(
    textStyle('Strong_20_Emphasis', 'Strong Emphasis', textPropAttrs({ bold: true })),
    textStyle('Emphasis', 'Emphasis', textPropAttrs({ italic: true })),
    textStyle('Source_20_Text', 'Source Text', { 'style:font-name': fontName(s.monoFont), 'style:font-name-asian': fontName(s.monoFont), 'style:font-name-complex': fontName(s.monoFont), 'fo:background-color': '#f2f2f2' }),
    textStyle('Internet_20_link', 'Internet link', { 'fo:color': primary, 'style:text-underline-style': 'none' }),
    textStyle('Visited_20_Internet_20_Link', 'Visited Internet Link', { 'fo:color': primary, 'style:text-underline-style': 'none' }),
    textStyle('Index_20_Link', 'Index Link', {}),
    textStyle('Footnote_20_Symbol', 'Footnote Symbol', {}),
    textStyle('Footnote_20_anchor', 'Footnote anchor', { 'style:text-position': 'super 58%' }),
    textStyle('Line_20_numbering', 'Line numbering', { 'fo:color': colour(s.colors.muted), 'style:font-name': fontName(s.monoFont) }),
  );
}

/** Numbered lists count "1." at every level (as the PDF does); bullets alternate •, ◦, ▪. */
function listStyles(): Xml {
  const levels = Array.from({ length: 10 }, (_, i) => i + 1);
  const props = (level: number) =>
    el(
      'style:list-level-properties',
      { 'text:list-level-position-and-space-mode': 'label-alignment' },
      el('style:list-level-label-alignment', { 'text:label-followed-by': 'listtab', 'text:list-tab-stop-position': cm(0.635 * level), 'fo:text-indent': cm(-0.635), 'fo:margin-left': cm(0.635 * level) }),
    );
  return frag(
    el(
      'text:list-style',
      { 'style:name': 'Numbering_20_123', 'style:display-name': 'Numbering 123' },
      levels.map((l) => el('text:list-level-style-number', { 'text:level': l, 'style:num-suffix': '.', 'style:num-format': '1' }, props(l))),
    ),
    el(
      'text:list-style',
      { 'style:name': 'List_20_1', 'style:display-name': 'List 1' },
      levels.map((l) => el('text:list-level-style-bullet', { 'text:level': l, 'text:bullet-char': ['•', '◦', '▪'][(l - 1) % 3]! }, props(l))),
    ),
  );
}

/** Headings are outline-numbered without visible numbers: their levels feed the Navigator, the TOC and PDF bookmarks. */
function outlineStyle(): Xml {
  return el(
    'text:outline-style',
    { 'style:name': 'Outline' },
    Array.from({ length: 10 }, (_, i) =>
      el('text:outline-level-style', { 'text:level': i + 1, 'style:num-format': '' }, el('style:list-level-properties', { 'text:list-level-position-and-space-mode': 'label-alignment' }, el('style:list-level-label-alignment', { 'text:label-followed-by': 'nothing' }))),
    ),
  );
}

function notesConfiguration(): Xml {
  return el('text:notes-configuration', {
    'text:note-class': 'footnote',
    'text:citation-style-name': 'Footnote_20_Symbol',
    'text:citation-body-style-name': 'Footnote_20_anchor',
    'text:default-style-name': 'Footnote',
    'style:num-format': '1',
    'text:start-value': 0,
    'text:footnotes-position': 'page',
    'text:start-numbering-at': 'document',
  });
}

function furnitureAlign(f: Furniture | null): string {
  return foAlign(f?.align ?? 'center');
}

/**
 * Page layouts: the body keeps the document's margins. Writer puts a header inside the top margin and
 * shrinks the body by its height, so the margin is reduced by the header's box where there is room.
 * pm2 is the first page's layout when that page has no header or footer.
 */
function pageLayouts(doc: OfficeDocument): Xml {
  const p = doc.page;
  const layout = (name: string, header: boolean, footer: boolean) => {
    const furniture = FURNITURE_HEIGHT_CM + FURNITURE_GAP_CM;
    const top = header && p.margins.topCm >= furniture + 0.5 ? p.margins.topCm - furniture : p.margins.topCm;
    const bottom = footer && p.margins.bottomCm >= furniture + 0.5 ? p.margins.bottomCm - furniture : p.margins.bottomCm;
    return el(
      'style:page-layout',
      { 'style:name': name },
      el(
        'style:page-layout-properties',
        {
          'fo:page-width': cm(p.widthCm),
          'fo:page-height': cm(p.heightCm),
          'style:print-orientation': p.landscape ? 'landscape' : 'portrait',
          'fo:margin-top': cm(top),
          'fo:margin-right': cm(p.margins.rightCm),
          'fo:margin-bottom': cm(bottom),
          'fo:margin-left': cm(p.margins.leftCm),
          'style:writing-mode': 'lr-tb',
          'style:num-format': '1',
        },
        el('style:footnote-sep', { 'style:width': '0.018cm', 'style:distance-before-sep': '0.1cm', 'style:distance-after-sep': '0.1cm', 'style:line-style': 'solid', 'style:adjustment': 'left', 'style:rel-width': '25%', 'style:color': colour(doc.styles.colors.muted) }),
      ),
      el('style:header-style', null, header ? el('style:header-footer-properties', { 'fo:min-height': cm(FURNITURE_HEIGHT_CM), 'fo:margin-bottom': cm(FURNITURE_GAP_CM), 'style:dynamic-spacing': 'false' }) : null),
      el('style:footer-style', null, footer ? el('style:header-footer-properties', { 'fo:min-height': cm(FURNITURE_HEIGHT_CM), 'fo:margin-top': cm(FURNITURE_GAP_CM), 'style:dynamic-spacing': 'false' }) : null),
    );
  };
  const first = needsFirstPageMaster(doc) ? layout('pm2', Boolean(doc.header && !doc.header.skipFirstPage), Boolean(doc.footer && !doc.footer.skipFirstPage)) : null;
  return frag(layout('pm1', doc.header !== null, doc.footer !== null), first);
}

/** Header/footer text with live page fields (the values written are what a one-page document shows before Writer updates them). */
function furnitureContent(f: Furniture, styleName: 'Header' | 'Footer'): Xml {
  return el(
    'text:p',
    { 'text:style-name': styleName },
    f.parts.map((part) =>
      part.t === 'page' ? el('text:page-number', { 'text:select-page': 'current' }, '1') : part.t === 'pages' ? el('text:page-count', null, '1') : odtText(part.v),
    ),
  );
}

function masterPages(doc: OfficeDocument): Xml {
  const furniture = (skipFirst: boolean) =>
    frag(
      doc.header && !(skipFirst && doc.header.skipFirstPage) ? el('style:header', null, furnitureContent(doc.header, 'Header')) : null,
      doc.footer && !(skipFirst && doc.footer.skipFirstPage) ? el('style:footer', null, furnitureContent(doc.footer, 'Footer')) : null,
    );
  return el(
    'office:master-styles',
    null,
    el('style:master-page', { 'style:name': MASTER.standard, 'style:page-layout-name': 'pm1' }, furniture(false)),
    needsFirstPageMaster(doc)
      ? el('style:master-page', { 'style:name': MASTER.first, 'style:display-name': 'First Page', 'style:page-layout-name': 'pm2', 'style:next-style-name': MASTER.standard }, furniture(true))
      : null,
  );
}
