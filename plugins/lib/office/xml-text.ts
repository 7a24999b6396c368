// User text inside XML: escaped where the office writers build XML by hand, and stripped of the characters
// XML 1.0 cannot carry at all (C0 controls other than tab/LF/CR, U+FFFE, U+FFFF) wherever it goes.

const NOT_XML = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g;

/** Text without the characters XML 1.0 forbids (docx drops the controls itself, but not U+FFFE/U+FFFF). */
export function xmlChars(text: string): string {
  return text.replace(NOT_XML, '');
}

/** Escapes text for element content or a quoted attribute, after dropping what XML cannot carry. */
export function escapeXml(text: string): string {
  return xmlChars(text).replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
