// The resolved document → a DOCX package with the `docx` library: styles, numbering, sections with their
// page setup and columns, running header and footer with PAGE/NUMPAGES fields, footnotes, core properties.
import {
  Document,
  Footer,
  Header,
  Packer,
  PageNumber,
  PageOrientation,
  Paragraph,
  SectionType,
  TextRun,
  VerticalAlignSection,
  type FileChild,
  type ISectionOptions,
} from 'docx';
import type { Furniture, OfficeDocument, OfficeSection } from './model.js';
import { DocxContext, twipsFromCm } from './docx-context.js';
import { blocks, spacer } from './docx-blocks.js';
import { docxNumbering, docxStyles } from './docx-styles.js';
import { escapeXml, xmlSafe } from '../xml-escape.js';

const ALIGN = { left: 'left', center: 'center', right: 'right' } as const;
const VERTICAL = { top: VerticalAlignSection.TOP, center: VerticalAlignSection.CENTER, bottom: VerticalAlignSection.BOTTOM } as const;

/**
 * Writes the document as DOCX. Notes that do not stop the render (an equation that could not be
 * converted, …) are appended to `doc.warnings`.
 */
export async function writeDocx(source: OfficeDocument): Promise<Uint8Array> {
  const doc = xmlSafeCopy(source);
  const ctx = new DocxContext(doc);
  const sections = doc.sections.map((s, i) => section(ctx, s, i, doc.sections[i - 1]));
  if (!sections.length) sections.push(section(ctx, { kind: 'flow', id: null, newPage: true, columns: null, content: [] }, 0, undefined));
  const file = new Document({
    title: doc.meta.title ?? undefined,
    subject: doc.meta.subject ?? undefined,
    description: doc.meta.description ?? undefined,
    creator: doc.meta.author ?? undefined,
    keywords: doc.meta.keywords.length ? doc.meta.keywords.join(', ') : undefined,
    // Word asks to update fields on opening: the TOC gets page numbers, SEQ captions are recounted.
    features: { updateFields: true },
    styles: docxStyles(doc),
    numbering: docxNumbering(ctx.lists.values()),
    footnotes: ctx.footnotes,
    sections,
  });
  const bytes = await Packer.toBuffer(file, false, [{ path: 'docProps/core.xml', data: coreProperties(doc) }]);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The model with every string stripped of what XML 1.0 cannot carry (docx drops C0 controls but writes
 * U+FFFE/U+FFFF), so no user text can make a part malformed. Picture bytes are kept; `warnings` stays the
 * caller's array, so that notes the writer adds reach it.
 */
function xmlSafeCopy(doc: OfficeDocument): OfficeDocument {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return xmlSafe(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Uint8Array || v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
  };
  return { ...(walk({ ...doc, warnings: [] }) as OfficeDocument), warnings: doc.warnings };
}

function section(ctx: DocxContext, s: OfficeSection, index: number, previous: OfficeSection | undefined): ISectionOptions {
  const { doc } = ctx;
  const { page } = doc;
  const columns = s.kind === 'flow' && s.columns && s.columns.count > 1 ? s.columns : null;
  const fullWidth = twipsFromCm(page.widthCm - page.margins.leftCm - page.margins.rightCm);
  ctx.textWidth = columns ? Math.floor((fullWidth - (columns.count - 1) * twipsFromCm(columns.spaceCm)) / columns.count) : fullWidth;

  ctx.anchor(s.id);
  const children: FileChild[] = [];
  if (s.kind === 'page' && s.startY !== null && s.startY > 0) children.push(spacer(ctx, s.startY));
  children.push(...blocks(ctx, s.content), ...ctx.flushAnchors());

  // A page section is a page of its own; a flow section continues the page unless it asks for a new one.
  const newPage = index === 0 || s.kind === 'page' || previous?.kind === 'page' || s.newPage;
  const first = index === 0;
  return {
    properties: {
      type: newPage ? SectionType.NEXT_PAGE : SectionType.CONTINUOUS,
      page: {
        // docx swaps width and height itself for landscape; the model's size is already swapped.
        size: page.landscape
          ? { width: twipsFromCm(page.heightCm), height: twipsFromCm(page.widthCm), orientation: PageOrientation.LANDSCAPE }
          : { width: twipsFromCm(page.widthCm), height: twipsFromCm(page.heightCm), orientation: PageOrientation.PORTRAIT },
        margin: {
          top: twipsFromCm(page.margins.topCm),
          right: twipsFromCm(page.margins.rightCm),
          bottom: twipsFromCm(page.margins.bottomCm),
          left: twipsFromCm(page.margins.leftCm),
          header: twipsFromCm(Math.min(1.25, page.margins.topCm / 2)),
          footer: twipsFromCm(Math.min(1.25, page.margins.bottomCm / 2)),
        },
      },
      ...(columns ? { column: { count: columns.count, space: twipsFromCm(columns.spaceCm), separate: columns.separate, equalWidth: true } } : {}),
      ...(s.kind === 'page' ? { verticalAlign: s.startY !== null ? VerticalAlignSection.TOP : VERTICAL[s.align] } : {}),
      // Only the first page of the document goes without header/footer: titlePage applies to the first
      // section, and later sections inherit the header and footer (Word's "Link to Previous").
      ...(first && (doc.header?.skipFirstPage || doc.footer?.skipFirstPage) ? { titlePage: true } : {}),
    },
    ...(first ? furniture(doc) : {}),
    children,
  };
}

/**
 * The running header and footer, on the first section (later ones inherit them). When either skips the
 * first page the section has a title page, whose own header/footer is empty or, for the one that does
 * not skip it, the same as the others.
 */
function furniture(doc: OfficeDocument): Pick<ISectionOptions, 'headers' | 'footers'> {
  const titlePage = Boolean(doc.header?.skipFirstPage || doc.footer?.skipFirstPage);
  const group = <T>(f: Furniture | null, make: (children: Paragraph[]) => T, style: 'Header' | 'Footer') => {
    if (!f) return undefined;
    const body = () => make([furnitureParagraph(f, style)]);
    // An empty first-page header still holds one empty paragraph: the schema wants block content in a header part.
    return { default: body(), ...(titlePage ? { first: f.skipFirstPage ? make([new Paragraph({ style })]) : body() } : {}) };
  };
  return { headers: group(doc.header, (children) => new Header({ children }), 'Header'), footers: group(doc.footer, (children) => new Footer({ children }), 'Footer') };
}

/** Text with PAGE and NUMPAGES fields where the model has page numbers. */
function furnitureParagraph(f: Furniture, style: 'Header' | 'Footer'): Paragraph {
  const parts = f.parts.map((p) => (p.t === 'text' ? p.v : p.t === 'page' ? PageNumber.CURRENT : PageNumber.TOTAL_PAGES));
  return new Paragraph({ style, alignment: ALIGN[f.align], children: [new TextRun({ children: parts })] });
}

/**
 * docProps/core.xml written here rather than by docx, which stamps the time of packing: the creation date
 * is the job's, so the same request gives the same properties.
 */
function coreProperties(doc: OfficeDocument): string {
  const { title, author, subject, description, keywords, created } = doc.meta;
  const el = (name: string, value: string | null) => (value ? `<${name}>${escapeXml(value)}</${name}>` : '');
  const when = `xsi:type="dcterms:W3CDTF">${escapeXml(new Date(created).toISOString().replace(/\.\d{3}Z$/, 'Z'))}`;
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
    'xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    el('dc:title', title) +
    el('dc:subject', subject) +
    el('dc:creator', author) +
    el('cp:keywords', keywords.length ? keywords.join(', ') : null) +
    el('dc:description', description) +
    el('cp:lastModifiedBy', author) +
    '<cp:revision>1</cp:revision>' +
    `<dcterms:created ${when}</dcterms:created><dcterms:modified ${when}</dcterms:modified>` +
    '</cp:coreProperties>'
  );
}
