// ODF text: paragraphs and spans hold the text, spaces need text:s, pictures are draw:frame elements.
import { odfLength, type TemplateImage } from './images.js';
import { escapeXml, type Dialect, type Piece, type PartWriter } from './placeholders.js';

/** The parts whose text is searched: the body, and the master pages' headers and footers. */
export const ODT_TEXT_PARTS = ['content.xml', 'styles.xml'];

export const odtDialect: Dialect = {
  paragraphs: new Set(['text:p', 'text:h']),
  textParents: new Set(['text:p', 'text:h', 'text:span', 'text:a', 'text:meta']),
  row: 'table:table-row',
  // Deleted text kept for change tracking, and comments, are not the document's text.
  skip: new Set(['text:tracked-changes', 'office:annotation']),
  uncounted: new Set(),
  write(pieces: Piece[], part: PartWriter): string {
    let out = '';
    for (const p of pieces) {
      if (p.kind === 'text') out += p.original ? escapeXml(p.text) : spaced(p.text);
      else if (p.kind === 'break') out += '<text:line-break/>';
      else if (p.kind === 'tab') out += '<text:tab/>';
      else out += frame(p.image as TemplateImage, part);
    }
    return out;
  },
};

/** ODF collapses runs of spaces: every space after the first of a run (and a leading one) is written as text:s. */
function spaced(text: string): string {
  return escapeXml(text).replace(/(^ | {2,})/g, (run: string, _m: string, at: number) => {
    if (at === 0 && run === ' ') return '<text:s/>';
    const extra = run.length - 1;
    return extra === 1 ? ' <text:s/>' : ` <text:s text:c="${extra}"/>`;
  });
}

function frame(image: TemplateImage, part: PartWriter): string {
  const [main, fallback] = part.imageRef(image).split(' ');
  const img = (href: string) => `<draw:image xlink:href="${href}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>`;
  const desc = image.caption ? `<svg:desc>${escapeXml(image.caption)}</svg:desc>` : '';
  return (
    `<draw:frame xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" ` +
    `draw:name="QuireImage${image.n}" text:anchor-type="as-char" svg:width="${odfLength(image.widthPx)}" svg:height="${odfLength(image.heightPx)}" draw:z-index="0">` +
    // ODF lets a frame offer alternatives in order: the SVG first, its PNG for readers that cannot draw SVG.
    `${img(main!)}${fallback ? img(fallback) : ''}${desc}</draw:frame>`
  );
}
