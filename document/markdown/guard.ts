// Rejects container nesting that would make the Markdown tokenizer slow or exhaust the stack, before it runs.
//
// micromark re-checks every open container (block quote, list item) on every line, so thousands of
// nested `>` or list markers cost quadratic time and, deeper still, overflow the stack. Document
// JSON nests lists at most 6 levels and has no nested quotes, so a generous bound loses nothing.

export const MAX_NESTING = 64;
/** `:::` containers: Quire has no nested sections, so a few levels are plenty to report that as an error. */
export const MAX_CONTAINER_NESTING = 16;
/** Emphasis and brackets left open within one paragraph: micromark resolves them in quadratic time. */
export const MAX_INLINE_NESTING = 200;
/**
 * Delimiter runs (`*`, `_`, `~`) and `[` in one paragraph: micromark splices its event list for each,
 * which is quadratic in a long paragraph. Document JSON caps a paragraph at 50,000 characters;
 * these caps are far above what such a paragraph holds in practice.
 */
export const MAX_PARAGRAPH_DELIMITERS = 4000;
export const MAX_PARAGRAPH_BRACKETS = 2000;

export interface NestingProblem {
  line: number;
  column: number;
  message: string;
}

/**
 * The first place where the source passes one of the bounds above; null when none does. Container
 * markers (`>`, `-`, `*`, `+`, `1.`, `1)`) count with the indentation before a list marker as
 * levels of two columns. Lines inside fenced code blocks and the front matter are skipped (roughly:
 * fences are recognised after the markers). A line-by-line estimate, linear in the source.
 */
export function findExcessiveNesting(source: string): NestingProblem | null {
  let fence: { char: string; length: number } | null = null;
  let containers = 0;
  let inline = 0;
  const counts = { delimiters: 0, brackets: 0 };
  // YAML front matter (from a first line --- to the next --- or ...) is not Markdown.
  let frontMatter = /^---[ \t]*\r?\n/.test(source);
  let line = 0;
  let start = 0;
  while (start <= source.length) {
    line++;
    let end = source.indexOf('\n', start);
    if (end < 0) end = source.length;
    let i = start;
    let depth = 0;
    let column = 0;
    let listItem = false;
    for (;;) {
      let indent = 0;
      while (i < end && (source[i] === ' ' || source[i] === '\t')) {
        indent += source[i] === '\t' ? 4 : 1;
        i++;
      }
      const c = source[i];
      if (c === '>') {
        depth += 1 + (indent >> 2);
        i++;
        continue;
      }
      let marker = 0;
      if ((c === '-' || c === '*' || c === '+') && (i + 1 >= end || source[i + 1] === ' ' || source[i + 1] === '\t')) marker = 1;
      else {
        const m = /^\d{1,9}[.)](?=[ \t\r]|$)/.exec(source.slice(i, Math.min(end, i + 11)));
        if (m) marker = m[0].length;
      }
      if (!marker) break;
      listItem = true;
      depth += 1 + (indent >> 1);
      i += marker;
      column = i - start;
      if (depth > MAX_NESTING) break;
    }
    if (frontMatter && line > 1 && /^(?:---|\.\.\.)[ \t]*\r?$/.test(source.slice(start, end))) {
      frontMatter = false;
      start = end + 1;
      continue;
    }
    if (frontMatter) {
      start = end + 1;
      continue;
    }
    if (fence) {
      const m = /^(`{3,}|~{3,})[ \t]*\r?$/.exec(source.slice(i, end));
      if (m && m[1]![0] === fence.char && m[1]!.length >= fence.length) fence = null;
    } else {
      if (depth > MAX_NESTING) return { line, column: column + 1, message: `block quotes and lists nest more than ${MAX_NESTING} levels deep here` };
      const head = source.slice(i, Math.min(end, i + 200));
      const m = /^(`{3,}|~{3,})/.exec(head);
      if (m) fence = { char: m[1]![0]!, length: m[1]!.length };
      else if (/^:{3,}[ \t]*\r?$/.test(head)) containers = Math.max(0, containers - 1);
      else if (/^:{3,}[A-Za-z]/.test(head) && ++containers > MAX_CONTAINER_NESTING) return { line, column: i - start + 1, message: `::: containers nest more than ${MAX_CONTAINER_NESTING} levels deep here` };
      if (i >= end || /^[ \t\r]*$/.test(source.slice(i, end))) {
        inline = 0;
        counts.delimiters = counts.brackets = 0;
      } else {
        // A list item, a table row or a heading starts inline content of its own.
        if (listItem || source[i] === '|' || source[i] === '#') counts.delimiters = counts.brackets = 0;
        inline = inlineDepth(source, i, end, inline, counts);
        if (inline < 0) return { line, column: 1, message: `emphasis or brackets are left open more than ${MAX_INLINE_NESTING} levels deep in this paragraph` };
        if (counts.delimiters > MAX_PARAGRAPH_DELIMITERS) return { line, column: 1, message: `this paragraph has more than ${MAX_PARAGRAPH_DELIMITERS} emphasis markers (*, _, ~); split it` };
        if (counts.brackets > MAX_PARAGRAPH_BRACKETS) return { line, column: 1, message: `this paragraph has more than ${MAX_PARAGRAPH_BRACKETS} brackets [ (links, citations, footnotes); split it` };
      }
    }
    start = end + 1;
  }
  return null;
}

const isSpaceChar = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isPunctChar = (c: string | undefined) => c !== undefined && /[\p{P}\p{S}]/u.test(c);

/**
 * Carries the count of open emphasis runs (`*`/`_` runs that can only open, less those that can only
 * close) and open `[` across a line; an over-estimate of what micromark keeps on its delimiter stack.
 */
function inlineDepth(source: string, from: number, to: number, depth: number, counts: { delimiters: number; brackets: number }): number {
  // Returns -1 as soon as the count passes MAX_INLINE_NESTING (the end of a line may be back at 0).
  for (let i = from; i < to; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      counts.brackets++;
      if (++depth > MAX_INLINE_NESTING) return -1;
    } else if (c === ']') depth = Math.max(0, depth - 1);
    else if (c === '~') {
      counts.delimiters++;
      while (source[i + 1] === '~') i++;
    } else if (c === '*' || c === '_') {
      counts.delimiters++;
      let j = i;
      while (j < to && source[j] === c) j++;
      const before = source[i - 1];
      const after = source[j];
      const left = !isSpaceChar(after) && (!isPunctChar(after) || isSpaceChar(before) || isPunctChar(before));
      const right = !isSpaceChar(before) && (!isPunctChar(before) || isSpaceChar(after) || isPunctChar(after));
      if (left && !right && ++depth > MAX_INLINE_NESTING) return -1;
      else if (right && !left) depth = Math.max(0, depth - 1);
      i = j - 1;
    }
  }
  return depth;
}
