// The JSON inline grammar printer: escapes exactly what the grammar would read as markup, and checks its output by parsing it again.
import { parseInline, type Inline } from '../inline-markup.js';
import { citeBody, codeFence, fitInline, mergeText, sameInline, trimEdges, type FitOptions } from './inline-tree.js';

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
