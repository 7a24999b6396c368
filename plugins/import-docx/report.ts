// The import quality report: warnings with codes and locations, what was dropped, the placeholders kept as variables, and a 0–100 score.
import { DOCUMENT_LIMITS } from '../../contracts/document-json.js';

/** Every code the report uses: how much one occurrence costs the score, the most it can cost, and what it means (docs/import.md lists them). */
export const REPORT_CODES = {
  UNDERLINE_DROPPED: { weight: 0.5, cap: 5, meaning: 'Underlined text kept without the underline (document JSON has no underline markup).' },
  STRIKE_DROPPED: { weight: 0.5, cap: 5, meaning: 'Struck-through text kept without the strike.' },
  TEXT_BOX_DROPPED: { weight: 5, cap: 25, meaning: 'A text box (floating frame) was left out, with its text.' },
  SHAPE_DROPPED: { weight: 3, cap: 20, meaning: 'A drawing shape, SmartArt, chart, OLE object or VML picture was left out.' },
  MATH_DROPPED: { weight: 4, cap: 20, meaning: 'An equation (OMML) was left out.' },
  COMMENT_DROPPED: { weight: 0.5, cap: 5, meaning: 'A comment was left out (its anchored text is kept).' },
  TRACKED_DELETION_DROPPED: { weight: 0, cap: 0, meaning: 'Deleted text of a tracked change was left out (changes are accepted).' },
  TRACKED_INSERTION_ACCEPTED: { weight: 0, cap: 0, meaning: 'Inserted text of a tracked change was kept (changes are accepted).' },
  ENDNOTE_AS_FOOTNOTE: { weight: 0.5, cap: 5, meaning: 'An endnote became a footnote.' },
  IMAGE_UNSUPPORTED: { weight: 5, cap: 25, meaning: 'An image in a format documents cannot hold (EMF, WMF, TIFF, …), too large in pixels, or missing from the package was left out.' },
  IMAGE_IN_TABLE_DROPPED: { weight: 3, cap: 15, meaning: 'An image inside a table cell was left out (cells hold text).' },
  NESTED_TABLE_FLATTENED: { weight: 3, cap: 15, meaning: 'A table inside a table cell became text of that cell.' },
  LINK_DROPPED: { weight: 0.5, cap: 5, meaning: 'A link to a bookmark or a non-web address became plain text.' },
  FORMATTING_SIMPLIFIED: { weight: 1, cap: 5, meaning: 'Emphasis that the markup cannot express at that place was dropped (text kept).' },
  LIST_DEPTH_CLAMPED: { weight: 1, cap: 5, meaning: 'A list item deeper than 6 levels was moved up to level 6.' },
  LIST_KIND_MIXED: { weight: 0.5, cap: 3, meaning: 'A nested level numbered differently from its list (bullets in a numbered list or the reverse) takes the list\'s kind.' },
  TABLE_REPAIRED: { weight: 2, cap: 10, meaning: 'A table row was padded or cut to the table\'s column count.' },
  TEXT_TRUNCATED: { weight: 5, cap: 20, meaning: 'A paragraph, cell, heading, header or footer was longer than document JSON allows and was cut.' },
  PAGE_SIZE_APPROXIMATED: { weight: 2, cap: 2, meaning: 'The page size is not one of A4, A3, A5, Letter, Legal; the nearest was taken.' },
  MARGIN_CLAMPED: { weight: 1, cap: 2, meaning: 'A page margin outside 0–10 cm was clamped.' },
  HEADER_VARIANTS_DROPPED: { weight: 1, cap: 3, meaning: 'First-page or even-page headers/footers, or those of later sections, were left out; the default one is kept.' },
  SECTION_SETTINGS_MERGED: { weight: 1, cap: 3, meaning: 'Later sections with other page settings take the last section\'s settings; a section break became a page break.' },
  FIELD_RESULT_KEPT: { weight: 0, cap: 0, meaning: 'A field (table of contents, cross-reference, date, …) was kept as the text it last showed.' },
  CONTENT_SPLIT: { weight: 0, cap: 0, meaning: 'The body had more elements than one section holds; it continues in further sections.' },
  PLACEHOLDER_KEPT_LITERAL: { weight: 1, cap: 5, meaning: 'A placeholder with a name past the 500th (the most variables a document holds) stayed literal text.' },
} as const;

export type ReportCode = keyof typeof REPORT_CODES;

export interface ReportWarning {
  code: ReportCode;
  /** Where in the package: part name plus paragraph/table position, e.g. `word/document.xml paragraph 12`. */
  location: string;
  message: string;
}

/** At most this many warnings are listed one by one; the counts in `dropped` and the score cover all. */
const MAX_LISTED = 200;

export class ImportReport {
  readonly #warnings: ReportWarning[] = [];
  readonly #counts = new Map<ReportCode, number>();
  /** Placeholders made variables: name → occurrences, in order of first use. */
  readonly #variables = new Map<string, number>();
  #location: () => string = () => '';

  /** Where findings of `variable()` are, set by the converter (the same location its own warnings use). */
  locate(location: () => string): void {
    this.#location = location;
  }

  /** Counts one placeholder made a variable; false (and a warning) for a new name past the document's variable limit. */
  variable(name: string): boolean {
    const seen = this.#variables.get(name);
    if (seen === undefined && this.#variables.size >= DOCUMENT_LIMITS.variables) {
      this.warn('PLACEHOLDER_KEPT_LITERAL', this.#location(), `The placeholder "${name}" stayed text: the document already has ${DOCUMENT_LIMITS.variables} variables.`);
      return false;
    }
    this.#variables.set(name, (seen ?? 0) + 1);
    return true;
  }

  /** The names of the placeholders made variables, in order of first use. */
  variableNames(): string[] {
    return [...this.#variables.keys()];
  }

  warn(code: ReportCode, location: string, message: string): void {
    this.#counts.set(code, (this.#counts.get(code) ?? 0) + 1);
    if (this.#warnings.length < MAX_LISTED) this.#warnings.push({ code, location, message });
  }

  count(code: ReportCode): number {
    return this.#counts.get(code) ?? 0;
  }

  toJSON(summary: Record<string, number>): Record<string, unknown> {
    let penalty = 0;
    for (const [code, n] of this.#counts) penalty += Math.min(REPORT_CODES[code].cap, REPORT_CODES[code].weight * n);
    const total = [...this.#counts.values()].reduce((a, b) => a + b, 0);
    return {
      score: Math.max(0, Math.floor(100 - penalty)),
      summary,
      warnings: this.#warnings,
      warningsOmitted: total - this.#warnings.length,
      dropped: [...this.#counts].map(([code, count]) => ({ code, count, meaning: REPORT_CODES[code].meaning })),
      variables: [...this.#variables].map(([name, occurrences]) => ({ name, occurrences })),
    };
  }
}
