// The readiness checks of a document's source (no render), as a pure function: the issue codes, the score and
// checkReadiness. Only types come from the schema modules, so the render threads (which refuse a pdfua-1 render
// on the same errors) import this without TypeBox or Ajv; contracts/readiness.ts holds the request and report schemas.
import type { DocumentJson, Element } from '../contracts/document-json.js';
import type { PdfProfile } from '../contracts/render.js';
import type { ReadinessIssue, ReadinessReport } from '../contracts/readiness.js';
import type { FieldError } from '../contracts/errors.js';
import { maskLiterals, scanElement, scanReferences } from './references.js';
import { forEachElement, headingLevel, visitElement, type SomeElementHandlers } from './element-visitor.js';

export type Severity = 'error' | 'warning' | 'info';

/**
 * Every issue code with its severity and meaning (docs/api.md "Readiness" lists them; a test keeps the two
 * equal). `pdfua` is the severity under pdfProfile pdfua-1 where it differs; the errors under pdfua-1 are what a pdfua-1 render refuses (plugins/render-pdf profileProblems).
 */
export const READINESS_CODES = {
  MISSING_TITLE: { severity: 'warning', pdfua: 'error', when: '`document.title` is missing or blank (PDF/UA requires a title; viewers show it instead of the file name)' },
  MISSING_LANGUAGE: { severity: 'warning', when: '`defaults.locale` is missing: the language of the document is not declared (screen readers pick their pronunciation from it)' },
  MISSING_AUTHOR: { severity: 'info', when: '`document.author` is missing' },
  MISSING_SUBJECT: { severity: 'info', when: '`document.subject` is missing' },
  MISSING_KEYWORDS: { severity: 'info', when: '`document.keywords` is missing or empty' },
  IMAGE_DECORATIVE: { severity: 'warning', pdfua: 'error', when: 'an image has `alt: ""` and no caption: it is treated as decorative and skipped by screen readers' },
  IMAGE_ALT_CAPTION_ONLY: { severity: 'info', when: 'an image has `alt: ""` but a caption: the caption is its only description' },
  IMAGE_ALT_FILENAME: { severity: 'warning', when: 'an image\'s `alt` is a file name (`IMG_0042.jpg`), not a description' },
  IMAGE_VARIABLE_MISSING_ALT: { severity: 'warning', pdfua: 'error', when: 'an image variable has no `alt`, or a blank one' },
  CHART_MISSING_TITLE: { severity: 'warning', when: 'a chart has neither `title` nor `caption`' },
  NO_HEADINGS: { severity: 'info', when: 'the document has content but no heading to navigate by' },
  EMPTY_HEADING: { severity: 'warning', when: 'a heading\'s text is blank' },
  FIRST_HEADING_NOT_H1: { severity: 'warning', when: 'the first heading is not an `h1`' },
  HEADING_LEVEL_SKIPPED: { severity: 'warning', when: 'a heading is more than one level below the one before it (`h1` followed by `h3`)' },
  MULTIPLE_H1: { severity: 'info', when: 'a second (third, …) `h1`; reported at each one after the first' },
  TABLE_MISSING_HEADER: { severity: 'warning', when: 'a table with `rows` has no header row (`headerRows` 0 and no row with `header: true`); `rowsFrom` tables and table variables always have one' },
  EMPTY_LINK_LABEL: { severity: 'warning', when: 'a link `[](…)` has no text: a screen reader has nothing to announce' },
  BROKEN_REFERENCE: { severity: 'warning', when: '`[label](#id)` where no section or element has the anchor `id`' },
  UNDEFINED_CITATION: { severity: 'warning', when: '`@[key]` where no item of `citations` has the `id` `key`' },
  UNDEFINED_ABBREVIATION: { severity: 'warning', when: '`~KEY~` where `abbreviations` has no `KEY`' },
  UNKNOWN_VARIABLE: { severity: 'warning', when: '`{{name}}` / `${name}` where `variables` has no `name`' },
  GLYPH_MISSING: { severity: 'warning', when: 'characters that no available font can draw (they print as empty boxes); an error under any PDF/A or PDF/UA profile, whose render fails on them' },
  PDF_PROFILE_NOT_APPLICABLE: { severity: 'warning', when: 'a pdfProfile other than `standard` for a `docx` or `odt` document: it applies to PDF output only' },
} as const satisfies Record<string, { severity: Severity; pdfua?: Severity; when: string }>;
export type ReadinessCode = keyof typeof READINESS_CODES;

/** Points a severity costs in `score`; the score is 100 minus these, never below 0. */
export const SCORE_PENALTY: Record<Severity, number> = { error: 20, warning: 5, info: 1 };

/** Text no available font can draw: found by the caller, which knows the fonts (engines/fonts/glyph-coverage.ts). */
export interface GlyphFinding {
  /** Path in the document (`sections[0].content[1].text`). */
  path: string;
  message: string;
}

/**
 * Checks a valid document (see validateDocument) for the given profile; deterministic for a given `now`.
 * `glyphs`: the document's GLYPH_MISSING findings, errors under a PDF/A or PDF/UA profile.
 */
export function checkReadiness(doc: DocumentJson, pdfProfile: PdfProfile, now: Date, glyphs: GlyphFinding[] = []): ReadinessReport {
  const issues: ReadinessIssue[] = [];
  const pdfua = pdfProfile === 'pdfua-1';
  const add = (code: ReadinessCode, path: string, message: string, suggestion: string) => {
    const def: { severity: Severity; pdfua?: Severity } = READINESS_CODES[code];
    issues.push({ code, severity: (pdfua && def.pdfua) || def.severity, path, message, suggestion });
  };
  const counts = { images: 0, tables: 0, headings: 0 };

  // Metadata.
  const d = doc.document;
  if (!d.title?.trim()) add('MISSING_TITLE', 'config.document.title', 'The document has no title.', 'Set document.title; PDF viewers show it in the title bar and PDF/UA requires it.');
  if (!doc.defaults?.locale) add('MISSING_LANGUAGE', 'config.defaults.locale', 'The language of the document is not declared.', 'Set defaults.locale to a BCP 47 tag such as en-GB so screen readers pronounce the text correctly.');
  if (!d.author?.trim()) add('MISSING_AUTHOR', 'config.document.author', 'The document has no author.', 'Set document.author.');
  if (!d.subject?.trim()) add('MISSING_SUBJECT', 'config.document.subject', 'The document has no subject.', 'Set document.subject to a one-sentence description.');
  if (!d.keywords?.length) add('MISSING_KEYWORDS', 'config.document.keywords', 'The document has no keywords.', 'Set document.keywords to help search.');
  if (pdfProfile !== 'standard' && d.type !== 'pdf') {
    add('PDF_PROFILE_NOT_APPLICABLE', 'pdfProfile', `pdfProfile ${pdfProfile} applies to PDF output, but document.type is ${d.type}.`, 'Set document.type to pdf, or leave pdfProfile out.');
  }

  // Image variables: described where they are defined.
  const variables = doc.variables ?? {};
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value !== 'object' || value.type !== 'image' || value.alt?.trim()) continue;
    add('IMAGE_VARIABLE_MISSING_ALT', `config.${variablePath(name)}.alt`, `The image variable "${name}" has no text alternative.`, 'Add alt describing what the image shows.');
  }

  // Elements, in document order.
  let previousLevel = 0;
  let h1s = 0;
  let elements = 0;
  const checks: SomeElementHandlers<void, string> = {
    heading: (el, at) => {
      counts.headings++;
      const level = headingLevel(el);
      if (!el.text.trim()) add('EMPTY_HEADING', `${at}.text`, `An ${el.type} has no text.`, 'Give the heading a text, or remove it.');
      if (previousLevel === 0 && level !== 1) {
        add('FIRST_HEADING_NOT_H1', `${at}.type`, `The first heading is an ${el.type}.`, 'Start the document with an h1.');
      } else if (previousLevel > 0 && level > previousLevel + 1) {
        add('HEADING_LEVEL_SKIPPED', `${at}.type`, `An h${previousLevel} is followed by an ${el.type}; level h${previousLevel + 1} is skipped.`, `Make this heading an h${previousLevel + 1}, or add the missing level.`);
      }
      if (level === 1 && ++h1s > 1) add('MULTIPLE_H1', `${at}.type`, 'The document has more than one h1.', 'Keep one h1 as the document heading and make the others h2, unless each starts a part of its own.');
      previousLevel = level;
    },
    image: (el, at) => {
      counts.images++;
      const alt = el.alt.trim();
      if (!alt && !el.caption?.trim()) add('IMAGE_DECORATIVE', `${at}.alt`, 'The image has an empty alt text and no caption: it is marked decorative and screen readers skip it.', 'If the image carries information, describe it in alt; keep alt "" only for decoration.');
      else if (!alt) add('IMAGE_ALT_CAPTION_ONLY', `${at}.alt`, 'The image has an empty alt text; only its caption describes it.', 'Add alt text that says what the image shows; the caption can then add context.');
      else if (/^[^\s/\\]+\.(png|jpe?g|gif|webp|svg|bmp|tiff?)$/i.test(alt)) add('IMAGE_ALT_FILENAME', `${at}.alt`, `The alt text "${alt}" is a file name.`, 'Describe what the image shows instead.');
    },
    chart: (el, at) => {
      if (!el.title?.trim() && !el.caption?.trim()) add('CHART_MISSING_TITLE', `${at}.title`, 'The chart has neither a title nor a caption.', 'Give the chart a title or a caption that says what it shows.');
    },
    table: (el, at) => {
      counts.tables++;
      if (el.rows && !(el.headerRows ?? 0) && !el.rows.some((r) => !Array.isArray(r) && r.header)) {
        add('TABLE_MISSING_HEADER', `${at}.headerRows`, 'The table has no header row, so its cells cannot be read with their column names.', 'Set headerRows: 1 (or mark the first row header: true) with column names in it.');
      }
    },
    variableRef: (el) => {
      const v = variables[el.name];
      if (typeof v === 'object' && v.type === 'image') counts.images++;
      if (typeof v === 'object' && v.type === 'table') counts.tables++;
    },
    otherwise: () => {},
  };
  forEachElement(
    doc,
    (el, at) => {
      elements++;
      for (const [text, path] of markupFields(el, at)) checkLinks(text, path, add);
      visitElement(el, checks, at);
    },
    'config.',
  );
  if (elements > 0 && counts.headings === 0) add('NO_HEADINGS', 'config.sections', 'The document has no headings.', 'Structure the content with h1–h6 headings; they feed the outline and let readers navigate.');

  // References that point nowhere: warnings here (errors only with ?strict=true on a render).
  const refs = scanReferences(doc);
  for (const e of [...refs.brokenReferences, ...refs.undefinedCitations, ...refs.undefinedAbbreviations, ...refs.unknownVariables]) {
    add(e.code as ReadinessCode, `config.${e.path}`, capitalize(e.message), REFERENCE_SUGGESTIONS[e.code] ?? 'Fix the reference.');
  }

  for (const g of glyphs) {
    issues.push({ code: 'GLYPH_MISSING', severity: pdfProfile === 'standard' ? 'warning' : 'error', path: `config.${g.path}`, message: capitalize(g.message), suggestion: 'Remove or replace the characters, or have the operator add a font that has them (settings.fontDirs of render-pdf).' });
  }

  const errors = issues.filter((x) => x.severity === 'error').length;
  const warnings = issues.filter((x) => x.severity === 'warning').length;
  const infos = issues.length - errors - warnings;
  const score = Math.max(0, 100 - SCORE_PENALTY.error * errors - SCORE_PENALTY.warning * warnings - SCORE_PENALTY.info * infos);
  return {
    scope: 'semantic_source',
    scoreLabel: 'semantic_source_score',
    requiresRenderInspection: true,
    status: errors ? 'not_ready' : 'ready',
    score,
    checkedAt: now.toISOString(),
    summary: { errors, warnings, ...counts },
    issues,
    capabilities: capabilities(),
  };
}

const REFERENCE_SUGGESTIONS: Record<string, string> = {
  BROKEN_REFERENCE: 'Give the target element that id, or fix the link.',
  UNDEFINED_CITATION: 'Add the item to citations, or fix the key.',
  UNDEFINED_ABBREVIATION: 'Add the key to abbreviations, or fix it.',
  UNKNOWN_VARIABLE: 'Define the variable in variables, or fix its name.',
};

function capabilities(): ReadinessReport['capabilities'] {
  return {
    semanticSourceChecks: {
      status: 'foundation',
      description: 'This report: metadata, language, image and chart descriptions, heading hierarchy, table headers, link texts and references, checked in the document JSON.',
    },
    renderedOutputChecks: {
      status: 'not_available',
      description: 'The rendered file is not inspected (no veraPDF or PAC run); check the output with a PDF/UA or PDF/A validator before relying on it.',
    },
    pdfA: {
      status: 'available',
      description: 'Render with pdfProfile pdfa-1b, pdfa-2b or pdfa-3b for PDF/A output (Typst). This report is not a PDF/A certification.',
    },
    pdfUa: {
      status: 'available',
      description: 'Render with pdfProfile pdfua-1 for PDF/UA-1 output (Typst); under it this report treats a missing title and undescribed images as errors, exactly what such a render refuses. This report is not a PDF/UA certification.',
    },
    taggedPdf: {
      status: 'available',
      description: 'PDF output is tagged (Typst): its structure tree comes from the headings, lists, tables, figures and alt texts checked here.',
    },
  };
}

function variablePath(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `variables.${name}` : `variables[${JSON.stringify(name)}]`;
}

function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) + (s.endsWith('.') ? '' : '.') : s;
}

/** The inline-markup fields of an element, with their paths: the fields scanReferences reads as markup. */
function markupFields(el: Element, at: string): Array<[unknown, string]> {
  const out: Array<[unknown, string]> = [];
  scanElement(el, at, (text, path) => out.push([text, path]), () => {});
  return out;
}

/** `[](target)`: a link whose label is empty or only emphasis marks. Citations `@[…]` and footnotes `^[…]` are not links. */
function checkLinks(text: unknown, path: string, add: (code: ReadinessCode, path: string, message: string, suggestion: string) => void): void {
  if (typeof text !== 'string' || !text.includes('](')) return;
  for (const m of maskLiterals(text).matchAll(/(^|[^@^\\])\[([^\]\n]*)\]\(([^)\s]+)\)/g)) {
    if (/^[\s*_]*$/.test(m[2]!)) {
      add('EMPTY_LINK_LABEL', path, `The link to ${m[3]} has no text.`, 'Put a text between the brackets that says where the link goes.');
      return;
    }
  }
}

/** Body errors of a readiness request: the document's own errors, with paths under config. */
export function prefixConfigErrors(errors: FieldError[]): FieldError[] {
  return errors.map((e) => ({ ...e, path: e.path === '(body)' ? 'config' : `config.${e.path}` }));
}
