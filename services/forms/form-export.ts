// A form's records as a CSV file: one row per record, columns id, createdAt, jobId and one per field; every text cell a
// spreadsheet would take for a formula is defused.
import { stringify } from 'csv-stringify/sync';
import type { RecordView } from '../../contracts/forms.js';
import type { FormRecord } from '../../kernel/model.js';

/**
 * A text starting with = + - @, a tab or a carriage return is a formula to Excel, LibreOffice and Google Sheets
 * (OWASP "CSV injection"): a leading apostrophe makes it text. Numbers are left alone: a negative number is no formula.
 */
export function defuse(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** One cell: list items one per line, tables as JSON text, images as their URL, booleans true/false. */
function cell(value: unknown): string | number {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return defuse(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return defuse(value.join('\n'));
  if (typeof value === 'object' && !Array.isArray(value) && typeof (value as { url?: unknown }).url === 'string') return (value as { url: string }).url;
  return defuse(JSON.stringify(value));
}

/** The records (as the API shows them) of `form` as CSV with a header row, RFC 4180 quoting, CRLF line ends. */
export function recordsCsv(form: Pick<FormRecord, 'fields'>, records: RecordView[]): string {
  const names = form.fields.map((f) => f.name);
  const rows = records.map((r) => [r.id, r.createdAt, r.jobId ?? '', ...names.map((n) => cell(r.values[n]))]);
  return stringify([['id', 'createdAt', 'jobId', ...names.map(defuse)], ...rows], { record_delimiter: 'windows' });
}
