// State shared while one Markdown source becomes document JSON: issues with source positions, definitions, positions of JSON paths.
import type { Definition, FootnoteDefinition, Nodes } from 'mdast';
import type { Point, YamlText } from './yaml-text.js';

/** An error or warning: the JSON path it concerns and, when known, where in the Markdown source. */
export interface Issue {
  path: string;
  message: string;
  code: string;
  line?: number;
  column?: number;
}

export type { Point };

export class ParseContext {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  /** The JSON path of the element being built, for issues raised while building it. */
  path = '(markdown)';
  readonly definitions = new Map<string, Definition>();
  readonly footnotes = new Map<string, FootnoteDefinition>();
  readonly usedFootnotes = new Set<string>();
  /** Footnote definitions being converted (a note that cites itself must not recurse). */
  readonly openFootnotes = new Set<string>();
  /** Where each JSON path (section, element, row, cell, item) starts in the source. */
  readonly positions = new Positions();
  /** YAML read from the source (front matter, chart blocks): paths under `prefix` are found in `yaml`. */
  readonly yamlSources: Array<{ prefix: string; yaml: YamlText }> = [];
  /** Settings the front matter gave by an alias (`document.author` → `author`): issues about them point there. */
  readonly aliasPaths = new Map<string, string>();
  #lineStarts: number[] | null = null;

  constructor(readonly source: string) {}

  error(code: string, message: string, at?: Nodes | Point | null, path = this.path): void {
    this.errors.push({ path, message, code, ...point(at) });
  }

  warn(code: string, message: string, at?: Nodes | Point | null, path = this.path): void {
    this.warnings.push({ path, message, code, ...point(at) });
  }

  mark(path: string, at: Nodes | Point | null | undefined): void {
    const p = point(at);
    if (p.line !== undefined) this.positions.set(path, p as Point);
  }

  /** The offset where a (1-based) line starts. */
  lineStart(line: number): number {
    if (!this.#lineStarts) {
      const starts = [0];
      for (let i = this.source.indexOf('\n'); i >= 0; i = this.source.indexOf('\n', i + 1)) starts.push(i + 1);
      this.#lineStarts = starts;
    }
    return this.#lineStarts[line - 1] ?? this.source.length;
  }

  /** The (1-based) line and column of an offset. */
  pointAt(offset: number): Point {
    this.lineStart(1);
    const starts = this.#lineStarts!;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  }

  /** The source text of a node. */
  raw(node: Nodes): string {
    const p = node.position;
    return p?.start.offset !== undefined && p.end.offset !== undefined ? this.source.slice(p.start.offset, p.end.offset) : '';
  }
}

/**
 * Where JSON paths start, kept small: a 1 MB source marks some 60,000 paths (every section, element,
 * row and cell), and a Map from path strings to point objects held 12 times the source's size, more
 * than the document built from it. A path ending in `[n]` is kept under its parent
 * (`sections[0].content[4].rows` → line, column, line, column, … by n): one key per parent and two
 * small integers per path. Other paths (none today) keep a Map entry of their own.
 */
export class Positions {
  readonly #byParent = new Map<string, number[]>();
  readonly #other = new Map<string, Point>();

  set(path: string, at: Point): void {
    const m = LAST_INDEX.exec(path);
    if (!m) {
      this.#other.set(path, at);
      return;
    }
    let list = this.#byParent.get(m[1]!);
    if (!list) this.#byParent.set(m[1]!, (list = []));
    const i = 2 * Number(m[2]);
    list[i] = at.line;
    list[i + 1] = at.column;
  }

  get(path: string): Point | undefined {
    const m = LAST_INDEX.exec(path);
    if (!m) return this.#other.get(path);
    const list = this.#byParent.get(m[1]!);
    const i = 2 * Number(m[2]);
    const line = list?.[i];
    return line === undefined ? undefined : { line, column: list![i + 1]! };
  }
}

/** A path's last index and what comes before it: `a.rows[3]` → `a.rows`, `3`. */
const LAST_INDEX = /^(.*)\[(\d+)\]$/s;

function point(at: Nodes | Point | null | undefined): { line?: number; column?: number } {
  if (!at) return {};
  if ('line' in at && typeof at.line === 'number') return { line: at.line, column: (at as Point).column };
  const start = (at as Nodes).position?.start;
  return start ? { line: start.line, column: start.column } : {};
}
