// The Markdown tokenizer set up once: CommonMark, GFM, YAML front matter, math, block directives and Quire's references.
import { fromMarkdown } from 'mdast-util-from-markdown';
import { directiveFromMarkdown } from 'mdast-util-directive';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { mathFromMarkdown } from 'mdast-util-math';
import { directive } from 'micromark-extension-directive';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { math } from 'micromark-extension-math';
import type { Nodes, Root } from 'mdast';
import { quireFromMarkdown, quireSyntax } from './syntax.js';

// Only the block forms of directives (`::leaf`, `:::container`): the inline form `:name` would turn
// ordinary text such as "note:important" into a directive.
const blockDirectives = { flow: directive().flow };

// The GFM autolink-literal mdast transform links URLs found in text after parsing, where escapes are
// already gone: `https\://x` could then not stay text. The tokenizer's autolink literals remain.
const gfmWithoutTransforms = gfmFromMarkdown().map((extension) => ({ ...extension, transforms: [] }));

const OPTIONS = {
  extensions: [frontmatter(['yaml']), gfm({ singleTilde: false }), math(), blockDirectives, quireSyntax],
  mdastExtensions: [frontmatterFromMarkdown(['yaml']), ...gfmWithoutTransforms, mathFromMarkdown(), directiveFromMarkdown(), quireFromMarkdown],
};

/** Chunks are cut at the first safe point after this many characters, or after this many list items and quote lines. */
const CHUNK_SIZE = 8192;
const CHUNK_CONTAINERS = 16;
const CHUNK_MIN_SIZE = 1024;

/**
 * The mdast tree of Extended Markdown (positions included). micromark copies the whole event list
 * each time a list or block quote closes, which is quadratic in a long document; the source is
 * therefore parsed in chunks cut where no block can continue (see cutPoints), and the trees joined.
 */
export function markdownTree(source: string, options: { chunked?: boolean } = {}): Root {
  const labels = definedLabels(source);
  const cuts = options.chunked === false || labels === null ? [] : cutPoints(source);
  if (!cuts.length) return fromMarkdown(source, OPTIONS);
  const root: Root = { type: 'root', children: [] };
  let from = 0;
  let line = 1;
  for (const cut of [...cuts, { offset: source.length, line: -1 }]) {
    const text = source.slice(from, cut.offset);
    // Stand-in definitions go after the first chunk (front matter must come first; the chunk ends
    // where nothing is open) and before the others (the last one may end inside an unclosed fence).
    const first = from === 0;
    const prefix = labels && !first ? `${labels}\n\n` : '';
    const tree = fromMarkdown(labels ? (first ? `${text}\n\n${labels}` : prefix + text) : text, OPTIONS);
    if (labels) tree.children = tree.children.filter((n) => (n.position?.start.offset ?? 0) >= prefix.length && (n.position?.start.offset ?? 0) < prefix.length + text.length);
    if (!first) shift(tree, line - 1 - (prefix.match(/\n/g)?.length ?? 0), from - prefix.length);
    root.children.push(...tree.children);
    from = cut.offset;
    line = cut.line;
  }
  const endings = source.match(/\r\n|\r|\n/g)?.length ?? 0;
  const lastLine = source.slice(Math.max(source.lastIndexOf('\n'), source.lastIndexOf('\r')) + 1);
  root.position = { start: { line: 1, column: 1, offset: 0 }, end: { line: endings + 1, column: lastLine.length + 1, offset: source.length } };
  return root;
}

function shift(tree: Root, lines: number, offset: number): void {
  const stack: Nodes[] = [...tree.children];
  while (stack.length) {
    const node = stack.pop()!;
    const p = node.position;
    if (p) {
      p.start = { line: p.start.line + lines, column: p.start.column, offset: (p.start.offset ?? 0) + offset };
      p.end = { line: p.end.line + lines, column: p.end.column, offset: (p.end.offset ?? 0) + offset };
    }
    if ('children' in node) for (const child of node.children as Nodes[]) stack.push(child);
  }
}

/** A line that may define a link or footnote label (`[x]: url`, `[^n]: note`), also inside a list item or quote. */
const DEFINITION = /^[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?\[([^\]\n]+)\]:/gm;
/** Past this much stand-in text a source with definitions is parsed whole. */
const MAX_STAND_INS = 8192;

/**
 * Link and footnote labels are document-wide: micromark only reads `[text][label]` or `[^n]` when the
 * label is defined in the same parse. Each chunk is therefore followed by stand-in definitions of
 * every label defined anywhere (the real ones are collected from the chunk that holds them).
 * '' when there are none; null when there are too many to repeat (the source is parsed whole).
 */
function definedLabels(source: string): string | null {
  const labels = new Set<string>();
  for (const m of source.matchAll(DEFINITION)) labels.add(m[1]!);
  const text = [...labels].map((label) => (label.startsWith('^') ? `[${label}]: x` : `[${label}]: #`)).join('\n');
  return text.length > MAX_STAND_INS ? null : text;
}
const HTML_SPANNING = [
  { open: /^<(?:script|pre|style|textarea)(?:[\s>]|$)/i, close: /<\/(?:script|pre|style|textarea)>/i },
  { open: /^<!--/, close: /-->/ },
  { open: /^<\?/, close: /\?>/ },
  { open: /^<![A-Za-z]/, close: />/ },
  { open: /^<!\[CDATA\[/, close: /\]\]>/ },
];

/**
 * Offsets (and lines) of lines where the source may be cut: the line before is blank, the line
 * starts in column 1 with something that cannot continue an open list or quote, and no fenced
 * code, math block, ::: container, HTML block or front matter is open. Conservative: a cut never
 * changes the tree, it only bounds the work.
 */
export function cutPoints(source: string): Array<{ offset: number; line: number }> {
  const cuts: Array<{ offset: number; line: number }> = [];
  let fence: RegExp | null = null;
  let html: RegExp | null = null;
  let containers = 0;
  let frontMatter = /^---[ \t]*\r?\n/.test(source);
  let blankBefore = false;
  let chunkStart = 0;
  let chunkContainers = 0;
  let line = 0;
  for (let start = 0; start < source.length; ) {
    line++;
    let end = source.indexOf('\n', start);
    if (end < 0) end = source.length;
    const text = source.slice(start, end).replace(/\r$/, '');
    const next = end + 1;
    if (frontMatter) {
      if (line > 1 && /^(?:---|\.\.\.)[ \t]*$/.test(text)) frontMatter = false;
    } else if (fence) {
      if (fence.test(text)) fence = null;
    } else if (html) {
      if (html.test(text)) html = null;
    } else {
      const size = start - chunkStart;
      const big = size >= CHUNK_SIZE || (chunkContainers >= CHUNK_CONTAINERS && size >= CHUNK_MIN_SIZE);
      if (blankBefore && containers === 0 && big && /^[^\s>|:+*\-\d]/.test(text) && !/^\d{1,9}[.)]/.test(text)) {
        cuts.push({ offset: start, line });
        chunkStart = start;
        chunkContainers = 0;
      }
      if (/^[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t])/.test(text)) chunkContainers++;
      const fenceOpen = /^ {0,3}(`{3,}|~{3,}|\${2,})/.exec(text);
      if (fenceOpen && !(fenceOpen[1]![0] === '`' && text.slice(fenceOpen[0].length).includes('`'))) {
        const char = fenceOpen[1]![0] === '$' ? '\\$' : fenceOpen[1]![0];
        fence = new RegExp(`^ {0,3}${char}{${fenceOpen[1]!.length},}[ \\t]*$`);
      } else if (/^ {0,3}:{3,}[ \t]*$/.test(text)) containers = Math.max(0, containers - 1);
      else if (/^ {0,3}:{3,}[A-Za-z]/.test(text)) containers++;
      else {
        const opened = HTML_SPANNING.find((h) => h.open.test(text.replace(/^ {0,3}/, '')));
        if (opened && !opened.close.test(text)) html = opened.close;
      }
    }
    blankBefore = /^[ \t]*$/.test(text);
    start = next;
  }
  return cuts;
}
