// Runs in the table-file reader's thread: one uploaded variables file to items, its refusal returned as plain data
// (a TableFileError thrown here would reach the caller as a bare Error: class identity does not survive postMessage).
import { readItems, TableFileError, type ReadItemsResult } from '../engines/tabular/read-items.js';
import type { TableFileErrorCode } from '../engines/tabular/table-file-error.js';

export type TableFileTaskResult = { ok: true; result: ReadItemsResult } | { ok: false; code: TableFileErrorCode; message: string };

export default async function read(task: { bytes: Uint8Array; maxItems: number }): Promise<TableFileTaskResult> {
  try {
    return { ok: true, result: await readItems(task.bytes, { maxItems: task.maxItems }) };
  } catch (e) {
    if (e instanceof TableFileError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}
