// Reads the first worksheet of an XLSX workbook as a table of typed cells, after checking its ZIP with hard limits so
// that a zip bomb is refused before anything is inflated, and handing exceljs only entries that were checked.
import ExcelJS from 'exceljs';
import { PackageError, entryBytes, readZip, writeZip, type PackageLimits, type ZipEntry } from '../office-package/zip.js';
import { ACCEPTED_KINDS, TableFileError } from './table-file-error.js';

/** Far above any real variables workbook (a 100-row sheet is a few kB), far below what would hurt a reading thread. */
export const XLSX_LIMITS: PackageLimits = { maxEntries: 1000, maxUncompressedBytes: 64 * 1024 * 1024, maxCompressionRatio: 200 };

export interface TableRow {
  /** 1-based spreadsheet row. */
  row: number;
  cells: unknown[];
  error?: string;
}

export interface Table {
  header: string[];
  rows: TableRow[];
}

/** The ZIP's entries when it is a workbook, or undefined when it is some other ZIP (a DOCX, an ODS, an archive). */
export function workbookEntries(bytes: Uint8Array): ZipEntry[] | undefined {
  let entries: ZipEntry[];
  try {
    entries = readZip(bytes, XLSX_LIMITS);
  } catch (e) {
    if (e instanceof PackageError && e.reason === 'LIMIT') throw new TableFileError('LIMIT_EXCEEDED', `the workbook ${e.message}`);
    if (e instanceof PackageError) throw new TableFileError('UNSUPPORTED_MEDIA_TYPE', `the file is a ZIP archive that ${e.message.replace(/\.$/, '')}; ${ACCEPTED_KINDS}`);
    throw e;
  }
  return entries.some((e) => e.name === 'xl/workbook.xml') ? entries : undefined;
}

export async function readXlsxTable(entries: ZipEntry[]): Promise<Table> {
  // Every entry is inflated here, each stopping at its declared size (the sum of those is within the limits), and
  // stored uncompressed in a new archive: exceljs (JSZip) inflates nothing, so a lying header cannot reach it.
  let checked: Uint8Array;
  try {
    checked = writeZip(entries.map((e) => ({ name: e.name, bytes: entryBytes(e), store: true })));
  } catch (e) {
    if (e instanceof PackageError) throw new TableFileError(e.reason === 'LIMIT' ? 'LIMIT_EXCEEDED' : 'VALIDATION_FAILED', `the workbook ${e.message}`);
    throw e;
  }
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(checked.buffer, checked.byteOffset, checked.byteLength) as unknown as ExcelJS.Buffer);
  } catch (e) {
    throw new TableFileError('VALIDATION_FAILED', `the XLSX workbook could not be read (${(e as Error)?.message ?? String(e)})`);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new TableFileError('VALIDATION_FAILED', 'the workbook has no worksheet');
  const headerRow = sheet.getRow(1);
  const header: string[] = [];
  for (let c = 1; c <= headerRow.cellCount; c++) {
    const v = cellValue(headerRow.getCell(c));
    header.push(v.value === undefined ? '' : v.value instanceof Date || typeof v.value !== 'object' ? headerText(v.value) : JSON.stringify(v.value));
  }
  // Empty cells after the last name (formatted but blank, common in workbooks) are not columns.
  while (header.length && header[header.length - 1]!.trim() === '') header.pop();
  const rows: TableRow[] = [];
  for (let r = 2; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    const cells: unknown[] = [];
    let error: string | undefined;
    for (let c = 1; c <= row.cellCount; c++) {
      const v = cellValue(row.getCell(c));
      if (v.value === undefined) continue;
      if (v.error) error ??= `row ${r}: column ${c} holds the spreadsheet error ${v.error}`;
      else if (c > header.length) error ??= `row ${r}: column ${c} has a value but no name in the header`;
      cells[c - 1] = v.value;
    }
    if (cells.length === 0 && !error) continue; // an empty row, like an empty CSV line
    rows.push(error ? { row: r, cells, error } : { row: r, cells });
  }
  return { header, rows };
}

function headerText(v: unknown): string {
  return v instanceof Date ? isoDate(v) : String(v);
}

/** A cell as a variable value: numbers, booleans and strings as they are, dates as ISO text, formulas as their cached result. */
function cellValue(cell: ExcelJS.Cell): { value?: unknown; error?: string } {
  // A merged range holds its value in its first cell only; the others are empty, as in the file.
  if (cell.type === ExcelJS.ValueType.Merge) return {};
  return plain(cell.value);
}

function plain(v: unknown): { value?: unknown; error?: string } {
  if (v === null || v === undefined || v === '') return {};
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return { value: v };
  if (v instanceof Date) return { value: isoDate(v) };
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) return { value: (o.richText as Array<{ text?: string }>).map((r) => r.text ?? '').join('') };
    if ('hyperlink' in o) return plain(o.text);
    if ('formula' in o || 'sharedFormula' in o) return plain(o.result);
    if ('error' in o) return { value: String(o.error), error: String(o.error) };
  }
  return {};
}

/** YYYY-MM-DD, or YYYY-MM-DDTHH:mm:ssZ when the cell has a time of day (exceljs reads serials as UTC). */
function isoDate(d: Date): string {
  // A serial's time is a binary fraction of a day: round to the second it was meant to be.
  const rounded = new Date(Math.round(d.getTime() / 1000) * 1000);
  if (Number.isNaN(rounded.getTime())) return '';
  const iso = rounded.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : `${iso.slice(0, 19)}Z`;
}
