// Puts a cache in front of pdf-lib's PDFName.of, which runs a regular expression over every name it parses.
import { PDFName } from 'pdf-lib';

/** Distinct raw names kept; a file inventing more only costs the regular expression again. */
const MAX_CACHED_NAMES = 10_000;

let installed = false;

/**
 * PDFName.of(raw) decodes `#xx` escapes with a regular expression and then looks the result up in
 * pdf-lib's own pool, so the same raw text always gives the same PDFName: caching by raw text
 * changes no result. Names are a fifth of parsing time without it (a page repeats /Type, /Font,
 * /Resources...). Installed once per thread, by the first openPdf.
 */
export function cachePdfNames(): void {
  if (installed) return;
  installed = true;
  const decodeAndIntern = PDFName.of.bind(PDFName);
  const byRawText = new Map<string, PDFName>();
  PDFName.of = (raw: string): PDFName => {
    let name = byRawText.get(raw);
    if (name === undefined) {
      name = decodeAndIntern(raw);
      if (byRawText.size >= MAX_CACHED_NAMES) byRawText.clear();
      byRawText.set(raw, name);
    }
    return name;
  };
}
