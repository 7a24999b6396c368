// Document JSON → Extended Markdown: front matter for settings, directives for what Markdown lacks, the Markdown inline syntax for markup.
import YAML from 'yaml';
import type { DocumentJson, Element, ListItem, Section, TableCell, TableElement } from '../../contracts/document-json.js';
import { parseInline } from '../inline-markup.js';
import { formatAttributeList } from './attributes.js';
import { fitInline, trimEdges } from './inline-tree.js';
import { canonicalMarkup } from './json-markup.js';
import { printMarkdown } from './markdown-inline.js';
import { cellText, headingLevel, rowCells, visitElement, type ElementHandlers } from '../element-visitor.js';

/** Writes a document as Extended Markdown; parseMarkdown reads it back to the same document (after normalizeDocument). */
export function serializeMarkdown(doc: DocumentJson): string {
  const blocks: string[] = [];
  const front = frontMatter(doc);
  if (front) blocks.push(front);
  let previousBare = false;
  for (const section of doc.sections ?? []) {
    const body = new ElementWriter(!front && blocks.length === 0).write(section.content);
    const bare: boolean = section.type === 'flow' && section.id === undefined && section.columns === undefined && section.newPage !== false && body.length > 0 && !previousBare;
    previousBare = bare;
    if (bare) {
      blocks.push(...body);
      continue;
    }
    const fence = containerFence(body);
    blocks.push([`${fence}${sectionOpening(section)}`, ...body, fence].join('\n\n'));
  }
  return blocks.length ? `${blocks.join('\n\n')}\n` : '';
}

/** The colons of a container around `body`: more than any line of colons inside it (a nested container's end, a line in a code block), at least three. */
function containerFence(body: readonly string[]): string {
  let longest = 2;
  for (const b of body) for (const m of b.matchAll(/^[ \t]*(:{3,})[ \t]*$/gm)) longest = Math.max(longest, m[1]!.length);
  return ':'.repeat(longest + 1);
}

function frontMatter(doc: DocumentJson): string {
  const data: Record<string, unknown> = {};
  const settings = doc.document ?? { type: 'pdf' };
  if (Object.keys(settings).some((k) => k !== 'type') || settings.type !== 'pdf') data.document = settings;
  for (const key of ['variables', 'abbreviations', 'citations', 'defaults'] as const) if (doc[key] !== undefined) data[key] = doc[key];
  if (!Object.keys(data).length) return '';
  return `---\n${YAML.stringify(data, { lineWidth: 0, aliasDuplicateObjects: false })}---`;
}

function sectionOpening(section: Section): string {
  if (section.type === 'page') return `page${formatAttributeList([['id', section.id], ['align', section.align], ['startY', section.startY]])}`;
  return `section${formatAttributeList([
    ['id', section.id],
    ['newPage', section.newPage],
    ['columns', section.columns?.count],
    ['space', section.columns?.space],
    ['separate', section.columns?.separate],
  ])}`;
}

// ---------------------------------------------------------------- inline fields

interface FieldOptions {
  singleLine?: boolean;
  table?: boolean;
  /** In a quote a line starting with an em dash would read as the attribution. */
  quote?: boolean;
}

/** A markup field as Markdown lines (a line break in the field ends a line). */
function inlineLines(markup: string, options: FieldOptions = {}): string[] {
  const tree = trimEdges(fitInline(parseInline(canonicalMarkup(markup, options)), options));
  const text = printMarkdown(tree, { table: options.table });
  return options.table ? [text] : text.split('\n').map((line) => escapeLineStart(line, options.quote ?? false));
}

/** What would start a block at the beginning of a line is escaped (or written as a character reference). */
function escapeLineStart(line: string, quote: boolean): string {
  const first = line[0];
  if (first === ' ' || first === '\t') return `&#${first === ' ' ? 32 : 9};${line.slice(1)}`;
  if (first !== undefined && '#>+=:|-'.includes(first)) return `\\${line}`;
  const ordered = /^(\d{1,9})([.)])/.exec(line);
  if (ordered) return `${ordered[1]}\\${line.slice(ordered[1]!.length)}`;
  if (quote && first === '—') return `&#8212;${line.slice(1)}`;
  return line;
}

// ---------------------------------------------------------------- elements

class ElementWriter {
  #lastList: { ordered: boolean; marker: string } | null = null;

  /** `atStart`: nothing precedes (no front matter), so `---` would open front matter. */
  constructor(private atStart: boolean) {}

  write(content: readonly Element[]): string[] {
    const out: string[] = [];
    for (const element of content) {
      const block = this.element(element);
      if (block === null) continue;
      if (element.type !== 'list') this.#lastList = null;
      out.push(block);
      this.atStart = false;
    }
    return out;
  }

  element(el: Element): string | null {
    return visitElement(el, this.#markdown) ?? null;
  }

  readonly #markdown: ElementHandlers<string | null> = {
    heading: (el) => {
      let text = inlineLines(el.text, { singleLine: true })[0] ?? '';
      if (text.endsWith('#')) text = `${text.slice(0, -1)}\\#`;
      const attributes = formatAttributeList([['id', el.id], ['align', el.align]]);
      return `${'#'.repeat(headingLevel(el))} ${text}${attributes ? ` ${attributes}` : ''}`.replace(/[ \t]+$/, '');
    },
    text: (el) => {
      const lines = inlineLines(el.text);
      if (!lines.join('')) return null;
      const attributes = formatAttributeList([
        ['align', el.align],
        ['bold', el.style?.bold],
        ['italic', el.style?.italic],
        ['fontSize', el.style?.fontSize],
        ['fontFamily', el.style?.fontFamily],
        ['color', el.style?.color],
      ]);
      return [...lines, ...(attributes ? [attributes] : [])].join('\n');
    },
    list: (el) => this.list(el.items, el.ordered ?? false, el.start ?? 1),
    table: (el) => table(el),
    image: (el) => {
      const alt = printMarkdown([{ t: 'text', v: el.alt }]);
      const attributes = formatAttributeList([['width', el.width], ['height', el.height], ['caption', el.caption], ['id', el.id], ['align', el.align]]);
      return `![${alt}](${destination(el.src)})${attributes}`;
    },
    chart: (el) => {
      const { type: _type, ...body } = el;
      const yaml = YAML.stringify(body, { lineWidth: 0, aliasDuplicateObjects: false });
      const fence = fenceFor(yaml, '`');
      return `${fence}chart\n${yaml}${fence}`;
    },
    code: (el) => {
      const plainLanguage = el.language !== undefined && el.language !== 'chart';
      const attributes = formatAttributeList([['language', plainLanguage ? undefined : el.language], ['caption', el.caption], ['id', el.id], ['lineNumbers', el.lineNumbers]]);
      const info = infoString([plainLanguage ? el.language : '', attributes].filter(Boolean).join(' '));
      const fence = info.includes('`') ? fenceFor(el.code, '~') : fenceFor(el.code, '`');
      return `${fence}${info}\n${el.code}\n${fence}`;
    },
    math: (el) => {
      const attributes = formatAttributeList([['id', el.id], ['caption', el.caption], ['display', el.display === false ? false : undefined]]);
      let longest = 1;
      for (const m of el.latex.matchAll(/\$+/g)) longest = Math.max(longest, m[0].length);
      const fence = '$'.repeat(longest + 1);
      // A `$` would end the opening fence: written as a reference, which the fence info decodes.
      return `${fence}${attributes ? ` ${infoString(attributes).replace(/\$/g, '&#36;')}` : ''}\n${el.latex}\n${fence}`;
    },
    quote: (el) => {
      const lines = el.text ? inlineLines(el.text, { quote: true }) : [];
      const attribution = el.attribution ? inlineLines(el.attribution, { singleLine: true })[0] : '';
      if (attribution) lines.push(`— ${attribution}`);
      const attributes = formatAttributeList([['align', el.align]]);
      if (attributes) lines.push(attributes);
      const body = lines.filter((l, i) => l || i < lines.length - 1);
      return body.length ? body.map((l) => `> ${l}`.replace(/[ \t]+$/, '')).join('\n') : '>';
    },
    divider: () => (this.atStart ? '***' : '---'),
    pageBreak: () => '::pagebreak',
    spacer: (el) => `::spacer${formatAttributeList([['height', el.height]])}`,
    toc: (el) => `::toc${formatAttributeList([['title', el.title], ['depth', el.depth]])}`,
    listOfFigures: (el) => `::lof${formatAttributeList([['title', el.title]])}`,
    listOfTables: (el) => `::lot${formatAttributeList([['title', el.title]])}`,
    bibliography: (el) => `::bibliography${formatAttributeList([['title', el.title], ['style', el.style]])}`,
    qrCode: (el) => `::qr${formatAttributeList([['value', el.value], ['size', el.size], ['caption', el.caption], ['align', el.align]])}`,
    barcode: (el) => `::barcode${formatAttributeList([['value', el.value], ['format', el.format], ['showText', el.showText], ['height', el.height], ['align', el.align]])}`,
    variableRef: (el) => `::var${formatAttributeList([['name', el.name]])}`,
    blockRef: (el) => {
      const attributes = formatAttributeList([['id', el.blockId], ['mode', el.mode], ['version', el.version]], false);
      if (el.content === undefined) return `::block${attributes}`;
      // A saved snapshot: its content written out inside a container longer than any container it holds.
      const body = new ElementWriter(false).write(el.content as unknown as Element[]);
      const fence = containerFence(body);
      return [`${fence}block${attributes}`, ...body, fence].join('\n\n');
    },
  };

  /** A list; two lists in a row use different markers so that Markdown keeps them apart. */
  list(items: readonly ListItem[], ordered: boolean, start: number): string {
    const last = this.#lastList;
    const markers = ordered ? ['.', ')'] : ['-', '*'];
    const marker = last && last.ordered === ordered && last.marker === markers[0] ? markers[1]! : markers[0]!;
    this.#lastList = { ordered, marker };
    return listLines(items, ordered, start, marker).join('\n');
  }
}

function listLines(items: readonly ListItem[], ordered: boolean, start: number, marker: string): string[] {
  const out: string[] = [];
  items.forEach((item, i) => {
    const text = typeof item === 'string' ? item : item.text;
    const bullet = ordered ? `${start + i}${marker}` : marker;
    const indent = ' '.repeat(bullet.length + 1);
    let lines = inlineLines(text);
    const task = /^([☐☑]) (?=\S)/.exec(lines[0] ?? '');
    if (task) lines = [`[${task[1] === '☑' ? 'x' : ' '}] ${lines[0]!.slice(2)}`, ...lines.slice(1)];
    // An empty item cannot interrupt a paragraph (it would read as a setext underline): a space reference keeps it an item.
    out.push(`${bullet} ${lines[0] || '&#32;'}`);
    for (const line of lines.slice(1)) out.push(`${indent}${line}`);
    if (typeof item !== 'string' && item.items?.length) for (const line of listLines(item.items, ordered, 1, marker)) out.push(`${indent}${line}`);
  });
  return out;
}

/** A fence's info string is read with backslash escapes decoded (references are the attribute list's). */
function infoString(info: string): string {
  return info.replace(/\\/g, '\\\\');
}

function fenceFor(content: string, char: '`' | '~'): string {
  let longest = 2;
  const run = char === '`' ? /`+/g : /~+/g;
  for (const m of content.matchAll(run)) longest = Math.max(longest, m[0].length);
  return char.repeat(longest + 1);
}

function destination(url: string): string {
  return url.replace(/[\\()<>&\s]/g, (c) => (/\s/.test(c) ? encodeURIComponent(c) : `\\${c}`));
}

// ---------------------------------------------------------------- tables

const DELIMITER: Record<string, string> = { left: ':--', center: ':-:', right: '--:' };

function table(el: TableElement): string {
  const headerRows = countHeaderRows(el);
  const rows = (el.rows ?? []).map(rowCells);
  const width = el.columns?.length ?? rows[0]?.reduce<number>((n, c) => n + span(c, 'colspan'), 0) ?? 0;
  const directive = el.rowsFrom !== undefined || !rows.length || width === 0;
  // Column alignments ride on the GFM delimiter row; `aligns` carries them where it cannot (justify, or no GFM table).
  const columns = el.columns ?? [];
  const widths = columns.some((c) => c.width !== undefined) ? columns.map((c) => (c.width === undefined ? '-' : String(c.width))).join(' ') : undefined;
  const aligns = columns.some((c) => c.align === 'justify' || (directive && c.align !== undefined)) ? columns.map((c) => c.align ?? '-').join(' ') : undefined;
  const settings = (extra: Array<[string, string | number | boolean | undefined]>) =>
    formatAttributeList([['id', el.id], ['caption', el.caption], ['align', el.align], ['widths', widths], ['aligns', aligns], ...extra]);
  if (directive) return `::table${settings([['headerRows', el.headerRows], ['rowsFrom', el.rowsFrom]])}`;
  // Lay the cells out on the grid; positions covered by a span are written as empty cells.
  const grid: string[][] = [];
  let down: number[] = new Array<number>(width).fill(0);
  for (const cells of rows) {
    const line: string[] = new Array<string>(width).fill('');
    const next = down.map((n) => Math.max(0, n - 1));
    let c = 0;
    for (const cell of cells) {
      while (c < width && (down[c] ?? 0) > 0) c++;
      if (c >= width) break;
      const attrs = typeof cell === 'object' ? formatAttributeList([['colspan', cell.colspan], ['rowspan', cell.rowspan], ['align', cell.align]]) : '';
      const body = inlineLines(cellText(cell), { singleLine: true, table: true })[0] ?? '';
      line[c] = [attrs, body].filter(Boolean).join(' ');
      const cs = span(cell, 'colspan');
      const rs = span(cell, 'rowspan');
      for (let k = c; k < Math.min(width, c + cs); k++) if (rs > 1) next[k] = rs - 1;
      c += cs;
    }
    grid.push(line);
    down = next;
  }
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const delimiter = Array.from({ length: width }, (_, c) => DELIMITER[el.columns?.[c]?.align ?? ''] ?? '---');
  const lines = [row(grid[0]!), `| ${delimiter.join(' | ')} |`, ...grid.slice(1).map(row)];
  const attrs = settings([['headerRows', headerRows === 1 ? undefined : headerRows]]);
  return attrs ? `${lines.join('\n')}\n\n${attrs}` : lines.join('\n');
}

function span(cell: TableCell, key: 'colspan' | 'rowspan'): number {
  return typeof cell === 'object' && Number.isInteger(cell[key]) && cell[key]! > 0 ? cell[key]! : 1;
}

/** headerRows plus the leading rows marked header: true. */
export function countHeaderRows(el: TableElement): number {
  const rows = el.rows ?? [];
  let n = 0;
  while (n < rows.length) {
    const row = rows[n]!;
    if (n < (el.headerRows ?? 0) || (!Array.isArray(row) && row.header === true)) n++;
    else break;
  }
  return Math.max(n, el.headerRows ?? 0);
}
