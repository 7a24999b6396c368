// Reads a bulk-render variables file (CSV, a JSON array of objects, or an XLSX workbook) into one item of template
// variables per row or element. The kind is decided by the bytes, never by a name; docs/bulk-file-format.md has the rules.
import { parse as parseCsv } from 'csv-parse/sync';
import { ACCEPTED_KINDS, TableFileError } from './table-file-error.js';
import { planHeader, reservedKeyPath } from './table-values.js';
import { readXlsxTable, workbookEntries, type Table, type TableRow } from './xlsx-table.js';

export { TableFileError } from './table-file-error.js';

export interface ItemRow {
  /** 0-based position among the items. */
  index: number;
  /** The row a person sees: the spreadsheet row (header = 1) for CSV and XLSX, the array position + 1 for JSON. */
  row: number;
  values?: Record<string, unknown>;
  /** Set instead of `values` when this row cannot be used; names the row. */
  error?: string;
}

export interface ReadItemsResult {
  kind: 'csv' | 'json' | 'xlsx';
  items: ItemRow[];
}

export async function readItems(bytes: Uint8Array, opts: { maxItems: number }): Promise<ReadItemsResult> {
  const kind = await read(bytes);
  const count = kind.kind === 'json' ? kind.elements.length : kind.table.rows.length;
  // Counted before any values are built, so that an oversized file costs no more than its parse.
  if (count > opts.maxItems) {
    throw new TableFileError('LIMIT_EXCEEDED', `the file has ${count} ${kind.kind === 'json' ? 'elements' : 'rows'}; a bulk render takes at most ${opts.maxItems}`);
  }
  if (count === 0) throw new TableFileError('VALIDATION_FAILED', kind.kind === 'json' ? 'the file is an empty array' : 'the file has a header but no rows');
  return { kind: kind.kind, items: kind.kind === 'json' ? jsonItems(kind.elements) : tableItems(kind.table) };
}

type ReadKind = { kind: 'json'; elements: unknown[] } | { kind: 'csv' | 'xlsx'; table: Table };

async function read(bytes: Uint8Array): Promise<ReadKind> {
  if (isZip(bytes)) {
    const entries = workbookEntries(bytes);
    if (!entries) throw unsupported('the file is a ZIP archive without a workbook (xl/workbook.xml), such as a DOCX or an ODS');
    return { kind: 'xlsx', table: await readXlsxTable(entries) };
  }
  const text = decodeText(bytes).replace(/^\ufeff/, '');
  if (text.trimStart().startsWith('[')) return { kind: 'json', elements: jsonArray(text) };
  return { kind: 'csv', table: csvTable(text) };
}

function unsupported(what: string): TableFileError {
  return new TableFileError('UNSUPPORTED_MEDIA_TYPE', `${what}; ${ACCEPTED_KINDS}`);
}

function isZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6));
}

/** The bytes as UTF-8 text, or UNSUPPORTED_MEDIA_TYPE for anything that is not text (a PDF, an image, invalid UTF-8). */
function decodeText(bytes: Uint8Array): string {
  if (bytes.length >= 5 && String.fromCharCode(...bytes.subarray(0, 5)) === '%PDF-') throw unsupported('the file is a PDF');
  let text: string;
  try {
    // ignoreBOM keeps a leading BOM in the text, so that it is removed once, by us, for both CSV and JSON.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw unsupported('the file is neither an XLSX workbook nor UTF-8 text');
  }
  // Control characters other than tab, line feed, vertical tab, form feed and carriage return mean binary data.
  if (/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text)) throw unsupported('the file holds binary data, not text');
  return text;
}

function jsonArray(text: string): unknown[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new TableFileError('VALIDATION_FAILED', `the file starts with [ but is not valid JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(data)) throw new TableFileError('VALIDATION_FAILED', 'the file must be a JSON array of objects');
  return data;
}

function jsonItems(data: unknown[]): ItemRow[] {
  return data.map((el: unknown, index): ItemRow => {
    const row = index + 1;
    if (el === null || typeof el !== 'object' || Array.isArray(el)) {
      return { index, row, error: `row ${row}: the element is ${el === null ? 'null' : Array.isArray(el) ? 'an array' : `a ${typeof el}`}, not an object of variables` };
    }
    const reserved = reservedKeyPath(el);
    if (reserved) return { index, row, error: `row ${row}: the key ${reserved} uses a reserved name (__proto__, constructor and prototype are refused)` };
    return { index, row, values: el as Record<string, unknown> };
  });
}

/** RFC 4180 records as a table of strings; a row whose field count differs from the header's is an error of that row. */
function csvTable(text: string): Table {
  let records: string[][];
  try {
    records = parseCsv(text, {
      // Our own checks: ragged rows are errors of their row, empty lines are skipped but still count as rows.
      relax_column_count: true,
      skip_empty_lines: false,
      // LF, CRLF and CR may be mixed (a file edited on two systems); the first one seen must not rule the rest.
      record_delimiter: ['\r\n', '\n', '\r'],
    }) as string[][];
  } catch (e) {
    throw new TableFileError('VALIDATION_FAILED', `the CSV could not be read: ${(e as Error).message}`);
  }
  const isEmpty = (r: string[]) => r.every((f) => f.trim() === '');
  const headerAt = records.findIndex((r) => !isEmpty(r));
  if (headerAt < 0) throw new TableFileError('VALIDATION_FAILED', 'the file is empty; its first row must name the variables');
  const header = records[headerAt]!;
  const rows: TableRow[] = [];
  for (let i = headerAt + 1; i < records.length; i++) {
    const r = records[i]!;
    if (isEmpty(r)) continue;
    const row = i + 1;
    if (r.length !== header.length) rows.push({ row, cells: r, error: `row ${row}: has ${r.length} field${r.length === 1 ? '' : 's'}; the header has ${header.length}` });
    else rows.push({ row, cells: r });
  }
  return { header, rows };
}

function tableItems(table: Table): ItemRow[] {
  const plan = planHeader(table.header);
  return table.rows.map((r, index): ItemRow => {
    if (r.error) return { index, row: r.row, error: r.error };
    const values = plan.build(r.cells);
    const reserved = reservedKeyPath(values);
    if (reserved) return { index, row: r.row, error: `row ${r.row}: a JSON cell has the key ${reserved}, a reserved name (__proto__, constructor and prototype are refused)` };
    return { index, row: r.row, values };
  });
}
