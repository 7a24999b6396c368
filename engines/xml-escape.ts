// Escaping user text for XML (ODF and DOCX parts, SVG charts and barcodes, XMP packets): the one copy of these rules.
// XML 1.0 allows tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD and U+10000–U+10FFFF. Lone surrogates and the
// other C0 controls cannot be written at all (not even as character references), so they are dropped.
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** Drops the characters XML 1.0 cannot carry (controls, lone surrogates, U+FFFE/U+FFFF). */
export function xmlSafe(text: string): string {
  return text.replace(NOT_XML, '');
}

const TEXT_ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
// In attributes tab/LF/CR are referenced too: attribute-value normalisation would turn them into spaces.
const ATTR_ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

export function escapeText(text: string): string {
  return xmlSafe(text).replace(/[&<>]/g, (c) => TEXT_ESC[c]!);
}

export function escapeAttr(value: string): string {
  return xmlSafe(value).replace(/[&<>"\t\n\r]/g, (c) => ATTR_ESC[c]!);
}

const ANY_QUOTE_ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** For XML built by hand (DOCX parts, templates): element content, or an attribute value in either quote. */
export function escapeXml(text: string): string {
  return xmlSafe(text).replace(/[&<>"']/g, (c) => ANY_QUOTE_ESC[c]!);
}

