// Page size and margins (w:sectPr), header and footer text, and title/author from the core properties.
import type { DocumentSettings, HeaderFooter } from '../../contracts/document-json.js';
import { DOCUMENT_LIMITS, PAGE_SIZES } from '../../contracts/document-json.js';
import type { Inline } from '../../document/inline-markup.js';
import { isElement, kid, kids, textContent, type XmlElement } from '../../engines/office-package/xml.js';
import type { DocxPackage } from './package.js';
import type { ImportReport } from './report.js';
import { livePlainPlaceholders } from './placeholders.js';

/** Paper sizes in twentieths of a point (the unit of w:pgSz), portrait. */
const PAPER: Record<(typeof PAGE_SIZES)[number], [number, number]> = {
  A4: [11906, 16838],
  A3: [16838, 23811],
  A5: [8391, 11906],
  Letter: [12240, 15840],
  Legal: [12240, 20160],
};
const TWIPS_PER_CM = 1440 / 2.54;

export function pageSettings(sectPr: XmlElement | undefined, report: ImportReport, where: string): Partial<DocumentSettings> {
  const out: Partial<DocumentSettings> = {};
  const pgSz = kid(sectPr, 'w:pgSz');
  const w = Number(pgSz?.attrs['w:w']);
  const h = Number(pgSz?.attrs['w:h']);
  if (w > 0 && h > 0) {
    const [short, long] = w < h ? [w, h] : [h, w];
    let best: (typeof PAGE_SIZES)[number] = 'A4';
    let bestError = Infinity;
    for (const size of PAGE_SIZES) {
      const [pw, ph] = PAPER[size];
      const error = Math.abs(pw - short) / pw + Math.abs(ph - long) / ph;
      if (error < bestError) [best, bestError] = [size, error];
    }
    if (bestError > 0.04) report.warn('PAGE_SIZE_APPROXIMATED', where, `The page is ${(w / TWIPS_PER_CM).toFixed(1)} × ${(h / TWIPS_PER_CM).toFixed(1)} cm; the nearest size ${best} was taken.`);
    out.size = best;
    out.orientation = w > h || pgSz?.attrs['w:orient'] === 'landscape' ? 'landscape' : 'portrait';
  }
  const pgMar = kid(sectPr, 'w:pgMar');
  const sides = [['marginTop', 'w:top'], ['marginRight', 'w:right'], ['marginBottom', 'w:bottom'], ['marginLeft', 'w:left']] as const;
  for (const [key, attr] of sides) {
    const v = Number(pgMar?.attrs[attr]);
    if (!Number.isFinite(v) || pgMar?.attrs[attr] === undefined) continue;
    const cm = Math.abs(v) / TWIPS_PER_CM;
    if (cm > DOCUMENT_LIMITS.marginCm) report.warn('MARGIN_CLAMPED', where, `The ${attr.slice(2)} margin of ${cm.toFixed(1)} cm became ${DOCUMENT_LIMITS.marginCm} cm.`);
    out[key] = Math.round(Math.min(cm, DOCUMENT_LIMITS.marginCm) * 100) / 100;
  }
  return out;
}

/**
 * The default header or footer of the last section as one line of text; PAGE and NUMPAGES fields become
 * {{page}} and {{pages}}. Other variants (first page, even pages) are reported, not kept. With live placeholders, a
 * `{{name}}` / `${name}` in it is counted as a variable (and written `{{name}}`); otherwise it stays as written.
 */
export function headerFooter(pkg: DocxPackage, sectPr: XmlElement | undefined, kind: 'header' | 'footer', report: ImportReport, livePlaceholders: boolean): HeaderFooter | undefined {
  const refs = kids(sectPr ?? { name: '', attrs: {}, children: [] }, kind === 'header' ? 'w:headerReference' : 'w:footerReference');
  const rels = pkg.rels('word/document.xml');
  const ref = refs.find((r) => (r.attrs['w:type'] ?? 'default') === 'default');
  if (refs.some((r) => r !== ref)) report.warn('HEADER_VARIANTS_DROPPED', 'word/document.xml sectPr', `Only the default ${kind} is kept; first-page or even-page ${kind}s were left out.`);
  const rel = ref ? rels.get(ref.attrs['r:id'] ?? '') : undefined;
  if (!rel || rel.external || !pkg.has(rel.target)) return undefined;
  const part = pkg.xml(rel.target);
  const nodes: Inline[] = [];
  for (const p of kids(part, 'w:p')) {
    const line = fieldText(p);
    if (line.length && nodes.length) nodes.push({ t: 'text', v: ' ' });
    nodes.push(...line);
  }
  // Header and footer text is plain text, not inline markup: only {{page}}, {{pages}} and variables are
  // read in it (render-input's furnitureParts), so Word's text goes in as it is, on one line.
  let text = nodes.map((n) => (n.t === 'var' ? `{{${n.name}}}` : n.t === 'text' ? n.v : '')).join('').replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  if (livePlaceholders) text = livePlainPlaceholders(text, (name) => report.variable(name));
  if (text.length > DOCUMENT_LIMITS.headerFooterLength) {
    report.warn('TEXT_TRUNCATED', rel.target, `The ${kind} text was cut to ${DOCUMENT_LIMITS.headerFooterLength} characters.`);
    text = text.slice(0, DOCUMENT_LIMITS.headerFooterLength);
  }
  const jc = kid(kid(kids(part, 'w:p')[0], 'w:pPr'), 'w:jc')?.attrs['w:val'];
  return { text, ...(jc === 'center' ? { align: 'center' as const } : jc === 'right' || jc === 'end' ? { align: 'right' as const } : {}) };
}

/** The text of a header paragraph with page-number fields as variables (simple and complex fields). */
function fieldText(p: XmlElement): Inline[] {
  const out: Inline[] = [];
  let state: 'text' | 'instr' | 'result' = 'text';
  let instr = '';
  let replaced = false;
  const field = (code: string): Inline | null => {
    const name = code.trim().split(/\s+/)[0]?.toUpperCase();
    return name === 'PAGE' ? { t: 'var', name: 'page' } : name === 'NUMPAGES' || name === 'SECTIONPAGES' ? { t: 'var', name: 'pages' } : null;
  };
  const visit = (el: XmlElement): void => {
    for (const c of el.children) {
      if (!isElement(c)) continue;
      if (c.name === 'w:fldSimple') {
        const v = field(c.attrs['w:instr'] ?? '');
        if (v) out.push(v);
        else visit(c);
      } else if (c.name === 'w:fldChar') {
        const type = c.attrs['w:fldCharType'];
        if (type === 'begin') [state, instr] = ['instr', ''];
        else if (type === 'separate') {
          const v = field(instr);
          replaced = v !== null;
          if (v) out.push(v);
          state = 'result';
        } else if (type === 'end') [state, replaced] = ['text', false];
      } else if (c.name === 'w:instrText') instr += textContent(c);
      else if (c.name === 'w:t') {
        if (state === 'text' || (state === 'result' && !replaced)) out.push({ t: 'text', v: textContent(c) });
      } else if (c.name === 'w:tab') out.push({ t: 'text', v: ' ' });
      else if (c.name !== 'w:pPr' && c.name !== 'w:rPr' && c.name !== 'w:del') visit(c);
    }
  };
  visit(p);
  return out;
}

/** Title, author, subject and keywords from docProps/core.xml, cut to document JSON's limits. */
export function coreProperties(pkg: DocxPackage, corePart: string | undefined): Partial<DocumentSettings> {
  if (!corePart || !pkg.has(corePart)) return {};
  const core = pkg.xml(corePart);
  const get = (name: string) => {
    const el = kid(core, name);
    const v = el ? textContent(el).replace(/\s+/g, ' ').trim() : '';
    return v || undefined;
  };
  const L = DOCUMENT_LIMITS;
  const out: Partial<DocumentSettings> = {};
  const title = get('dc:title');
  const author = get('dc:creator');
  const subject = get('dc:subject');
  const keywords = get('cp:keywords');
  if (title) out.title = title.slice(0, L.titleLength);
  if (author) out.author = author.slice(0, L.authorLength);
  if (subject) out.subject = subject.slice(0, L.subjectLength);
  if (keywords) {
    const list = keywords.split(/[,;]/).map((k) => k.trim().slice(0, L.keywordLength)).filter(Boolean).slice(0, L.keywords);
    if (list.length) out.keywords = list;
  }
  return out;
}
