// Inline markup trees between Markdown and document JSON: canonical fitting, the JSON markup printer and the Markdown inline printer.
//
// Both directions go through the tree of contracts/inline-markup.ts. A tree is first *fitted* to what
// both grammars can say (no emphasis inside the same emphasis, no link inside a link, math that can
// be written between single dollars, …); the JSON printer then escapes exactly the characters the
// JSON grammar would read as markup, and checks its output by parsing it again.
import { parseInline, type Inline } from '../inline-markup.js';

export interface FitOptions {
  /** Headings, table cells and captions hold one line: a line break becomes a space. */
  singleLine?: boolean;
}

type Cite = Extract<Inline, { t: 'cite' }>;

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

const isWs = (ch: string) => /^[ \t\n\r\f\v\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/.test(ch);

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

// ---------------------------------------------------------------- JSON markup

/** Escapes a text run for the JSON grammar: only where the character would otherwise start or end markup. */
function escapeJsonText(v: string, inBracket: boolean, afterMath: boolean): string {
  let o = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    const next = v[i + 1];
    const last = next === undefined;
    if (i === 0 && afterMath && c >= '0' && c <= '9') {
      o += `\\${c}`;
      continue;
    }
    switch (c) {
      case '\\':
      case '*':
      case '`':
      case '[':
        o += `\\${c}`;
        break;
      case ']':
        o += inBracket ? '\\]' : ']';
        break;
      case '$':
        o += last || !/\s/.test(next) ? '\\$' : '$';
        break;
      case '{':
        o += last || next === '{' ? '\\{' : '{';
        break;
      case '~':
        o += last || /^~[A-Za-z0-9_-]{1,32}(?:~|$)/.test(v.slice(i, i + 35)) ? '\\~' : '~';
        break;
      case '@':
      case '^':
        o += last || next === '[' ? `\\${c}` : c;
        break;
      default:
        o += c;
    }
  }
  return o;
}

/**
 * The backtick run around a code span and whether it needs a space inside each end: both grammars
 * drop one space at each end of `` ` a ` `` — JSON when the value is longer than two characters
 * and not all whitespace (JavaScript's idea of it), CommonMark when it is not all U+0020 spaces.
 */
function codeFence(v: string, grammar: 'json' | 'markdown'): { fence: string; pad: boolean } {
  let longest = 0;
  for (const m of v.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const spaced = v.startsWith(' ') && v.endsWith(' ');
  const stripped = grammar === 'json' ? spaced && v.length > 2 && v.trim() !== '' : spaced && /[^ ]/.test(v);
  return { fence: '`'.repeat(longest + 1), pad: v.startsWith('`') || v.endsWith('`') || stripped };
}

export function citeBody(items: Cite['items']): string {
  return items.map((i) => (i.locator ? `${i.key}, ${i.locator}` : i.key)).join('; ');
}

/** Prints a fitted tree in the JSON inline grammar (no check; see toMarkup). */
export function printJson(nodes: Inline[], inBracket = false): string {
  let out = '';
  let afterMath = false;
  for (const n of nodes) {
    const wasMath = afterMath;
    afterMath = false;
    switch (n.t) {
      case 'text':
        out += escapeJsonText(n.v, inBracket, wasMath);
        break;
      case 'strong':
        out += `**${printJson(n.c, inBracket)}**`;
        break;
      case 'emph':
        out += `*${printJson(n.c, inBracket)}*`;
        break;
      case 'code': {
        const { fence, pad } = codeFence(n.v, 'json');
        out += pad ? `${fence} ${n.v} ${fence}` : `${fence}${n.v}${fence}`;
        break;
      }
      case 'link':
        out += `[${printJson(n.c, true)}](${n.url})`;
        break;
      case 'ref':
        out += `[${printJson(n.c, true)}](#${n.id})`;
        break;
      case 'cite':
        out += `@[${citeBody(n.items)}]`;
        break;
      case 'abbr':
        out += `~${n.key}~`;
        break;
      case 'footnote':
        out += `^[${printJson(n.c, true)}]`;
        break;
      case 'math':
        out += `$${n.latex}$`;
        afterMath = true;
        break;
      case 'var':
        out += `{{${n.name}}}`;
        break;
      case 'br':
        out += '\n';
        break;
    }
  }
  return out;
}

/** Emphasis below the outermost emphasis removed (its content kept). */
function flattenNestedEmphasis(nodes: Inline[], inside = false): Inline[] {
  return mergeText(
    nodes.flatMap((n): Inline[] => {
      if (n.t === 'emph' || n.t === 'strong') return inside ? flattenNestedEmphasis(n.c, true) : [{ t: n.t, c: flattenNestedEmphasis(n.c, true) }];
      if (n.t === 'link' || n.t === 'ref' || n.t === 'footnote') return [{ ...n, c: flattenNestedEmphasis(n.c, inside) }];
      return [n];
    }),
  );
}

function stripEmphasis(nodes: Inline[]): Inline[] {
  return mergeText(
    nodes.flatMap((n): Inline[] => {
      if (n.t === 'emph' || n.t === 'strong') return stripEmphasis(n.c);
      if (n.t === 'link' || n.t === 'ref' || n.t === 'footnote') return [{ ...n, c: stripEmphasis(n.c) }];
      return [n];
    }),
  );
}

/** The text of a tree with every reference written out, for the last-resort plain printing. */
function sourceText(nodes: Inline[]): string {
  return nodes
    .map((n) => {
      switch (n.t) {
        case 'text':
          return n.v;
        case 'code':
          return n.v;
        case 'math':
          return `$${n.latex}$`;
        case 'br':
          return ' ';
        case 'abbr':
          return `~${n.key}~`;
        case 'var':
          return `{{${n.name}}}`;
        case 'cite':
          return `@[${citeBody(n.items)}]`;
        case 'footnote':
          return ` (${sourceText(n.c)})`;
        default:
          return sourceText(n.c);
      }
    })
    .join('');
}

export interface MarkupResult {
  markup: string;
  /** The tree could not be written as it was: nested emphasis (or all of it) was dropped. */
  simplified: boolean;
}

/**
 * A tree as JSON inline markup. The printed string is parsed again: if the JSON grammar would read
 * it differently (emphasis inside a footnote inside emphasis, a `*` in a URL inside emphasis, …),
 * nested emphasis is dropped, then all emphasis, and as a last resort the text is printed plain.
 */
export function toMarkup(nodes: Inline[], options: FitOptions = {}): MarkupResult {
  const tree = trimEdges(fitInline(nodes, options));
  const candidates = [tree, flattenNestedEmphasis(tree), stripEmphasis(tree)];
  for (let level = 0; level < candidates.length; level++) {
    const t = candidates[level]!;
    if (level > 0 && sameInline(t, candidates[level - 1]!)) continue;
    const markup = printJson(t);
    if (sameInline(parseInline(markup), t)) return { markup, simplified: level > 0 };
  }
  const plain = sourceText(tree).replace(/[\\*`[\]$~@^{]/g, '\\$&');
  return { markup: plain, simplified: true };
}

/** The canonical form of a JSON markup string: what parse(serialize(…)) gives back for it. */
export function canonicalMarkup(markup: string, options: FitOptions = {}): string {
  return toMarkup(parseInline(markup), options).markup;
}

// ---------------------------------------------------------------- Markdown

export interface MarkdownInlineOptions {
  /** Inside a GFM table cell: `|` is escaped. */
  table?: boolean;
}

const isPunct = (ch: string) => /^[\p{P}\p{S}]$/u.test(ch);
const entity = (ch: string) => `&#${ch.codePointAt(0)};`;

/** Escapes a text run for Extended Markdown (line starts are handled by the block printer). */
function escapeMarkdownText(v: string, options: MarkdownInlineOptions): string {
  let o = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    const next = v[i + 1];
    const last = next === undefined;
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '<':
      case '&':
      case '~':
      case '$':
      case '{':
      case '@':
        o += `\\${c}`;
        break;
      case '^':
      case '!':
        o += last || next === '[' ? `\\${c}` : c;
        break;
      case '|':
        o += options.table ? '\\|' : '|';
        break;
      case '\r':
      case '\n':
        o += entity(c);
        break;
      case ':':
        // GFM autolink literals: `https://…`.
        o += next === '/' && v[i + 2] === '/' && /[A-Za-z]$/.test(o) ? '\\:' : ':';
        break;
      case '.':
        // GFM autolink literals: `www.…`.
        o += /(?:^|[^A-Za-z0-9])www$/i.test(v.slice(Math.max(0, i - 4), i)) ? '\\.' : '.';
        break;
      default:
        o += c;
    }
  }
  return o;
}

function mathFence(latex: string): string {
  let longest = 0;
  for (const m of latex.matchAll(/\$+/g)) longest = Math.max(longest, m[0].length);
  return '$'.repeat(longest + 1);
}

function escapeDestination(url: string): string {
  return url.replace(/[\\()<>&]/g, '\\$&');
}

const lastChar = (s: string) => {
  const cp = s.codePointAt(s.length - 1);
  if (cp === undefined) return undefined;
  // A lone low surrogate: take the whole pair.
  return cp >= 0xdc00 && cp <= 0xdfff && s.length > 1 ? String.fromCodePoint(s.codePointAt(s.length - 2)!) : String.fromCodePoint(cp);
};
const firstChar = (s: string) => (s ? String.fromCodePoint(s.codePointAt(0)!) : undefined);

/**
 * Prints a fitted tree as Extended Markdown inline content; a line break becomes `\` and a newline.
 * CommonMark only reads `*` as emphasis when it flanks the text; where a letter next to a delimiter
 * would spoil that, the letter is written as a character reference (`&#97;`), which reads the same.
 */
export function printMarkdown(nodes: Inline[], options: MarkdownInlineOptions = {}): string {
  let out = '';
  let encodeNextLetter = false;
  let afterStar = false;
  for (const n of nodes) {
    const fixNext = encodeNextLetter;
    const starBefore: boolean = afterStar;
    encodeNextLetter = false;
    afterStar = false;
    switch (n.t) {
      case 'text': {
        let v = escapeMarkdownText(n.v, options);
        const first = firstChar(n.v);
        if (fixNext && first && !isWs(first) && !isPunct(first)) v = entity(first) + escapeMarkdownText(n.v.slice(first.length), options);
        out += v;
        break;
      }
      case 'emph':
      case 'strong': {
        const inner = printMarkdown(n.c, options);
        const first = firstChar(inner);
        const before = lastChar(out);
        if (first && isPunct(first) && before && !isWs(before) && !isPunct(before)) out = out.slice(0, -before.length) + entity(before);
        // Right after another emphasis the two `*` runs would merge: this one uses `_`, which cannot
        // close before a letter, so the letter after it is written as a reference.
        const char = starBefore ? '_' : '*';
        const delimiter = n.t === 'emph' ? char : char + char;
        out += delimiter + inner + delimiter;
        const end = lastChar(inner);
        encodeNextLetter = starBefore || (end !== undefined && isPunct(end));
        afterStar = !starBefore;
        break;
      }
      case 'code': {
        const v = options.table ? n.v.replace(/\|/g, '\\|') : n.v;
        const { fence, pad } = codeFence(v, 'markdown');
        out += pad ? `${fence} ${v} ${fence}` : `${fence}${v}${fence}`;
        break;
      }
      case 'link':
        out += `[${printMarkdown(n.c, options)}](${escapeDestination(n.url)})`;
        break;
      case 'ref':
        out += `[${printMarkdown(n.c, options)}](#${escapeDestination(n.id)})`;
        break;
      case 'cite':
        out += `@[${citeBody(n.items)}]`;
        break;
      case 'abbr':
        out += `~${n.key}~`;
        break;
      case 'var':
        out += `{{${n.name}}}`;
        break;
      case 'footnote':
        out += `^[${printMarkdown(n.c, options)}]`;
        break;
      case 'math': {
        const fence = mathFence(n.latex);
        out += n.latex.endsWith('$') ? `${fence} ${n.latex} ${fence}` : `${fence}${n.latex}${fence}`;
        break;
      }
      case 'br':
        out += '\\\n';
        break;
    }
  }
  return out;
}
