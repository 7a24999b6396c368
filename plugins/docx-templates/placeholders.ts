// Finds {{name}} / ${name} placeholders in an office XML part, however the editor split them over runs, and rewrites the part.
import { Tok, decodeText, tokenize, type Token } from './xml-tokens.js';
import { escapeXml } from '../../engines/xml-escape.js';

/** One piece of a replacement: text, a line break, a tab, or a picture. */
export type Piece = { kind: 'text'; text: string; original?: boolean } | { kind: 'break' } | { kind: 'tab' } | { kind: 'image'; image: unknown };

/** What differs between WordprocessingML and ODF text for this engine. */
export interface Dialect {
  /** Paragraph elements: a placeholder is looked for in the text of one paragraph. */
  paragraphs: ReadonlySet<string>;
  /** Elements whose character data is document text (`w:t`; ODF's paragraph and span elements). */
  textParents: ReadonlySet<string>;
  /** The table row element. */
  row: string;
  /** Subtrees whose text is not current document text (deleted revisions). */
  skip: ReadonlySet<string>;
  /** Subtrees that repeat content shown elsewhere (mc:Fallback): replaced, but not counted. */
  uncounted: ReadonlySet<string>;
  /** The markup that replaces one text node's content, the pieces in order. */
  write(pieces: Piece[], part: PartWriter): string;
  /** Adjusts the start tag of a text parent whose content is rewritten (DOCX: keep spaces). */
  retag?(tag: string): string;
}

/** Per-part services of the package writer (pictures need a relationship or manifest entry in the part's package). */
export interface PartWriter {
  name: string;
  imageRef(image: unknown): string;
}

/** A placeholder found in a part. */
export interface Match {
  /** The name inside the braces: `client`, or `items.price` for a table column. */
  name: string;
  /** As written, e.g. `{{ client }}`. */
  written: string;
  startTok: number;
  startOff: number;
  endTok: number;
  endOff: number;
  /** The paragraph's text tokens strictly between the start and the end token. */
  between: number[];
  counted: boolean;
  /** Innermost table row holding the placeholder's start (token index of its start tag), or -1. */
  row: number;
}

export interface PartAnalysis {
  part: string;
  xml: string;
  tokens: Token[];
  /** Decoded text of the text tokens that belong to a paragraph. */
  texts: Map<number, string>;
  matches: Match[];
  /** Row start token → its end token. */
  rowEnd: Map<number, number>;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)?)\s*\}\}|\$\{\s*([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)?)\s*\}/g;

/** Reads one part: its tokens, the text of each paragraph and the placeholders in it. */
export function analyze(part: string, xml: string, d: Dialect): PartAnalysis {
  const tokens = tokenize(xml, part);
  const texts = new Map<number, string>();
  const rowEnd = new Map<number, number>();
  const rowOf = new Int32Array(tokens.length);
  const uncountedAt = new Uint8Array(tokens.length);
  const paragraphs: number[][] = [];
  const open: string[] = [];
  const paraStack: number[] = [];
  const rowStack: number[] = [];
  let skipDepth = 0;
  let uncountedDepth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    rowOf[i] = rowStack.length ? rowStack[rowStack.length - 1]! : -1;
    uncountedAt[i] = uncountedDepth > 0 ? 1 : 0;
    if (t.type === Tok.Open) {
      open.push(t.name);
      if (d.skip.has(t.name)) skipDepth++;
      if (d.uncounted.has(t.name)) uncountedDepth++;
      if (d.paragraphs.has(t.name)) {
        paraStack.push(paragraphs.length);
        paragraphs.push([]);
      }
      if (t.name === d.row) rowStack.push(i);
    } else if (t.type === Tok.Close) {
      if (open.pop() !== t.name) throw new Error(`${part} is not well-formed XML: </${t.name}> does not close the open element.`);
      if (d.skip.has(t.name)) skipDepth--;
      if (d.uncounted.has(t.name)) uncountedDepth--;
      if (d.paragraphs.has(t.name)) paraStack.pop();
      if (t.name === d.row) rowEnd.set(rowStack.pop()!, i);
    } else if (t.type === Tok.Text && skipDepth === 0 && paraStack.length && d.textParents.has(open[open.length - 1] ?? '')) {
      texts.set(i, decodeText(xml.slice(t.start, t.end)));
      paragraphs[paraStack[paraStack.length - 1]!]!.push(i);
    }
  }
  if (open.length) throw new Error(`${part} is not well-formed XML: <${open[open.length - 1]}> is never closed.`);

  const matches: Match[] = [];
  for (const segs of paragraphs) {
    if (!segs.length) continue;
    let joined = '';
    const starts: number[] = [];
    for (const tok of segs) {
      starts.push(joined.length);
      joined += texts.get(tok)!;
    }
    if (!joined.includes('{')) continue;
    for (const m of joined.matchAll(PLACEHOLDER)) {
      const from = m.index;
      const to = from + m[0].length;
      const a = locate(starts, from, false);
      const b = locate(starts, to, true);
      matches.push({
        name: (m[1] ?? m[2])!,
        written: m[0],
        startTok: segs[a]!,
        startOff: from - starts[a]!,
        endTok: segs[b]!,
        endOff: to - starts[b]!,
        between: segs.slice(a + 1, b),
        counted: uncountedAt[segs[a]!] === 0,
        row: rowOf[segs[a]!]!,
      });
    }
  }
  return { part, xml, tokens, texts, matches, rowEnd };
}

/** Index of the segment holding offset `at` (the end of a range belongs to the segment it ends in). */
function locate(starts: number[], at: number, isEnd: boolean): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (isEnd ? starts[mid]! < at : starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The data row of each table variable being expanded around the current position. */
export type RowScope = Readonly<Record<string, Record<string, string>>>;

/** How each match is replaced, decided per copy of a row: pieces, or null to leave it as written. */
export type Resolver = (match: Match, rows: RowScope) => Piece[] | null;

export interface RewritePlan {
  /** Row start token → the table variable and the data rows it is repeated for (none removes the row). */
  expand: Map<number, { table: string; rows: Array<Record<string, string>> }>;
  /** Matches that are replaced (others stay as written). */
  replace: Set<Match>;
  resolve: Resolver;
}

/** Writes the part with the plan applied; returns the XML and how many placeholders were replaced (counted ones). */
export function rewrite(a: PartAnalysis, plan: RewritePlan, d: Dialect, part: PartWriter): { xml: string; replaced: number } {
  // Per text token, the edits that touch it, in order.
  const edits = new Map<number, Array<{ from: number; to: number; match: Match | null }>>();
  const add = (tok: number, from: number, to: number, match: Match | null) => {
    const list = edits.get(tok) ?? [];
    list.push({ from, to, match });
    edits.set(tok, list);
  };
  for (const m of a.matches) {
    if (!plan.replace.has(m)) continue;
    if (m.startTok === m.endTok) {
      add(m.startTok, m.startOff, m.endOff, m);
      continue;
    }
    add(m.startTok, m.startOff, a.texts.get(m.startTok)!.length, m);
    for (const tok of m.between) add(tok, 0, a.texts.get(tok)!.length, null);
    add(m.endTok, 0, m.endOff, null);
  }
  for (const list of edits.values()) list.sort((x, y) => x.from - y.from);

  const out: string[] = [];
  let replaced = 0;
  const emit = (from: number, to: number, scope: RowScope, expanding: number) => {
    for (let i = from; i < to; i++) {
      const t = a.tokens[i]!;
      const copies = t.type === Tok.Open && i !== expanding ? plan.expand.get(i) : undefined;
      if (copies) {
        const end = a.rowEnd.get(i)!;
        for (const data of copies.rows) emit(i, end + 1, { ...scope, [copies.table]: data }, i);
        i = end;
        continue;
      }
      const list = t.type === Tok.Text ? edits.get(i) : undefined;
      if (!list) {
        const next = edits.has(i + 1) && t.type === Tok.Open && d.retag ? d.retag(a.xml.slice(t.start, t.end)) : a.xml.slice(t.start, t.end);
        out.push(next);
        continue;
      }
      const text = a.texts.get(i)!;
      const pieces: Piece[] = [];
      let at = 0;
      for (const e of list) {
        if (e.from > at) pieces.push({ kind: 'text', text: text.slice(at, e.from), original: true });
        if (e.match) {
          const value = plan.resolve(e.match, scope);
          if (value) {
            pieces.push(...value);
            if (e.match.counted) replaced++;
          } else pieces.push({ kind: 'text', text: e.match.written, original: true });
        }
        at = Math.max(at, e.to);
      }
      if (at < text.length) pieces.push({ kind: 'text', text: text.slice(at), original: true });
      out.push(d.write(pieces, part));
    }
  };
  emit(0, a.tokens.length, {}, -1);
  return { xml: out.join(''), replaced };
}

/** Text with line breaks and tabs as pieces. */
export function textPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  lines.forEach((line, li) => {
    if (li > 0) pieces.push({ kind: 'break' });
    line.split('\t').forEach((chunk, ci) => {
      if (ci > 0) pieces.push({ kind: 'tab' });
      if (chunk) pieces.push({ kind: 'text', text: chunk });
    });
  });
  return pieces;
}

export { escapeXml };
