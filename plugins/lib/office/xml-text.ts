// User text inside XML the office writers build by hand: escaped, and without the control characters XML 1.0 forbids.

/** Escapes text for element content or a quoted attribute; drops C0 controls other than tab, LF and CR (not allowed in XML 1.0). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g, (c) => XML_ESCAPES[c] ?? '');
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
