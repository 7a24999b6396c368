// The one error of reading a bulk-render variables file: a code the HTTP layer maps to its answer, and a message for the person who uploaded it.

export type TableFileErrorCode = 'UNSUPPORTED_MEDIA_TYPE' | 'VALIDATION_FAILED' | 'LIMIT_EXCEEDED';

export class TableFileError extends Error {
  override name = 'TableFileError';
  constructor(
    readonly code: TableFileErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The sentence every "not a file we read" answer ends with. */
export const ACCEPTED_KINDS = 'a bulk render reads a CSV file (UTF-8), a JSON array of objects or an XLSX workbook';
