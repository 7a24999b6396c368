// The Markdown tokenizer set up once: CommonMark, GFM, YAML front matter, math, block directives and Quire's references.
// Longer than 400 lines: the chunked tokenizer is one piece (cut points, stand-in labels, the chunk cache, whole or chunk-at-a-time trees) whose parts share its invariants.
import { createFromMarkdown, type Extension as FromMarkdownExtension } from 'mdast-util-from-markdown';
import { directiveFromMarkdown } from 'mdast-util-directive';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { mathFromMarkdown } from 'mdast-util-math';
import { directive } from 'micromark-extension-directive';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { math } from 'micromark-extension-math';
import type { Construct, Extension } from 'micromark-util-types';
import type { Definition, FootnoteDefinition, Nodes, Root, RootContent } from 'mdast';
import { quireFromMarkdown, quireSyntax } from './syntax.js';

// Only the block forms of directives (`::leaf`, `:::container`): the inline form `:name` would turn
// ordinary text such as "note:important" into a directive.
const blockDirectives = { flow: directive().flow };

// The GFM autolink-literal mdast transform links URLs found in text after parsing, where escapes are
// already gone: `https\://x` could then not stay text. The tokenizer's autolink literals remain.
const gfmWithoutTransforms = gfmFromMarkdown().map((extension) => ({ ...extension, transforms: [] }));

/**
 * The mdast extensions merged into one as mdast-util-from-markdown's `configure` merges them
 * (handlers in order, the later winning; lists concatenated): it then merges one, not nine, for
 * every chunk.
 */
function mergeMdastExtensions(extensions: readonly FromMarkdownExtension[]): FromMarkdownExtension[] {
  if (extensions.some((e) => e.beforeEnter || e.afterExit || Object.keys(e).some((k) => !['enter', 'exit', 'canContainEols', 'transforms'].includes(k)))) return [...extensions];
  const merged = { enter: {}, exit: {}, canContainEols: [] as string[], transforms: [] as NonNullable<FromMarkdownExtension['transforms']> };
  for (const e of extensions) {
    Object.assign(merged.enter, e.enter);
    Object.assign(merged.exit, e.exit);
    merged.canContainEols.push(...(e.canContainEols ?? []));
    merged.transforms.push(...(e.transforms ?? []));
  }
  return [merged];
}

const mdastExtensions = mergeMdastExtensions([frontmatterFromMarkdown(['yaml']), ...gfmWithoutTransforms, mathFromMarkdown(), directiveFromMarkdown(), quireFromMarkdown]);

const GFM = gfm({ singleTilde: false });
const AUTOLINKS = new Set(['wwwAutolink', 'protocolAutolink', 'emailAutolink']);

/**
 * `gfm({ singleTilde: false })`, optionally without the table or the autolink-literal constructs
 * (the others keep their order); a construct list left empty is dropped, as if never added.
 */
function gfmSyntax(table: boolean, autolink: boolean): Extension {
  const drop = (c: Construct) => (!table && c.name === 'table') || (!autolink && AUTOLINKS.has(c.name ?? ''));
  const out: Record<string, Record<string, unknown>> = {};
  for (const [field, record] of Object.entries(GFM)) {
    const kept: Record<string, unknown> = {};
    for (const [code, value] of Object.entries(record as Record<string, Construct | Construct[] | undefined>)) {
      if (!Array.isArray(value)) {
        if (!value || !drop(value)) kept[code] = value;
        continue;
      }
      const list = value.filter((c) => !drop(c));
      if (list.length || !value.length) kept[code] = list;
    }
    out[field] = kept;
  }
  return out as Extension;
}

/**
 * Extensions combined as micromark-util-combine-extensions does (a transitive dependency, not one of
 * Quire's): for each hook and character code, constructs without `add: 'after'` go before those
 * already there, the others after.
 */
function combineExtensions(extensions: readonly Extension[]): Extension {
  const all: Record<string, Record<string, unknown[]>> = {};
  for (const extension of extensions) {
    for (const [hook, right] of Object.entries(extension)) {
      const left = (all[hook] ??= {});
      if (!right) continue;
      for (const [code, value] of Object.entries(right as Record<string, unknown>)) {
        const existing = (left[code] ??= []);
        const before: unknown[] = [];
        for (const item of Array.isArray(value) ? value : value ? [value] : []) ((item as { add?: string }).add === 'after' ? existing : before).push(item);
        existing.unshift(...before);
      }
    }
  }
  return all as Extension;
}

/**
 * The parsers by [table][autolink]: see parserFor. The syntax extensions are combined once, and each
 * parser sets up micromark and the mdast compiler once: `createFromMarkdown` is a patch of Quire's
 * (patches/mdast-util-from-markdown+2.1.0.patch); `fromMarkdown` does that setup again for every call,
 * about 100 µs, and a document is parsed in many chunks.
 */
const PARSERS = [false, true].map((table) => [false, true].map((autolink) => createFromMarkdown({ extensions: [combineExtensions([frontmatter(['yaml']), gfmSyntax(table, autolink), math(), blockDirectives, quireSyntax])], mdastExtensions })));

/**
 * A GFM table needs a `|` or, in a one-column delimiter row, `:-` or `-:`; an autolink literal needs
 * `www.`, `http:`/`https:` or `@` before a domain. Text without them is tokenized without those
 * constructs, which micromark otherwise tries at every block and (autolinks) every word: the tree
 * is the same, the work is not (tables cost most: micromark builds a tokenizer for each cell).
 */
function parserFor(text: string): (typeof PARSERS)[number][number] {
  return PARSERS[/[|]|:-|-:/.test(text) ? 1 : 0]![/@[\w.-]|https?:|www\./i.test(text) ? 1 : 0]!;
}

/** The mdast tree of `text` parsed in one piece. */
const parseWhole = (text: string): Root => parserFor(text)(text);

/**
 * Chunk trees of recent parses, by the chunk's text (stand-ins included): a document written back after an edit
 * (PATCH of a saved document's Markdown) is mostly the chunks of its last parse, and a chunk's tree depends on its
 * text alone. Readers get a copy (the join shifts and filters what it gets). Bounded by the text it keys.
 * Only the chunks of a source no longer than the bound are stored: a longer one, read again from its start,
 * would push out each of its chunks before coming back to it (least recently used goes first), so storing
 * them would cost a copy of every tree (a sixth of a 1 MB parse) and hold the memory for no hit.
 */
const CHUNK_CACHE_CHARS = 512 * 1024;
const chunkCache = new Map<string, Root>();
let chunkCacheChars = 0;

function parseChunk(text: string, store: boolean): Root {
  const hit = chunkCache.get(text);
  if (hit) {
    chunkCache.delete(text);
    chunkCache.set(text, hit);
    return structuredClone(hit);
  }
  const tree = parseWhole(text);
  if (store && text.length <= CHUNK_CACHE_CHARS / 16) {
    chunkCache.set(text, structuredClone(tree));
    chunkCacheChars += text.length;
    for (const [key] of chunkCache) {
      if (chunkCacheChars <= CHUNK_CACHE_CHARS) break;
      chunkCache.delete(key);
      chunkCacheChars -= key.length;
    }
  }
  return tree;
}

/**
 * Chunks are cut at the first safe point after this many characters, or after this many list items
 * and quote lines. micromark's cost grows faster than the size of what it parses at once (it keeps
 * every event and token of a parse alive until the end, so the garbage collector copies them), and a
 * chunk without a table skips the table construct: small chunks are cheaper, down to a few blocks.
 */
const CHUNK_SIZE = 512;
const CHUNK_CONTAINERS = 16;
const CHUNK_MIN_SIZE = 512;
/** Stand-in definitions are repeated in every chunk: chunks are at least this many times their size. */
const STAND_IN_RATIO = 4;

/**
 * The mdast tree of Extended Markdown (positions included). micromark copies the whole event list
 * each time a list or block quote closes, which is quadratic in a long document; the source is
 * therefore parsed in chunks cut where no block can continue (see cutPoints), and the trees joined.
 * Two checks keep the joined tree the one a whole parse gives: a chunk whose last block runs to its
 * end (a fence, math block, HTML block or ::: container that cutPoints took for closed) is parsed
 * again with the next chunks; and when the labels really defined are not the stand-ins' (see
 * definedLabels: a line `[x]: y` inside a paragraph defines nothing), the chunks are parsed again
 * with the real ones. markdownChunks gives the same nodes a chunk at a time instead.
 */
export function markdownTree(source: string, options: { chunked?: boolean } = {}): Root {
  if (options.chunked === false) return parseWhole(source);
  const candidates = definedLabels(source);
  if (candidates === null) return parseWhole(source);
  const cuts = cutPoints(source, Math.max(CHUNK_SIZE, STAND_IN_RATIO * candidates.text.length));
  if (!cuts.length) return parseWhole(source);
  const first = chunkedTree(source, cuts, candidates.text);
  // micromark reads the content of a ::: container a pass later than the paragraphs around it: a
  // label defined there is not yet known to a reference before the container. Stand-ins cannot say so.
  if (first.defined.has(IN_CONTAINER)) return parseWhole(source);
  if (sameLabels(first.defined, candidates.ids)) return first.root;
  // Definitions do not depend on the labels defined, so a second pass finds the same ones.
  const real = standIns(first.defined);
  return real === null ? parseWhole(source) : chunkedTree(source, cuts, real).root;
}

/** The joined tree and the labels it really defines (identifier → stand-in line). */
function chunkedTree(source: string, cuts: ReadonlyArray<{ offset: number; line: number }>, labels: string): { root: Root; defined: Map<string, string> } {
  const root: Root = { type: 'root', children: [] };
  const trees = chunkTrees(source, cuts, labels, source.length <= CHUNK_CACHE_CHARS);
  let next = trees.next();
  for (; !next.done; next = trees.next()) for (const node of next.value) root.children.push(node);
  const endings = source.match(/\r\n|\r|\n/g)?.length ?? 0;
  const lastLine = source.slice(Math.max(source.lastIndexOf('\n'), source.lastIndexOf('\r')) + 1);
  root.position = { start: { line: 1, column: 1, offset: 0 }, end: { line: endings + 1, column: lastLine.length + 1, offset: source.length } };
  return { root, defined: next.value };
}

export interface MarkdownChunks {
  /**
   * The link and footnote definitions of the whole document (see definitionsOf), gathered by a first
   * pass that drops each chunk's tree: conversion needs them before it reaches them (a footnote is
   * defined after its use).
   */
  definitions: Array<Definition | FootnoteDefinition>;
  /**
   * The top-level nodes of the document, chunk by chunk, positions in the source; each chunk is parsed
   * when the iteration reaches it, so only one chunk's tree need be alive at a time (an mdast tree
   * with positions is some 100 times the size of its source).
   */
  chunks: Iterable<RootContent[]>;
  /** The tree when the source was parsed in one piece (then `chunks` is its children). */
  whole?: Root;
}

/**
 * Extended Markdown parsed in chunks, for a large source (parse.ts): its chunks are not stored in the
 * chunk cache, which would hold them all (and a second copy of each) live. micromark copies the whole event list each time a list or
 * block quote closes, which is quadratic in a long document; the source is therefore parsed in
 * chunks cut where no block can continue (see cutPoints). Two checks keep the chunks' nodes the ones
 * a whole parse gives: a chunk whose last block runs to its end (a fence, math block, HTML block or
 * ::: container that cutPoints took for closed) is parsed again with the next chunks; and when the
 * labels really defined are not the stand-ins' (see definedLabels: a line `[x]: y` inside a paragraph
 * defines nothing), the chunks are parsed again with the real ones.
 */
export function markdownChunks(source: string): MarkdownChunks {
  const whole = (): MarkdownChunks => {
    const tree = parseWhole(source);
    return { definitions: definitionsOf([tree.children]), chunks: [tree.children], whole: tree };
  };
  const candidates = definedLabels(source);
  if (candidates === null) return whole();
  const cuts = cutPoints(source, Math.max(CHUNK_SIZE, STAND_IN_RATIO * candidates.text.length));
  if (!cuts.length) return whole();
  let labels = candidates.text;
  let found = gather(source, cuts, labels);
  // micromark reads the content of a ::: container a pass later than the paragraphs around it: a
  // label defined there is not yet known to a reference before the container. Stand-ins cannot say so.
  if (found.defined.has(IN_CONTAINER)) return whole();
  if (!sameLabels(found.defined, candidates.ids)) {
    // Definitions do not depend on the labels defined, so a second pass finds the same ones.
    const real = standIns(found.defined);
    if (real === null) return whole();
    labels = real;
    found = gather(source, cuts, real);
  }
  return { definitions: found.definitions, chunks: { [Symbol.iterator]: () => chunkTrees(source, cuts, labels, false) } };
}

/** One pass over the chunks keeping only their definitions and the labels they really define. */
function gather(source: string, cuts: ReadonlyArray<{ offset: number; line: number }>, labels: string): { defined: Map<string, string>; definitions: Array<Definition | FootnoteDefinition> } {
  const perChunk: RootContent[][] = [];
  const trees = chunkTrees(source, cuts, labels, false);
  for (let next = trees.next(); ; next = trees.next()) {
    if (next.done) return { defined: next.value, definitions: definitionsOf(perChunk) };
    perChunk.push(definitionsOf([next.value]));
  }
}

/**
 * The definitions and footnote definitions among the nodes (the chunks in order), not inside
 * paragraphs, headings or tables, in the order a depth-first search from the document's end meets
 * them: parse.ts keeps the first one of each identifier (so the last in the document).
 */
export function definitionsOf(chunks: ReadonlyArray<readonly RootContent[]>): Array<Definition | FootnoteDefinition> {
  const out: Array<Definition | FootnoteDefinition> = [];
  for (let c = chunks.length - 1; c >= 0; c--) {
    const stack: Nodes[] = [...chunks[c]!];
    while (stack.length) {
      const node = stack.pop()!;
      if (node.type === 'definition' || node.type === 'footnoteDefinition') out.push(node);
      else if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'table') {
        for (const child of node.children as Nodes[]) stack.push(child);
      }
    }
  }
  return out;
}

/** The top-level nodes of each chunk (positions in the source), in order; returns the labels really defined (identifier → stand-in line). */
function* chunkTrees(source: string, cuts: ReadonlyArray<{ offset: number; line: number }>, labels: string, store: boolean): Generator<RootContent[], Map<string, string>> {
  const defined = new Map<string, string>();
  const ends = [...cuts, { offset: source.length, line: -1 }];
  let from = 0;
  let line = 1;
  for (let k = 0; k < ends.length; ) {
    const cut = ends[k]!;
    const text = source.slice(from, cut.offset);
    // Stand-in definitions go after the first chunk (front matter must come first; the chunk ends
    // where nothing is open) and before the others (the last one may end inside an unclosed fence).
    const first = from === 0;
    // A first chunk that runs to the end (see below) is the whole source: it needs no stand-ins.
    const standIns = k < ends.length - 1 || !first ? labels : '';
    const prefix = standIns && !first ? `${standIns}\n\n` : '';
    const input = standIns ? (first ? `${text}\n\n${standIns}` : prefix + text) : text;
    const tree = parseChunk(input, store);
    if (standIns) tree.children = tree.children.filter((n) => (n.position?.start.offset ?? 0) >= prefix.length && (n.position?.start.offset ?? 0) < prefix.length + text.length);
    const last = tree.children[tree.children.length - 1];
    if (k < ends.length - 1 && (last?.position?.end.offset ?? 0) > prefix.length + text.replace(/\s+$/, '').length) {
      // Something is open at the cut: take in the next chunks, at least as much again as this one.
      let next = k + 1;
      while (next < ends.length - 1 && ends[next]!.offset - from < 2 * text.length) next++;
      k = next;
      continue;
    }
    if (!first) shift(tree, line - 1 - (prefix.match(/\n/g)?.length ?? 0), from - prefix.length);
    collectLabels(tree.children, defined);
    from = cut.offset;
    line = cut.line;
    k++;
    yield tree.children;
  }
  return defined;
}

/** micromark's normalizeIdentifier; footnote labels get a leading `^`. */
const labelId = (label: string) => label.replace(/[\t\n\r ]+/g, ' ').replace(/^ | $/g, '').toLowerCase().toUpperCase();

/** Set (as a key) when a definition is inside a ::: container. */
const IN_CONTAINER = '\n';

/** The definitions and footnote definitions among nodes (not inside paragraphs): identifier → stand-in line. */
function collectLabels(nodes: readonly Nodes[], into: Map<string, string>, inContainer = false): void {
  for (const node of nodes) {
    if ((node.type === 'definition' || node.type === 'footnoteDefinition') && inContainer) into.set(IN_CONTAINER, '');
    if (node.type === 'definition') {
      const label = node.label ?? node.identifier;
      if (!into.has(labelId(label))) into.set(labelId(label), `[${label}]: #`);
    } else if (node.type === 'footnoteDefinition') {
      const label = node.label ?? node.identifier;
      if (!into.has(`^${labelId(label)}`)) into.set(`^${labelId(label)}`, `[^${label}]: x`);
    }
    if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'table') collectLabels(node.children as Nodes[], into, inContainer || node.type === 'containerDirective');
  }
}

function standIns(defined: ReadonlyMap<string, string>): string | null {
  const text = [...defined.values()].join('\n\n');
  return text.length > MAX_STAND_INS ? null : text;
}

function sameLabels(defined: ReadonlyMap<string, string>, ids: ReadonlySet<string>): boolean {
  return defined.size === ids.size && [...defined.keys()].every((id) => ids.has(id));
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
function definedLabels(source: string): { text: string; ids: Set<string> } | null {
  const labels = new Set<string>();
  for (const m of source.matchAll(DEFINITION)) labels.add(m[1]!);
  // A blank line between them: `[a]: #` right after the paragraph of `[^n]: x` would be a line of that paragraph.
  const text = [...labels].map((label) => (label.startsWith('^') ? `[${label}]: x` : `[${label}]: #`)).join('\n\n');
  const ids = new Set([...labels].map((label) => (label.startsWith('^') ? `^${labelId(label.slice(1))}` : labelId(label))));
  return text.length > MAX_STAND_INS ? null : { text, ids };
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
export function cutPoints(source: string, chunkSize = CHUNK_SIZE): Array<{ offset: number; line: number }> {
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
      const big = size >= chunkSize || (chunkContainers >= CHUNK_CONTAINERS && size >= Math.min(chunkSize, CHUNK_MIN_SIZE));
      if (blankBefore && containers === 0 && big && /^[^\s>:+*\-\d]/.test(text) && !/^\d{1,9}[.)]/.test(text)) {
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
