// The office formats LibreOffice converts between here: file extension, MIME type and LibreOffice filter names.

export type OfficeFormat = 'docx' | 'odt' | 'pdf';

export const OFFICE_FORMATS: readonly OfficeFormat[] = ['docx', 'odt', 'pdf'];

interface FormatInfo {
  mimeType: string;
  /** Filter used to open a file of this format (null: LibreOffice cannot open it as a text document). */
  importFilter: string | null;
  /** Filter used to save a text document in this format. */
  exportFilter: string;
}

export const FORMAT_INFO: Record<OfficeFormat, FormatInfo> = {
  docx: { mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', importFilter: 'MS Word 2007 XML', exportFilter: 'MS Word 2007 XML' },
  odt: { mimeType: 'application/vnd.oasis.opendocument.text', importFilter: 'writer8', exportFilter: 'writer8' },
  pdf: { mimeType: 'application/pdf', importFilter: null, exportFilter: 'writer_pdf_Export' },
};

/** The office format of a MIME type, or null. */
export function formatOfMime(mimeType: string): OfficeFormat | null {
  return OFFICE_FORMATS.find((f) => FORMAT_INFO[f].mimeType === mimeType) ?? null;
}
