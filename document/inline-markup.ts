// Parses the inline markup of document JSON text fields into a small tree that every render target shares.
//
// The grammar is the Markdown inline subset of docs/document-json.md plus the spec's references:
// **strong**, *emphasis*, `code`, [text](https://…), [label](#anchor), @[key, locator; key2], ~ABBR~,
// ^[footnote], $math$, {{variable}} / ${variable}, backslash escapes and line breaks. Anything that does
// not close is printed as written, so every input parses; nothing in a value is ever evaluated.

export type Inline =
  | { t: 'text'; v: string }
  | { t: 'strong'; c: Inline[] }
  | { t: 'emph'; c: Inline[] }
  | { t: 'code'; v: string }
  | { t: 'link'; url: string; c: Inline[] }
  | { t: 'ref'; id: string; c: Inline[] }
  | { t: 'cite'; items: CitationItem[] }
  | { t: 'abbr'; key: string }
  | { t: 'footnote'; c: Inline[] }
  | { t: 'math'; latex: string }
  | { t: 'var'; name: string }
  | { t: 'br' };

const ABBR = /^~([A-Za-z0-9_-]{1,32})~/;
const VARIABLE = /^(?:\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}|\$\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\})/;
const EXTERNAL_URL = /^(?:https?:\/\/|mailto:)[^\s]*$/i;

/** A `{{name}}` / `${name}` placeholder at the start of `source` (the markup's own rule, spaces allowed inside `{{ }}`), or null. */
export function variableAtStart(source: string): { name: string; length: number } | null {
  const m = VARIABLE.exec(source);
  return m ? { name: (m[1] ?? m[2])!, length: m[0].length } : null;
}

/** Parses one markup field. Never throws: text that is not markup stays text. */
export function parseInline(source: string): Inline[] {
  return new InlineParser(source).parse(0, source.length);
}

/** The plain text of inline nodes (for alt texts, outlines and metadata), references shown as written. */
export function inlineText(nodes: Inline[]): string {
  let out = '';
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
      case 'code':
        out += n.v;
        break;
      case 'strong':
      case 'emph':
      case 'link':
      case 'ref':
        out += inlineText(n.c);
        break;
      case 'br':
        out += ' ';
        break;
      case 'math':
        out += n.latex;
        break;
      case 'abbr':
        out += n.key;
        break;
      case 'var':
        out += `{{${n.name}}}`;
        break;
      case 'cite':
      case 'footnote':
        break;
    }
  }
  return out;
}

class InlineParser {
  constructor(private readonly s: string) {}

  parse(from: number, to: number): Inline[] {
    const out: Inline[] = [];
    let text = '';
    const flush = () => {
      if (text) out.push({ t: 'text', v: text });
      text = '';
    };
    const push = (node: Inline) => {
      flush();
      out.push(node);
    };
    let i = from;
    while (i < to) {
      const c = this.s[i]!;
      const rest = this.s.slice(i, Math.min(to, i + 80));
      if (c === '\\' && i + 1 < to) {
        if (this.s[i + 1] === '\n') push({ t: 'br' });
        else text += this.s[i + 1];
        i += 2;
        continue;
      }
      if (c === '\n') {
        push({ t: 'br' });
        i++;
        continue;
      }
      if (c === '`') {
        const span = this.#codeSpan(i, to);
        if (span) {
          push({ t: 'code', v: span.value });
          i = span.end;
          continue;
        }
        let n = 1;
        while (this.s[i + n] === '`') n++;
        text += '`'.repeat(n);
        i += n;
        continue;
      }
      if (c === '$') {
        const variable = VARIABLE.exec(rest);
        if (variable) {
          push({ t: 'var', name: (variable[1] ?? variable[2])! });
          i += variable[0].length;
          continue;
        }
        const end = this.#mathEnd(i, to);
        if (end > 0) {
          push({ t: 'math', latex: this.s.slice(i + 1, end) });
          i = end + 1;
          continue;
        }
      }
      if (c === '{') {
        const variable = VARIABLE.exec(rest);
        if (variable) {
          push({ t: 'var', name: (variable[1] ?? variable[2])! });
          i += variable[0].length;
          continue;
        }
      }
      if (c === '~') {
        const abbr = ABBR.exec(rest);
        if (abbr) {
          push({ t: 'abbr', key: abbr[1]! });
          i += abbr[0].length;
          continue;
        }
      }
      if (c === '@' && this.s[i + 1] === '[') {
        const close = this.#closingBracket(i + 1, to);
        const items = close > 0 ? parseCitationBody(this.s.slice(i + 2, close)) : null;
        if (items) {
          push({ t: 'cite', items });
          i = close + 1;
          continue;
        }
      }
      if (c === '^' && this.s[i + 1] === '[') {
        const close = this.#closingBracket(i + 1, to);
        if (close > 0) {
          push({ t: 'footnote', c: this.parse(i + 2, close) });
          i = close + 1;
          continue;
        }
      }
      if (c === '[') {
        const link = this.#link(i, to);
        if (link) {
          push(link.node);
          i = link.end;
          continue;
        }
      }
      if (c === '*') {
        const strong = this.s[i + 1] === '*';
        const width = strong ? 2 : 1;
        const close = this.#closingEmphasis(i, width, to);
        if (close > 0) {
          const c2 = this.parse(i + width, close);
          push(strong ? { t: 'strong', c: c2 } : { t: 'emph', c: c2 });
          i = close + width;
          continue;
        }
        text += strong ? '**' : '*';
        i += width;
        continue;
      }
      text += c;
      i++;
    }
    flush();
    return out;
  }

  /** A code span opened by a run of n backticks, closed by a run of exactly n. */
  #codeSpan(at: number, to: number): { value: string; end: number } | null {
    let n = 1;
    while (this.s[at + n] === '`') n++;
    for (let j = at + n; j < to; j++) {
      if (this.s[j] !== '`') continue;
      let m = 1;
      while (this.s[j + m] === '`') m++;
      if (m === n && j + m <= to) {
        let value = this.s.slice(at + n, j);
        if (value.length > 2 && value.startsWith(' ') && value.endsWith(' ') && value.trim()) value = value.slice(1, -1);
        return { value, end: j + m };
      }
      j += m - 1;
    }
    return null;
  }

  /** Inline math: `$` not followed by a space, `{` or `$`; closed by `$` not after a space nor before a digit. */
  #mathEnd(at: number, to: number): number {
    if (at + 1 >= to || /[\s{$]/.test(this.s[at + 1]!)) return -1;
    for (let j = at + 2; j < to; j++) {
      if (this.s[j] === '\\') j++;
      else if (this.s[j] === '$' && !/\s/.test(this.s[j - 1]!) && !/\d/.test(this.s[j + 1] ?? '')) return j;
    }
    return -1;
  }

  /** The `]` matching the `[` at `open`, skipping escapes, code spans and nested brackets; -1 if none. */
  #closingBracket(open: number, to: number): number {
    let depth = 0;
    for (let j = open; j < to; j++) {
      const c = this.s[j];
      if (c === '\\') j++;
      else if (c === '`') {
        const span = this.#codeSpan(j, to);
        if (span) j = span.end - 1;
      } else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return j;
    }
    return -1;
  }

  #link(at: number, to: number): { node: Inline; end: number } | null {
    const close = this.#closingBracket(at, to);
    if (close < 0 || this.s[close + 1] !== '(') return null;
    const end = this.s.indexOf(')', close + 2);
    if (end < 0 || end >= to) return null;
    const target = this.s.slice(close + 2, end).trim();
    const label = this.parse(at + 1, close);
    if (target.startsWith('#') && target.length > 1 && !/\s/.test(target)) return { node: { t: 'ref', id: target.slice(1), c: label }, end: end + 1 };
    if (EXTERNAL_URL.test(target)) return { node: { t: 'link', url: target, c: label }, end: end + 1 };
    return null;
  }

  /** The closing delimiter of emphasis: same width, not preceded by a space; the opener not followed by one. */
  #closingEmphasis(at: number, width: number, to: number): number {
    const first = this.s[at + width];
    if (first === undefined || /\s/.test(first) || at + width >= to) return -1;
    for (let j = at + width + 1; j < to; j++) {
      const c = this.s[j];
      if (c === '\\') {
        j++;
        continue;
      }
      if (c === '`') {
        const span = this.#codeSpan(j, to);
        if (span) j = span.end - 1;
        continue;
      }
      if (c !== '*') continue;
      let run = 1;
      while (this.s[j + run] === '*') run++;
      if (run >= width && !/\s/.test(this.s[j - 1]!)) {
        // `***x***`: the inner emphasis closes first, the strong takes the last two.
        if (width === 2 && run === 3) return j + 1;
        if (width === 1 && run === 2 && this.s[j + 2] !== '*') {
          j += run - 1;
          continue;
        }
        return j;
      }
      j += run - 1;
    }
    return -1;
  }
}

export interface CitationItem {
  key: string;
  locator?: string;
}

/**
 * The body of a citation `@[…]`: `key`, `key, p. 12`, `a; b, ch. 3` → items; null when a part has no usable key
 * (then `@[…]` is not a citation). The Markdown reader (markdown/syntax.ts) applies the same rule.
 */
export function parseCitationBody(body: string): CitationItem[] | null {
  const items: CitationItem[] = [];
  for (const part of body.split(';')) {
    const comma = part.indexOf(',');
    const key = (comma < 0 ? part : part.slice(0, comma)).trim().replace(/^@/, '');
    if (!key || /[\s[\]]/.test(key)) return null;
    const locator = comma < 0 ? '' : part.slice(comma + 1).trim();
    items.push(locator ? { key, locator } : { key });
  }
  return items.length ? items : null;
}
