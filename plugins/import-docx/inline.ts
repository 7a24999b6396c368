// Runs of a paragraph → inline markup nodes (bold, italic, links, footnotes, breaks), images and page breaks, in order.
import type { Inline } from '../../document/inline-markup.js';
import { find, isElement, kid, kids, textContent, type XmlElement } from '../../engines/office-package/xml.js';
import type { ImportContext } from './context.js';
import { onOff } from './styles.js';
import { livePlaceholders, plainOf, rewrap } from './placeholders.js';

/** What a paragraph holds, in order: inline content, images (block elements) and page breaks. */
export type Piece = { k: 'inline'; node: Inline } | { k: 'image'; rel: string; alt: string; widthCm?: number } | { k: 'pageBreak' };

interface Format {
  bold: boolean;
  italic: boolean;
}

const EXTERNAL_URL = /^(?:https?:\/\/|mailto:)[^\s]*$/i;

/** The pieces of a paragraph (or of any element holding runs: hyperlinks, insertions, content controls). */
export function paragraphPieces(p: XmlElement, ctx: ImportContext): Piece[] {
  const pieces: Piece[] = [];
  walk(p, ctx, pieces);
  return groupFormatting(withPlaceholders(pieces, ctx));
}

/** With live placeholders, each stretch of inline pieces between images and page breaks gets its `{{name}}`s as variables. */
function withPlaceholders(pieces: Piece[], ctx: ImportContext): Piece[] {
  if (!ctx.livePlaceholders) return pieces;
  const out: Piece[] = [];
  let stretch: Inline[] = [];
  const flush = () => {
    for (const node of livePlaceholders(stretch, (name) => ctx.report.variable(name))) out.push({ k: 'inline', node });
    stretch = [];
  };
  for (const p of pieces) {
    if (p.k === 'inline') stretch.push(p.node);
    else {
      flush();
      out.push(p);
    }
  }
  flush();
  return out;
}

function walk(el: XmlElement, ctx: ImportContext, out: Piece[]): void {
  for (const c of el.children) {
    if (!isElement(c)) continue;
    switch (c.name) {
      case 'w:r':
        run(c, ctx, out);
        break;
      case 'w:hyperlink':
        hyperlink(c, ctx, out);
        break;
      case 'w:ins':
      case 'w:moveTo':
        ctx.report.warn('TRACKED_INSERTION_ACCEPTED', ctx.location(), `Inserted text "${short(textContent(c))}" was kept.`);
        walk(c, ctx, out);
        break;
      case 'w:del':
      case 'w:moveFrom':
        ctx.report.warn('TRACKED_DELETION_DROPPED', ctx.location(), `Deleted text "${short(deletedText(c))}" was left out.`);
        break;
      case 'w:smartTag':
      case 'w:customXml':
      case 'w:fldSimple':
      case 'w:dir':
      case 'w:bdo':
        walk(c, ctx, out);
        break;
      case 'w:sdt':
        if (kid(c, 'w:sdtContent')) walk(kid(c, 'w:sdtContent')!, ctx, out);
        break;
      case 'm:oMath':
      case 'm:oMathPara':
        ctx.report.warn('MATH_DROPPED', ctx.location(), 'An equation was left out.');
        break;
      case 'mc:AlternateContent': {
        const choice = kid(c, 'mc:Choice') ?? kid(c, 'mc:Fallback');
        if (choice) walk(choice, ctx, out);
        break;
      }
      default:
        break; // properties, bookmarks, proofing marks, permissions: nothing to show
    }
  }
}

function run(r: XmlElement, ctx: ImportContext, out: Piece[]): void {
  const rPr = kid(r, 'w:rPr');
  const styled = ctx.styles.characterFormat(kid(rPr, 'w:rStyle')?.attrs['w:val']);
  const format: Format = { bold: onOff(kid(rPr, 'w:b')) ?? styled.bold ?? false, italic: onOff(kid(rPr, 'w:i')) ?? styled.italic ?? false };
  const underline = kid(rPr, 'w:u')?.attrs['w:val'];
  const text = (v: string) => out.push({ k: 'inline', node: formatted(v, format) });
  let shown = false;
  for (const c of r.children) {
    if (!isElement(c)) continue;
    switch (c.name) {
      case 'w:t':
        text(textContent(c));
        shown ||= textContent(c).trim() !== '';
        break;
      case 'w:tab':
      case 'w:ptab':
        text(' ');
        break;
      case 'w:noBreakHyphen':
        text('-');
        break;
      case 'w:softHyphen':
        break;
      case 'w:br':
      case 'w:cr':
        if (c.attrs['w:type'] === 'page') out.push({ k: 'pageBreak' });
        else out.push({ k: 'inline', node: { t: 'br' } });
        break;
      case 'w:footnoteReference':
      case 'w:endnoteReference': {
        const note = c.name === 'w:footnoteReference' ? ctx.footnote(c.attrs['w:id'] ?? '') : ctx.endnote(c.attrs['w:id'] ?? '');
        if (c.name === 'w:endnoteReference') ctx.report.warn('ENDNOTE_AS_FOOTNOTE', ctx.location(), 'An endnote became a footnote.');
        if (note && note.length) out.push({ k: 'inline', node: { t: 'footnote', c: note } });
        break;
      }
      case 'w:commentReference':
        ctx.report.warn('COMMENT_DROPPED', ctx.location(), 'A comment was left out.');
        break;
      case 'w:fldChar':
        if (c.attrs['w:fldCharType'] === 'begin') ctx.report.warn('FIELD_RESULT_KEPT', ctx.location(), 'A field was kept as the text it shows.');
        break;
      case 'w:drawing':
        drawing(c, ctx, out);
        break;
      case 'w:pict':
        pict(c, ctx, out);
        break;
      case 'w:object':
        ctx.report.warn('SHAPE_DROPPED', ctx.location(), 'An embedded (OLE) object was left out.');
        break;
      case 'mc:AlternateContent': {
        const choice = kid(c, 'mc:Choice') ?? kid(c, 'mc:Fallback');
        if (choice) run({ ...r, children: choice.children }, ctx, out);
        break;
      }
      default:
        break; // w:instrText (field codes), w:lastRenderedPageBreak, w:sym, …
    }
  }
  if (shown && underline && underline !== 'none' && !ctx.flag('underline')) {
    ctx.report.warn('UNDERLINE_DROPPED', ctx.location(), 'Underlined text is kept without the underline.');
  }
  if (shown && (onOff(kid(rPr, 'w:strike')) || onOff(kid(rPr, 'w:dstrike'))) && !ctx.flag('strike')) {
    ctx.report.warn('STRIKE_DROPPED', ctx.location(), 'Struck-through text is kept without the strike.');
  }
}

function hyperlink(h: XmlElement, ctx: ImportContext, out: Piece[]): void {
  const inner: Piece[] = [];
  walk(h, ctx, inner);
  const rel = h.attrs['r:id'] ? ctx.rels.get(h.attrs['r:id']) : undefined;
  const url = rel?.external ? rel.target : undefined;
  const nodes = groupFormatting(inner);
  if (url && EXTERNAL_URL.test(url)) {
    const c = nodes.flatMap((p) => (p.k === 'inline' ? [p.node] : []));
    out.push({ k: 'inline', node: { t: 'link', url, c: c.length ? c : [{ t: 'text', v: url }] } });
    out.push(...nodes.filter((p) => p.k !== 'inline'));
    return;
  }
  const where = url ? `the address ${short(url)}` : h.attrs['w:anchor'] ? `the bookmark ${h.attrs['w:anchor']}` : 'no target';
  ctx.report.warn('LINK_DROPPED', ctx.location(), `A link to ${where} became plain text.`);
  out.push(...nodes);
}

function drawing(d: XmlElement, ctx: ImportContext, out: Piece[]): void {
  const blip = find(d, 'a:blip');
  const embed = blip?.attrs['r:embed'] ?? blip?.attrs['r:link'];
  if (!embed) {
    if (find(d, 'w:txbxContent') || find(d, 'wps:txbx')) ctx.report.warn('TEXT_BOX_DROPPED', ctx.location(), `A text box was left out${textBoxText(d)}.`);
    else ctx.report.warn('SHAPE_DROPPED', ctx.location(), 'A drawing (shape, chart or diagram) was left out.');
    return;
  }
  const docPr = find(d, 'wp:docPr');
  const cx = Number(find(d, 'wp:extent')?.attrs.cx);
  out.push({ k: 'image', rel: embed, alt: docPr?.attrs.descr ?? docPr?.attrs.title ?? '', widthCm: Number.isFinite(cx) && cx > 0 ? cx / 360_000 : undefined });
}

function pict(p: XmlElement, ctx: ImportContext, out: Piece[]): void {
  const imagedata = find(p, 'v:imagedata');
  if (imagedata?.attrs['r:id'] && !find(p, 'w:txbxContent')) {
    out.push({ k: 'image', rel: imagedata.attrs['r:id'], alt: imagedata.attrs['o:title'] ?? '' });
    return;
  }
  if (find(p, 'w:txbxContent')) ctx.report.warn('TEXT_BOX_DROPPED', ctx.location(), `A text box was left out${textBoxText(p)}.`);
  else ctx.report.warn('SHAPE_DROPPED', ctx.location(), 'A VML shape was left out.');
}

function textBoxText(el: XmlElement): string {
  const box = find(el, 'w:txbxContent');
  const t = box ? kids(box, 'w:p').map(textContent).join(' ').trim() : '';
  return t ? ` (its text: "${short(t)}")` : '';
}

function deletedText(el: XmlElement): string {
  let s = '';
  for (const c of el.children) if (isElement(c)) s += c.name === 'w:delText' ? textContent(c) : deletedText(c);
  return s;
}

function short(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

/** A run's text with its emphasis; spaces at its edges stay outside (`** x**` would not be bold). */
function formatted(v: string, f: Format): Inline {
  if (!f.bold && !f.italic) return { t: 'text', v };
  let node: Inline = { t: 'text', v };
  if (f.italic) node = { t: 'emph', c: [node] };
  if (f.bold) node = { t: 'strong', c: [node] };
  return node;
}

/** Merges adjacent runs of the same emphasis and moves edge spaces out of emphasis. */
function groupFormatting(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    if (p.k !== 'inline') {
      out.push(p);
      continue;
    }
    for (const n of splitEdges(p.node)) {
      const last = out[out.length - 1];
      if (last?.k === 'inline' && canMerge(last.node, n)) last.node = merge(last.node, n);
      else out.push({ k: 'inline', node: n });
    }
  }
  return out;
}

function splitEdges(n: Inline): Inline[] {
  if (n.t !== 'strong' && n.t !== 'emph') return [n];
  const text = plainOf(n);
  if (text === null) return [n];
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
  const out: Inline[] = [];
  if (m[1]) out.push({ t: 'text', v: m[1] });
  if (m[2]) out.push(rewrap(n, { t: 'text', v: m[2] }));
  if (m[3]) out.push({ t: 'text', v: m[3] });
  return out;
}

function canMerge(a: Inline, b: Inline): boolean {
  return a.t === b.t && (a.t === 'text' || a.t === 'strong' || a.t === 'emph');
}

function merge(a: Inline, b: Inline): Inline {
  if (a.t === 'text' && b.t === 'text') return { t: 'text', v: a.v + b.v };
  if ((a.t === 'strong' || a.t === 'emph') && b.t === a.t) {
    const c = [...a.c];
    for (const n of b.c) {
      const last = c[c.length - 1];
      if (last && canMerge(last, n)) c[c.length - 1] = merge(last, n);
      else c.push(n);
    }
    return { t: a.t, c };
  }
  return a;
}
