// Reading order of a PDF text layer: positioned text runs → lines → columns → blocks (headings, paragraphs, tables).
// Pure geometry, no pdfjs: the worker feeds it the runs of getTextContent (text-layer.ts) and the tests of
// the HTTP surface check what comes out.

/** One run of text as pdfjs places it: baseline-left corner in PDF units (y grows upwards). */
export interface Run {
  text: string;
  x: number;
  y: number;
  width: number;
  /** Font size (the text matrix's vertical scale). */
  size: number;
  bold: boolean;
}

export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'table'; rows: string[][] }
  | { kind: 'list'; ordered: boolean; items: string[] };

/** A page as Lens reads it: body blocks in reading order, running header and footer lines apart. */
export interface PageText {
  blocks: Block[];
  header: string[];
  footer: string[];
  /** How the text was obtained. */
  source: 'text-layer' | 'ocr';
  /** Body font size (pt) of the page, for headings across pages. */
  bodySize: number;
  /**
   * Every line of the page with its place (PDF points, y of the baseline from the page's bottom), in reading
   * order, running header and footer included: the geometry extraction reads (same line, just below) and
   * the box its evidence reports. Absent for DOCX, ODT and Markdown, which have no page geometry.
   */
  lines?: GeoLine[];
  /** Page size in PDF points, with `lines`. */
  size?: { width: number; height: number };
}

/** A line with its place on the page: the extent of its text and its baseline, in PDF points. */
export interface GeoLine {
  text: string;
  cells: Array<{ x0: number; x1: number; text: string }>;
  x0: number;
  x1: number;
  /** Baseline height from the bottom of the page. */
  y: number;
  /** Font size (about the line's height). */
  size: number;
}

export interface Line {
  y: number;
  size: number;
  bold: boolean;
  x0: number;
  x1: number;
  /** Cells: runs grouped where the horizontal gap is wide (a table column or a tab stop). */
  cells: Array<{ x0: number; x1: number; text: string }>;
  text: string;
}

/** A gap wider than this many font sizes between runs starts a new cell. */
const CELL_GAP = 0.9;
/** Header/footer band: this fraction of the page height at the top and bottom. */
const MARGIN_BAND = 0.1;

/** Groups runs into lines: same baseline (within 40% of the font size), sorted left to right. */
export function buildLines(runs: Run[]): Line[] {
  const sorted = runs.filter((r) => r.text.trim() !== '').sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: Run[][] = [];
  for (const run of sorted) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(row[0]!.y - run.y) <= 0.4 * Math.max(run.size, row[0]!.size)) row.push(run);
    else rows.push([run]);
  }
  return rows.map(toLine);
}

function toLine(row: Run[]): Line {
  row.sort((a, b) => a.x - b.x);
  const cells: Line['cells'] = [];
  let size = 0;
  let chars = 0;
  let boldChars = 0;
  for (const run of row) {
    const last = cells[cells.length - 1];
    const gap = last ? run.x - last.x1 : Infinity;
    if (last && gap < CELL_GAP * run.size) {
      // pdfjs splits words into runs; a visible gap (> 0.15 em) is a space unless one is there already.
      const space = gap > 0.15 * run.size && !/\s$/.test(last.text) && !/^\s/.test(run.text) ? ' ' : '';
      last.text += space + run.text;
      last.x1 = Math.max(last.x1, run.x + run.width);
    } else {
      cells.push({ x0: run.x, x1: run.x + run.width, text: run.text });
    }
    const n = run.text.trim().length;
    size += run.size * n;
    chars += n;
    if (run.bold) boldChars += n;
  }
  for (const c of cells) c.text = c.text.replace(/\s+/g, ' ').trim();
  return {
    y: row[0]!.y,
    size: chars ? size / chars : row[0]!.size,
    bold: chars > 0 && boldChars / chars > 0.6,
    x0: cells[0]!.x0,
    x1: Math.max(...cells.map((c) => c.x1)),
    cells,
    text: cells.map((c) => c.text).join(' '),
  };
}

/**
 * Splits the lines of a page into reading order when the page has text columns (two, three or more):
 * vertical gutters that almost no line crosses, each column holding running text. Columns are read left
 * to right, each top to bottom. A line crossing a gutter (a title over the columns) ends the column run
 * above it. Key–value lines ("Total:   12.00") and table rows are not columns: their cells are short
 * for the space they sit in.
 */
export function readingOrder(lines: Line[], pageWidth: number): Line[] {
  const gutters = findGutters(lines, pageWidth);
  if (!gutters.length) return lines;
  const out: Line[] = [];
  let columns: Line[][] = gutters.map(() => []).concat([[]]);
  const flush = () => {
    for (const c of columns) out.push(...c);
    columns = columns.map(() => []);
  };
  for (const line of lines) {
    if (line.cells.some((c) => gutters.some((g) => c.x0 < g && c.x1 > g))) {
      flush();
      out.push(line);
      continue;
    }
    const parts = columns.map((): Line['cells'] => []);
    for (const c of line.cells) parts[gutters.filter((g) => c.x0 >= g).length]!.push(c);
    parts.forEach((cells, k) => cells.length && columns[k]!.push(subLine(line, cells)));
  }
  flush();
  return out;
}

function subLine(line: Line, cells: Line['cells']): Line {
  return { ...line, cells, x0: cells[0]!.x0, x1: Math.max(...cells.map((c) => c.x1)), text: cells.map((c) => c.text).join(' ') };
}

/** Lines that a column of running text needs on each side of a gutter. */
const COLUMN_LINES = 4;

/**
 * Column gutters: bands of x that at most 20% of the lines cross, inside the text's extent. Each region
 * between two bands (or a band and the text's edge) must hold running text (see runningText). While a
 * region fails, the narrower band next to it is dropped (the region merges with its neighbour) and the
 * rest are checked again.
 */
function findGutters(lines: Line[], pageWidth: number): number[] {
  if (lines.length < 6) return [];
  const { left: xmin, right: xmax } = extent(lines);
  const span = xmax - xmin;
  if (span < pageWidth * 0.3) return [];
  const allowed = lines.length * 0.2;
  const bands: Array<{ x0: number; x1: number }> = [];
  let open: { x0: number; x1: number } | null = null;
  for (let x = xmin + span * 0.1; x <= xmax - span * 0.1; x += 2) {
    let crossing = 0;
    for (const line of lines) if (line.cells.some((c) => c.x0 < x && c.x1 > x)) crossing++;
    if (crossing <= allowed) {
      if (open) open.x1 = x;
      else bands.push((open = { x0: x, x1: x }));
    } else open = null;
  }
  for (;;) {
    const edges = [xmin, ...bands.flatMap((b) => [b.x0, b.x1]), xmax];
    const failing = bands.length ? [...Array(bands.length + 1).keys()].find((r) => !runningText(lines, edges[2 * r]!, edges[2 * r + 1]!, pageWidth)) : undefined;
    if (failing === undefined) return bands.map((b) => (b.x0 + b.x1) / 2);
    // Drop the narrower band beside the failing region.
    const left = bands[failing - 1];
    const right = bands[failing];
    const drop = !right || (left && left.x1 - left.x0 < right.x1 - right.x0) ? failing - 1 : failing;
    bands.splice(drop, 1);
  }
}

/** The text's extent, robust to a stray mark: the 5th percentile of line starts, the 95th of line ends. */
function extent(lines: Line[]): { left: number; right: number } {
  const starts = lines.map((l) => l.x0).sort((a, b) => a - b);
  const ends = lines.map((l) => l.x1).sort((a, b) => a - b);
  return { left: starts[Math.floor(starts.length * 0.05)] ?? 0, right: ends[Math.ceil(ends.length * 0.95) - 1] ?? 0 };
}

/**
 * Whether the region [from, to] holds running text: at least 15% of the page wide, with enough cells inside
 * it that cover half its width in three words or more (an amount column or a label column does not).
 */
function runningText(lines: Line[], from: number, to: number, pageWidth: number): boolean {
  const width = to - from;
  if (width < pageWidth * 0.15) return false;
  let wide = 0;
  for (const line of lines) if (line.cells.some((c) => c.x0 >= from - 1 && c.x1 <= to + 1 && c.x1 - c.x0 >= width * 0.5 && c.text.split(' ').length >= 3)) wide++;
  return wide >= COLUMN_LINES;
}

/** The running header and footer lines: lines in the top or bottom band of the page. */
export function marginLines(lines: Line[], pageHeight: number): { top: Line[]; bottom: Line[]; body: Line[] } {
  const top: Line[] = [];
  const bottom: Line[] = [];
  const body: Line[] = [];
  for (const line of lines) {
    if (line.y > pageHeight * (1 - MARGIN_BAND)) top.push(line);
    else if (line.y < pageHeight * MARGIN_BAND) bottom.push(line);
    else body.push(line);
  }
  return { top, bottom, body };
}

/** Body font size: the size most characters are set in. */
export function bodySize(lines: Line[]): number {
  const weight = new Map<number, number>();
  for (const l of lines) {
    const k = Math.round(l.size * 2) / 2;
    weight.set(k, (weight.get(k) ?? 0) + l.text.length);
  }
  let best = 10;
  let most = -1;
  for (const [k, w] of weight) if (w > most) [best, most] = [k, w];
  return best;
}

/**
 * Lines → blocks. Headings: short lines set ≥ 15% larger than the body (or bold and alone); levels by
 * size, largest first (`levels` from headingSizes, over the whole document). Tables: two or more
 * consecutive lines with the same number (≥ 2) of cells whose edges line up. Paragraphs: consecutive lines
 * closer than the line pitch allows (looser on OCR pages, `ocr`); a line ending in a hyphen joins the next
 * without it.
 */
export function toBlocks(lines: Line[], body: number, levels: number[], ocr = false): Block[] {
  const blocks: Block[] = [];
  // Line pitch inside a paragraph: the lower quartile of neighbouring baseline distances, at most 1.38 em
  // (single spacing is 1.15–1.35 em). A wider gap ends a paragraph; when every gap is wider (one-line
  // paragraphs, as label lines are) each line is its own paragraph.
  const deltas = lines.slice(1).map((l, k) => lines[k]!.y - l.y).filter((d) => d > 0).sort((a, b) => a - b);
  const pitch = Math.min(deltas[Math.floor(deltas.length / 4)] ?? Infinity, 1.38 * body);
  // OCR baselines and sizes are measured to ±1.5 pt on a poor scan (a text layer's are exact): a paragraph
  // break there needs a clearer gap (paragraph spacing is 1.4 line pitches or more) and size change.
  const [gapRatio, sizeStep] = ocr ? [1.25, Math.max(0.6, body * 0.1)] : [1.06, 0.6];
  const { right } = extent(lines);
  let para: Line[] = [];
  const flushPara = () => {
    if (para.length) blocks.push({ kind: 'paragraph', text: joinLines(para.map((l) => l.text)) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const table = tableRun(lines, i);
    if (table > 1) {
      flushPara();
      blocks.push({ kind: 'table', rows: lines.slice(i, i + table).map((l) => l.cells.map((c) => c.text)) });
      i += table - 1;
      continue;
    }
    if (isHeading(line, body)) {
      flushPara();
      const level = Math.min(6, headingLevel(line.size, levels));
      blocks.push({ kind: 'heading', level, text: line.text });
      continue;
    }
    const prev = para[para.length - 1];
    // A label line ("Date: …", "Total amount due: …") starts a paragraph even when set close to the line
    // before (an address line, another label line), and ends one when it stops 4 em short of the text's
    // right edge (its value did not wrap), so each label keeps its value and nothing else.
    const labels = LABEL_LINE.test(line.text) || (prev && LABEL_LINE.test(prev.text) && prev.x1 < right - 4 * body);
    if (prev && (prev.y - line.y > pitch * gapRatio || Math.abs(prev.size - line.size) > sizeStep || prev.y < line.y || labels)) flushPara();
    para.push(line);
  }
  flushPara();
  return blocks;
}

/** A line that starts with a capitalised label of one to three words and a colon: "Invoice number: …", "Tel.: …". */
const LABEL_LINE = /^\s*[\p{Lu}\p{N}#][\p{L}\p{N}#.\/-]*(?: [\p{L}\p{N}#.\/-]+){0,2}:/u;

/** Sizes within 7% of each other are one heading level (OCR measures sizes only to a few percent). */
const LEVEL_RATIO = 0.93;

/** Heading sizes of the lines, largest first, one per level: sizes within LEVEL_RATIO of a larger one join its level. */
export function headingSizes(lines: Line[], body: number): number[] {
  const sizes = lines.filter((l) => isHeading(l, body)).map((l) => l.size).sort((a, b) => b - a);
  const levels: number[] = [];
  for (const s of sizes) if (!levels.length || s < levels[levels.length - 1]! * LEVEL_RATIO) levels.push(s);
  return levels;
}

/** 1-based level of a heading of `size` among `sizes` (headingSizes). */
function headingLevel(size: number, sizes: number[]): number {
  const k = sizes.findIndex((s) => size >= s * LEVEL_RATIO);
  return k < 0 ? sizes.length + 1 : k + 1;
}

export function isHeading(line: Line, body: number): boolean {
  if (line.text.length > 150 || !/\p{L}/u.test(line.text) || line.cells.length > 1) return false;
  return line.size >= body * 1.15 || (line.bold && line.size >= body && line.text.length < 80 && !/[.:,;]$/.test(line.text));
}

/** How many lines from `i` form a table (0 or 1: none). */
function tableRun(lines: Line[], i: number): number {
  const first = lines[i]!;
  const n = first.cells.length;
  if (n < 2) return 0;
  let k = i + 1;
  while (k < lines.length) {
    const l = lines[k]!;
    if (l.cells.length !== n || l.cells.some((c, j) => !aligned(c, first.cells[j]!))) break;
    k++;
  }
  return k - i;
}

/** Cells of one column: left edges, right edges or centres within 4 pt (text left-, right- or centre-aligned). */
function aligned(a: { x0: number; x1: number }, b: { x0: number; x1: number }): boolean {
  return Math.abs(a.x0 - b.x0) < 4 || Math.abs(a.x1 - b.x1) < 4 || Math.abs((a.x0 + a.x1) / 2 - (b.x0 + b.x1) / 2) < 4 || (a.x0 < b.x1 && b.x0 < a.x1);
}

/** Joins the lines of a paragraph; "infor-" + "mation" becomes "information" (a hyphen before a lower-case letter). */
export function joinLines(lines: string[]): string {
  let out = '';
  for (const line of lines) {
    const t = line.trim();
    if (!out) out = t;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(t)) out = out.slice(0, -1) + t;
    else out += ' ' + t;
  }
  return out;
}

/** Text of a margin line with digits folded, so "Page 1" and "Page 2" repeat. */
export function marginKey(text: string): string {
  return text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
}
