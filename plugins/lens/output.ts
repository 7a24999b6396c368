// Lens text → the three OCR formats: Markdown, Extended Markdown with document settings, document JSON.
import { DOCUMENT_LIMITS as L, PAGE_SIZES, type DocumentJson } from '../../contracts/document-json.js';
import type { Block, PageText } from './layout.js';

/**
 * Escapes text for Markdown and for Quire's inline markup: every ASCII punctuation character that opens
 * syntax (emphasis, code, links, HTML, tables, math, variables, abbreviations, citations, footnotes) gets a
 * backslash, and a line start that would open a heading, list or quote is escaped too. Text is data.
 */
export function escapeInline(text: string): string {
  return text
    .replace(/[\\`*_[\]<>|~$^{}]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([#>+-]|\d+[.)])/, (_m, sp: string, mark: string) => `${sp}${mark.replace(/([#>+\-.)])$/, '\\$1')}`);
}

function blockMd(b: Block): string {
  switch (b.kind) {
    case 'heading':
      return `${'#'.repeat(b.level)} ${escapeInline(b.text)}`;
    case 'paragraph':
      return escapeInline(b.text);
    case 'list':
      return b.items.map((t, i) => `${b.ordered ? `${i + 1}.` : '-'} ${escapeInline(t)}`).join('\n');
    case 'table': {
      const width = Math.max(...b.rows.map((r) => r.length));
      const row = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => escapeInline(r[i] ?? '')).join(' | ')} |`;
      return [row(b.rows[0]!), `|${' --- |'.repeat(width)}`, ...b.rows.slice(1).map(row)].join('\n');
    }
  }
}

/** Standard Markdown of the pages' bodies (running headers and footers left out), pages in order. */
export function toMarkdown(pages: PageText[]): string {
  const parts = pages.flatMap((p) => p.blocks.map(blockMd));
  return parts.length ? parts.join('\n\n') + '\n' : '';
}

/** Markdown as uploaded, normalised: LF line ends, no trailing blanks, at most one empty line in a row. */
export function normaliseMarkdown(text: string): string {
  const t = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n').map((l) => l.replace(/[ \t]+$/, '')).join('\n').replace(/\n{3,}/g, '\n\n').trim();
  return t ? t + '\n' : '';
}

export interface PdfFacts {
  pageSize: { width: number; height: number };
  title: string | null;
  bodySize: number;
}

/** Page size name and orientation closest to the PDF's first page (A4 when none is within 3%). */
function paper(size: { width: number; height: number }): { size: (typeof PAGE_SIZES)[number]; orientation: 'portrait' | 'landscape' } {
  const mm: Record<string, [number, number]> = { A4: [210, 297], A3: [297, 420], A5: [148, 210], Letter: [215.9, 279.4], Legal: [215.9, 355.6] };
  const w = (size.width / 72) * 25.4;
  const h = (size.height / 72) * 25.4;
  const orientation = w > h ? 'landscape' : 'portrait';
  const [short, long] = [Math.min(w, h), Math.max(w, h)];
  for (const name of PAGE_SIZES) {
    const [a, b] = mm[name]!;
    if (Math.abs(a - short) / a < 0.03 && Math.abs(b - long) / b < 0.03) return { size: name, orientation };
  }
  return { size: 'A4', orientation };
}

/** A running header/footer line as a document template: a page number becomes {{page}}. */
function running(lines: string[][]): { text: string } | undefined {
  const first = lines.find((l) => l.length)?.join(' ');
  if (!first) return undefined;
  const text = escapeInline(first).replace(/\b\d+\s*(of|\/)\s*\d+\b/i, '{{page}} $1 {{pages}}').replace(/^(Page\s*)?\d+$/i, '$1{{page}}');
  return { text: text.slice(0, L.headerFooterLength) };
}

function documentParts(pages: PageText[], facts: PdfFacts) {
  const { size, orientation } = paper(facts.pageSize);
  const header = running(pages.map((p) => p.header));
  const footer = running(pages.map((p) => p.footer));
  return {
    document: { type: 'pdf' as const, ...(facts.title ? { title: facts.title.slice(0, L.titleLength) } : {}), size, orientation },
    defaults: { fonts: { size: Math.min(72, Math.max(6, Math.round(facts.bodySize * 2) / 2)) }, ...(header ? { header } : {}), ...(footer ? { footer } : {}) },
  };
}

/** Extended Markdown: YAML front matter with the document settings, defaults and running header/footer, then the body. */
export function toExtendedMarkdown(pages: PageText[], facts: PdfFacts): string {
  const { document, defaults } = documentParts(pages, facts);
  // JSON strings are valid YAML scalars: quoting user text this way keeps it data.
  const y = (v: unknown) => JSON.stringify(v);
  const front = ['---', 'document:', ...Object.entries(document).map(([k, v]) => `  ${k}: ${y(v)}`), 'defaults:', ...Object.entries(defaults).map(([k, v]) => `  ${k}: ${y(v)}`), '---'];
  return `${front.join('\n')}\n\n${toMarkdown(pages)}`;
}

/** Document JSON: one flow section per page (each after the first starting a new page), elements in reading order. */
export function toDocumentJson(pages: PageText[], facts: PdfFacts): DocumentJson {
  const { document, defaults } = documentParts(pages, facts);
  const sections = pages.map((p, i) => ({ type: 'flow' as const, newPage: i > 0, content: p.blocks.slice(0, L.flowElements).map(element) }));
  return { document, defaults, sections } as DocumentJson;
}

function element(b: Block): Record<string, unknown> {
  switch (b.kind) {
    case 'heading':
      return { type: `h${b.level}`, text: escapeInline(b.text).slice(0, L.headingLength) };
    case 'paragraph':
      return { type: 'text', text: escapeInline(b.text).slice(0, L.textLength) };
    case 'list':
      return { type: 'list', ordered: b.ordered, items: b.items.slice(0, L.listItems).map((t) => escapeInline(t).slice(0, L.cellLength)) };
    case 'table': {
      const width = Math.min(L.tableColumns, Math.max(...b.rows.map((r) => r.length)));
      const rows = b.rows.slice(0, L.tableRows).map((r) => Array.from({ length: width }, (_, i) => escapeInline(r[i] ?? '').slice(0, L.cellLength)));
      return { type: 'table', headerRows: 1, rows };
    }
  }
}
