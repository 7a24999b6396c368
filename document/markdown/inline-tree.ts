// Inline markup trees shared by both directions: merging, fitting a tree to what both grammars can say, trimming, comparing.
//
// Markdown and the JSON inline grammar (document/inline-markup.ts) both become this tree. A tree is
// *fitted* to what both can express — no emphasis inside the same emphasis, no link inside a link,
// math that can be written between single dollars, side-by-side formulas joined — before printing.
import type { Inline } from '../inline-markup.js';

export interface FitOptions {
  /** Headings, table cells and captions hold one line: a line break becomes a space. */
  singleLine?: boolean;
}

export type Cite = Extract<Inline, { t: 'cite' }>;

/** Adjacent text nodes merged, empty ones dropped. */
export function mergeText(nodes: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const n of nodes) {
    if (n.t === 'text') {
      if (!n.v) continue;
      const last = out[out.length - 1];
      if (last?.t === 'text') out[out.length - 1] = { t: 'text', v: last.v + n.v };
      else out.push(n);
    } else out.push(n);
  }
  return out;
}

const EXTERNAL_URL = /^(?:https?:\/\/|mailto:)[^\s]*$/i;
const LINE_BREAKS = /\r\n|\r|\n/g;

/** Fits a tree to what both grammars can express (see the module comment); the result is merged. */
export function fitInline(nodes: Inline[], options: FitOptions = {}, inLabel = false): Inline[] {
  const out: Inline[] = [];
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
        out.push({ t: 'text', v: n.v.replace(LINE_BREAKS, ' ') });
        break;
      case 'br':
        out.push(options.singleLine ? { t: 'text', v: ' ' } : n);
        break;
      case 'code': {
        const v = n.v.replace(LINE_BREAKS, ' ');
        if (v) out.push({ t: 'code', v });
        break;
      }
      case 'math': {
        // An unescaped $ inside would end the span; \$ is a dollar sign in LaTeX as well.
        const latex = escapeDollars(n.latex.replace(LINE_BREAKS, ' ').replace(/^[ \t]+|[ \t]+$/g, ''));
        if (!latex) break;
        const trailingBackslashes = /\\*$/.exec(latex)![0].length;
        const previous = out[out.length - 1];
        if (latex.startsWith('{') || trailingBackslashes % 2 === 1) out.push({ t: 'text', v: `$${latex}$` });
        // Two formulas side by side cannot be written in Markdown (`$a$$b$` is one dollar run): they become one.
        else if (previous?.t === 'math') out[out.length - 1] = { t: 'math', latex: `${previous.latex} ${latex}` };
        else out.push({ t: 'math', latex });
        break;
      }
      case 'emph':
      case 'strong': {
        let c = fitInline(n.c, options, inLabel).flatMap((child) => (child.t === n.t ? child.c : [child]));
        c = mergeText(c);
        // emph(strong(x)) and strong(emph(x)) look alike; `***x***` reads as strong(emph(x)) in JSON.
        if (n.t === 'emph' && c.length === 1 && c[0]!.t === 'strong') {
          out.push({ t: 'strong', c: [{ t: 'emph', c: c[0].c }] });
          break;
        }
        const [lead, body, trail] = peelWhitespace(c);
        out.push(...lead);
        if (body.length) out.push({ t: n.t, c: body });
        out.push(...trail);
        break;
      }
      case 'link':
      case 'ref': {
        const c = fitInline(n.c, options, true);
        if (inLabel) {
          out.push(...c);
          break;
        }
        if (n.t === 'ref') {
          if (n.id && !/[\s()]/.test(n.id)) out.push({ t: 'ref', id: n.id, c });
          else out.push(...c);
          break;
        }
        const url = n.url.replace(/\s/g, (s) => encodeURIComponent(s)).replace(/\)/g, '%29');
        if (EXTERNAL_URL.test(url)) out.push({ t: 'link', url, c });
        else out.push(...c);
        break;
      }
      case 'footnote':
        out.push({ t: 'footnote', c: fitInline(n.c, options, false) });
        break;
      case 'cite':
        out.push({ t: 'cite', items: n.items.map((i) => (i.locator ? { key: i.key, locator: i.locator } : { key: i.key })) });
        break;
      default:
        out.push(n);
    }
  }
  return mergeText(out);
}

/** Every `$` not already escaped gets a backslash. */
function escapeDollars(latex: string): string {
  let out = '';
  let backslashes = 0;
  for (const c of latex) {
    if (c === '$' && backslashes % 2 === 0) out += '\\';
    backslashes = c === '\\' ? backslashes + 1 : 0;
    out += c;
  }
  return out;
}

export const isWs = (ch: string) => /^[ \t\n\r\f\v\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/.test(ch);

/** Splits leading and trailing whitespace (and line breaks) off emphasis content. */
function peelWhitespace(c: Inline[]): [Inline[], Inline[], Inline[]] {
  const body = [...c];
  const lead: Inline[] = [];
  const trail: Inline[] = [];
  while (body.length) {
    const first = body[0]!;
    if (first.t === 'br') lead.push(body.shift()!);
    else if (first.t === 'text') {
      const m = /^\s+/.exec(first.v);
      if (!m) break;
      lead.push({ t: 'text', v: m[0] });
      if (m[0].length === first.v.length) body.shift();
      else body[0] = { t: 'text', v: first.v.slice(m[0].length) };
    } else break;
  }
  while (body.length) {
    const last = body[body.length - 1]!;
    if (last.t === 'br') trail.unshift(body.pop()!);
    else if (last.t === 'text') {
      const m = /\s+$/.exec(last.v);
      if (!m) break;
      trail.unshift({ t: 'text', v: m[0] });
      if (m[0].length === last.v.length) body.pop();
      else body[body.length - 1] = { t: 'text', v: last.v.slice(0, -m[0].length) };
    } else break;
  }
  return [lead, body, trail];
}

/** Leading and trailing spaces and line breaks of a block-level field dropped (Markdown cannot keep them). */
export function trimEdges(nodes: Inline[]): Inline[] {
  const out = [...nodes];
  for (;;) {
    const first = out[0];
    if (first?.t === 'br') out.shift();
    else if (first?.t === 'text' && /^[ \t]/.test(first.v)) {
      const v = first.v.replace(/^[ \t]+/, '');
      if (v) out[0] = { t: 'text', v };
      else out.shift();
    } else break;
  }
  for (;;) {
    const last = out[out.length - 1];
    if (last?.t === 'br') out.pop();
    else if (last?.t === 'text' && /[ \t]$/.test(last.v)) {
      const v = last.v.replace(/[ \t]+$/, '');
      if (v) out[out.length - 1] = { t: 'text', v };
      else out.pop();
    } else break;
  }
  return out;
}

/** Structural equality of two merged trees. */
export function sameInline(a: Inline[], b: Inline[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.t !== y.t) return false;
    switch (x.t) {
      case 'text':
      case 'code':
        if (x.v !== (y as typeof x).v) return false;
        break;
      case 'math':
        if (x.latex !== (y as typeof x).latex) return false;
        break;
      case 'abbr':
        if (x.key !== (y as typeof x).key) return false;
        break;
      case 'var':
        if (x.name !== (y as typeof x).name) return false;
        break;
      case 'cite': {
        const yi = (y as Cite).items;
        if (x.items.length !== yi.length || x.items.some((item, k) => item.key !== yi[k]!.key || (item.locator ?? '') !== (yi[k]!.locator ?? ''))) return false;
        break;
      }
      case 'link':
        if (x.url !== (y as typeof x).url || !sameInline(x.c, (y as typeof x).c)) return false;
        break;
      case 'ref':
        if (x.id !== (y as typeof x).id || !sameInline(x.c, (y as typeof x).c)) return false;
        break;
      case 'strong':
      case 'emph':
      case 'footnote':
        if (!sameInline(x.c, (y as typeof x).c)) return false;
        break;
    }
  }
  return true;
}

/**
 * The backtick run around a code span and whether it needs a space inside each end: both grammars
 * drop one space at each end of `` ` a ` `` — JSON when the value is longer than two characters
 * and not all whitespace (JavaScript's idea of it), CommonMark when it is not all U+0020 spaces.
 */
export function codeFence(v: string, grammar: 'json' | 'markdown'): { fence: string; pad: boolean } {
  let longest = 0;
  for (const m of v.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const spaced = v.startsWith(' ') && v.endsWith(' ');
  const stripped = grammar === 'json' ? spaced && v.length > 2 && v.trim() !== '' : spaced && /[^ ]/.test(v);
  return { fence: '`'.repeat(longest + 1), pad: v.startsWith('`') || v.endsWith('`') || stripped };
}

export function citeBody(items: Cite['items']): string {
  return items.map((i) => (i.locator ? `${i.key}, ${i.locator}` : i.key)).join('; ');
}
