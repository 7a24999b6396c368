// WordprocessingML: which parts hold text, how a replacement is written into a w:t, pictures as inline drawings.
import { emu, type TemplateImage } from './images.js';
import { escapeXml, type Dialect, type Piece, type PartWriter } from './placeholders.js';

/** Content types of the parts whose text is searched: body, headers, footers, footnotes, endnotes. */
export const DOCX_TEXT_PARTS = [
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml',
];

const REOPEN = '<w:t xml:space="preserve">';

export const docxDialect: Dialect = {
  paragraphs: new Set(['w:p']),
  textParents: new Set(['w:t']),
  row: 'w:tr',
  // Deleted and moved-away revisions are not the document's text.
  skip: new Set(['w:del', 'w:moveFrom']),
  // Word repeats a text box as VML for old readers: replaced there too, counted once.
  uncounted: new Set(['mc:Fallback']),
  write(pieces: Piece[], part: PartWriter): string {
    let out = '';
    for (const p of pieces) {
      if (p.kind === 'text') out += escapeXml(p.text);
      else if (p.kind === 'break') out += `</w:t><w:br/>${REOPEN}`;
      else if (p.kind === 'tab') out += `</w:t><w:tab/>${REOPEN}`;
      else out += `</w:t>${drawing(p.image as TemplateImage, part)}${REOPEN}`;
    }
    return out;
  },
  retag(tag: string): string {
    if (/\sxml:space\s*=\s*["']preserve["']/.test(tag)) return tag;
    return tag.replace(/\sxml:space\s*=\s*("[^"]*"|'[^']*')/, '').replace(/^<w:t/, '<w:t xml:space="preserve"');
  },
};

/** An inline picture; namespaces are declared on the elements, since a header part need not declare them. */
function drawing(image: TemplateImage, part: PartWriter): string {
  const ref = part.imageRef(image);
  const [main, svg] = ref.split(' ');
  const cx = emu(image.widthPx);
  const cy = emu(image.heightPx);
  const id = 4000 + image.n;
  const descr = escapeXml(image.caption);
  const svgExt = svg
    ? `<a:extLst><a:ext uri="{96DAC541-7B7A-43D3-8B79-37D633B846F1}"><asvg:svgBlip xmlns:asvg="http://schemas.microsoft.com/office/drawing/2016/SVG/main" r:embed="${svg}"/></a:ext></a:extLst>`
    : '';
  return (
    `<w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" distT="0" distB="0" distL="0" distR="0">` +
    `<wp:extent cx="${cx}" cy="${cy}"/><wp:effectExtent l="0" t="0" r="0" b="0"/>` +
    `<wp:docPr id="${id}" name="Picture ${id}" descr="${descr}"/>` +
    `<wp:cNvGraphicFramePr><a:graphicFrameLocks xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" noChangeAspect="1"/></wp:cNvGraphicFramePr>` +
    `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
    `<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="${id}" name="image${image.n}.${image.ext}" descr="${descr}"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:embed="${main}">${svgExt}</a:blip><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic>` +
    `</a:graphicData></a:graphic></wp:inline></w:drawing>`
  );
}
