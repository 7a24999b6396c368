// Error codes of docx.replace-placeholders (the job's errorCode), with what each means.
export const TEMPLATE_ERRORS = {
  INVALID_TEMPLATE: 'The template is not a readable DOCX or ODT package (damaged ZIP, malformed XML, a DTD, a missing main part).',
  TEMPLATE_TOO_LARGE: 'The template package breaks a limit: too many entries, too large unpacked, or an entry that inflates suspiciously much (zip bomb).',
  TABLE_COLUMNS_MISMATCH: 'A row of a table variable lacks a column the template row uses, or has one it does not use.',
  TABLE_ROW_NOT_FOUND: 'A table placeholder {{<table>.<column>}} is not inside a table row, or one row mixes two table variables.',
  INVALID_IMAGE: 'An image variable\'s file is not a usable PNG, JPEG, GIF, BMP or safe SVG, or is too large in pixels.',
  OFFICE_CONVERSION_FAILED: 'LibreOffice could not convert the filled document to the requested outputFormat.',
  OFFICE_CONVERSION_TIMEOUT: 'LibreOffice did not finish the conversion within its deadline (QUIRE_LIBREOFFICE_TIMEOUT_MS); it was restarted.',
  OFFICE_UNAVAILABLE: 'LibreOffice could not be started for the conversion.',
};
