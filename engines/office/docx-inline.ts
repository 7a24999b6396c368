// Inline content → Word runs: formatting flattened into run properties, links, bookmarks' hyperlinks,
// footnote references, and math as native Office Math (MathML → OMML with mathml2omml).
import { ExternalHyperlink, FootnoteReferenceRun, ImportedXmlComponent, InternalHyperlink, Paragraph, TextRun, type IRunOptions, type ParagraphChild } from 'docx';
import { mml2omml } from 'mathml2omml';
import type { OInline } from './model.js';
import type { DocxContext } from './docx-context.js';

/** Run properties inherited by nested inline content (a link inside bold text is bold). */
export type RunFormat = Omit<IRunOptions, 'text' | 'children' | 'break'>;

export function inlines(ctx: DocxContext, nodes: OInline[], fmt: RunFormat = {}): ParagraphChild[] {
  const out: ParagraphChild[] = [];
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
        out.push(...textRuns(n.v, fmt));
        break;
      case 'strong':
        out.push(...inlines(ctx, n.c, { ...fmt, bold: true }));
        break;
      case 'emph':
        out.push(...inlines(ctx, n.c, { ...fmt, italics: true }));
        break;
      case 'code':
        out.push(new TextRun({ ...fmt, style: 'VerbatimChar', text: n.v, noProof: true }));
        break;
      case 'cite':
        out.push(...inlines(ctx, n.c, fmt));
        break;
      case 'link':
        out.push(new ExternalHyperlink({ link: n.url, children: inlines(ctx, n.c, { ...fmt, style: 'Hyperlink' }) }));
        break;
      case 'ref':
        out.push(new InternalHyperlink({ anchor: ctx.bookmark(n.id), children: inlines(ctx, n.c, { ...fmt, style: 'Hyperlink' }) }));
        break;
      case 'footnote':
        out.push(...footnote(ctx, n.c, fmt));
        break;
      case 'math':
        out.push(officeMath(ctx, n.mathml, n.latex, false, fmt));
        break;
      case 'br':
        out.push(new TextRun({ ...fmt, break: 1 }));
        break;
    }
  }
  return out;
}

/** Line feeds inside text become line breaks, as in the PDF. */
function textRuns(text: string, fmt: RunFormat): TextRun[] {
  if (!text.includes('\n')) return [new TextRun({ ...fmt, text })];
  return text.split('\n').map((line, i) => new TextRun({ ...fmt, text: line, ...(i > 0 ? { break: 1 } : {}) }));
}

function footnote(ctx: DocxContext, c: OInline[], fmt: RunFormat): ParagraphChild[] {
  // Word has no footnote inside a footnote: the inner one is written in parentheses where it stands.
  if (ctx.inFootnote) return [new TextRun({ ...fmt, text: ' (' }), ...inlines(ctx, c, fmt), new TextRun({ ...fmt, text: ')' })];
  ctx.inFootnote = true;
  try {
    const body = new Paragraph({ style: 'FootnoteText', children: inlines(ctx, c) });
    return [new FootnoteReferenceRun(ctx.footnote([body]))];
  } finally {
    ctx.inFootnote = false;
  }
}

/**
 * MathML → an m:oMath element (in an m:oMathPara for a display equation), inserted as parsed XML.
 * mathml2omml decodes entities of the text it copies and writes them back raw; with `disableDecode` the
 * MathML's own escapes (&lt; &amp;) pass through unchanged, so the OMML stays well-formed. docx then
 * parses it (throwing on anything malformed) and serialises it with its own escaping. Anything that
 * fails shows the LaTeX source as text, with a warning.
 */
export function officeMath(ctx: DocxContext, mathml: string, latex: string, display: boolean, fmt: RunFormat = {}): ParagraphChild {
  try {
    // The namespaces are declared on the document root; declarations on the element are redundant.
    const omml = mml2omml(mathml, { disableDecode: true })
      .replace(/ xmlns:[mw]="[^"]*"/g, '')
      // Two slips of the converter that Word's schema refuses: a property with the value "undefined"
      // (e.g. m:sty for \mathrm), and an empty w:rPr written before m:rPr inside m:r.
      .replace(/<m:\w+ m:val="undefined"\/>/g, '')
      .replace(/<w:rPr\/>/g, '');
    if (!omml.startsWith('<m:oMath')) throw new Error('the converter returned no m:oMath element');
    return ImportedXmlComponent.fromXmlString(display ? `<m:oMathPara>${omml}</m:oMathPara>` : omml) as unknown as ParagraphChild;
  } catch (err) {
    ctx.warn('(math)', `the equation "${latex.slice(0, 80)}" could not be converted to Office Math (${(err as Error).message}); its LaTeX source is shown instead`, 'MATH_NOT_CONVERTED');
    return new TextRun({ ...fmt, style: 'VerbatimChar', text: latex });
  }
}
