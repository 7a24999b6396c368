// The Extended Markdown inline printer: escapes what CommonMark, GFM and Quire's references would read as markup, and keeps emphasis flanking.
import type { Inline } from '../inline-markup.js';
import { citeBody, codeFence, isWs } from './inline-tree.js';

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

// micromark classifies the UTF-16 unit next to a delimiter (half of an emoji is neither space nor
// punctuation); the fix-up writes the whole character as a reference.
const lastChar = (s: string) => {
  if (!s) return undefined;
  const unit = s[s.length - 1]!;
  const whole = unit >= '\udc00' && unit <= '\udfff' && s.length > 1 ? s.slice(-2) : unit;
  return { unit, whole };
};
const firstChar = (s: string) => (s ? { unit: s[0]!, whole: String.fromCodePoint(s.codePointAt(0)!) } : undefined);

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
        if (fixNext && first && !isWs(first.unit) && !isPunct(first.unit)) v = entity(first.whole) + escapeMarkdownText(n.v.slice(first.whole.length), options);
        out += v;
        break;
      }
      case 'emph':
      case 'strong': {
        const inner = printMarkdown(n.c, options);
        const first = firstChar(inner);
        const before = lastChar(out);
        if (first && isPunct(first.unit) && before && !isWs(before.unit) && !isPunct(before.unit)) out = out.slice(0, -before.whole.length) + entity(before.whole);
        // Right after another emphasis the two `*` runs would merge: this one uses `_`, which cannot
        // close before a letter, so the letter after it is written as a reference.
        const char = starBefore ? '_' : '*';
        const delimiter = n.t === 'emph' ? char : char + char;
        out += delimiter + inner + delimiter;
        const end = lastChar(inner);
        encodeNextLetter = starBefore || (end !== undefined && isPunct(end.unit));
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
