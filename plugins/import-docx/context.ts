// What the conversion of one package carries along: parts, styles, numbering, notes, the report and the current location.
import type { Inline } from '../../document/inline-markup.js';
import { kids, type XmlElement } from '../../engines/office-package/xml.js';
import type { DocxPackage, Relationship } from './package.js';
import type { ImportReport } from './report.js';
import type { Numbering, Styles } from './styles.js';

export interface ImportContext {
  pkg: DocxPackage;
  /** Relationships of the part being converted (the main document). */
  rels: Map<string, Relationship>;
  styles: Styles;
  numbering: Numbering;
  report: ImportReport;
  /** Where the converter is, for warnings: `word/document.xml paragraph 12`. */
  location(): string;
  /** True the first time a flag is raised for the current paragraph (one warning per paragraph, not per run). */
  flag(name: string): boolean;
  footnote(id: string): Inline[] | undefined;
  endnote(id: string): Inline[] | undefined;
  /** True when `{{name}}` / `${name}` in Word's text become variables (`placeholders: "variables"`), false to keep them literal. */
  livePlaceholders: boolean;
  /** True inside a table cell, where images cannot go. */
  inTable: boolean;
}

/** The notes of a footnotes or endnotes part by id, skipping the separator notes Word keeps there. */
export function notesById(part: XmlElement | undefined, tag: 'w:footnote' | 'w:endnote'): Map<string, XmlElement> {
  const out = new Map<string, XmlElement>();
  for (const n of part ? kids(part, tag) : []) {
    const type = n.attrs['w:type'];
    if (type && type !== 'normal') continue;
    if (n.attrs['w:id'] !== undefined) out.set(n.attrs['w:id'], n);
  }
  return out;
}
