// The checks document JSON passes before it is rendered or saved: its style preset exists, the contract and the
// semantic rules hold (400 with paths under `config.`), and, with strict, every reference resolves; and how the
// issues of Extended Markdown are shown.
import { HttpError, errorSummary, type FieldError } from '../contracts/errors.js';
import type { Defaults, DocumentJson } from '../contracts/document-json.js';
import { validateDocument, scanReferences } from '../document/validator.js';
import { mergeDefaults } from '../document/styles.js';
import { resolveStyle } from './styles.js';
import type { Store } from '../kernel/store/store.js';
import type { DocumentRecord } from '../kernel/model.js';
import type { Issue } from '../document/markdown/index.js';
import { hasBlockRefs, spliceBlocks } from '../document/block-refs.js';
import { blockErrors, type BlockInsertion, type InsertionPurpose } from './block-insertion.js';
import { glyphMissingMessage, missingGlyphs } from '../engines/fonts/glyph-coverage.js';

export interface CheckedDocument {
  /** The document with the preset beneath its defaults and the schema defaults filled in: what a renderer takes. */
  document: DocumentJson;
  /** Unresolved references and unknown variables: warnings (without strict, or the ones strict lets pass). */
  warnings: FieldError[];
}

/** How a check treats reusable blocks: inserted for a render, or checked as a render would insert them for a save. */
export interface BlockCheck {
  insertion: BlockInsertion;
  purpose: InsertionPurpose;
}

/**
 * `blocks`: the document's reusable blocks are inserted and the whole checked again with them (without it, a blockRef
 * is only checked for its own fields: the catalog's previews have no organization). The document of the answer is
 * then the one with the blocks spliced into its sections, and paths name the original document's places.
 */
export async function checkDocumentConfig(store: Store, orgId: string, config: Record<string, unknown>, stylePresetId: string | undefined, strict: boolean, blocks?: BlockCheck): Promise<CheckedDocument> {
  // A preset lies beneath the document's own defaults; an invalid `config.defaults` is still reported at its own path.
  const preset = stylePresetId ? await resolveStyle(store, orgId, stylePresetId) : undefined;
  const styled = preset && (config.defaults === undefined || isObject(config.defaults)) ? { ...config, defaults: mergeDefaults(preset, config.defaults as Defaults | undefined) } : config;
  const validation = validateDocument(styled);
  if (!validation.valid) throw new HttpError('VALIDATION_FAILED', `The document is invalid: ${errorSummary(validation.errors)}.`, configPaths(validation.errors));
  return checkWithBlocks(orgId, validation.document!, strict, blocks, 'config.');
}

/**
 * The last checks of a valid document: its blocks inserted (with `blocks`) and the result validated as a whole, then
 * its references scanned (strict: broken ones are errors). `prefix` places the paths in the request.
 */
export async function checkWithBlocks(orgId: string, valid: DocumentJson, strict: boolean, blocks: BlockCheck | undefined, prefix: string): Promise<CheckedDocument> {
  let document = valid;
  let origin = (path: string) => path;
  const found: FieldError[] = [];
  if (blocks && hasBlockRefs(valid)) {
    const inserted = await blocks.insertion.insert(orgId, valid, { linked: true, purpose: blocks.purpose });
    if (inserted.errors.length) throw blockErrors(inserted.errors, prefix);
    const spliced = spliceBlocks(inserted.document, false);
    origin = spliced.origin;
    const validation = validateDocument(spliced.document);
    if (!validation.valid) {
      const errors = placed(validation.errors.map((e) => ({ ...e, path: origin(e.path) })), prefix);
      throw new HttpError('VALIDATION_FAILED', `The document is invalid with its reusable blocks inserted: ${errorSummary(errors)}.`, errors);
    }
    document = validation.document!;
    found.push(...inserted.warnings);
  }
  const refs = scanReferences(document);
  const at = (list: FieldError[]) => placed(list.map((e) => ({ ...e, path: origin(e.path) })), prefix);
  const warnings = [...placed(found, prefix), ...at([...refs.brokenReferences, ...refs.undefinedCitations, ...refs.undefinedAbbreviations, ...refs.unknownVariables])];
  const strictFindings = at([...refs.brokenReferences, ...refs.undefinedCitations, ...refs.undefinedAbbreviations]);
  if (strict && strictFindings.length) throw new HttpError('VALIDATION_FAILED', `Strict mode: ${errorSummary(strictFindings)}.`, strictFindings);
  return { document, warnings };
}

/**
 * GLYPH_MISSING: each place with characters no bundled font can draw (they would print as empty boxes). A
 * warning of the render; with strict, a 422. The render job fails on them under a PDF/A or PDF/UA profile.
 */
export function glyphFindings(document: DocumentJson, strict: boolean, prefix: string): FieldError[] {
  const found = placed(
    missingGlyphs(document).map((m) => ({ path: m.path, message: glyphMissingMessage(m), code: 'GLYPH_MISSING' })),
    prefix,
  );
  if (strict && found.length) throw new HttpError('VALIDATION_FAILED', `Strict mode: ${errorSummary(found)}.`, found);
  return found;
}

function placed(errors: FieldError[], prefix: string): FieldError[] {
  return prefix === 'config.' ? configPaths(errors) : errors.map((e) => ({ ...e, path: e.path === '(body)' ? e.path : `${prefix}${e.path}` }));
}

/** The organization's saved document; 404 for unknown ids and other organizations' documents. */
export async function savedDocument(store: Store, orgId: string, id: string): Promise<DocumentRecord> {
  const doc = await store.getDocument(orgId, id);
  if (!doc) throw documentNotFound(id);
  return doc;
}

export function documentNotFound(id: string): HttpError {
  return new HttpError('NOT_FOUND', `Document ${id} was not found (unknown, deleted, or another organization's).`);
}

/** Paths of the document placed in the request body (`config.sections[0]…`). */
export function configPaths(errors: FieldError[]): FieldError[] {
  return errors.map((e) => ({ ...e, path: e.path.startsWith('config.') || e.path === '(body)' ? e.path : `config.${e.path}` }));
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An issue as the API shows it: line and column only when it has a place in the source. */
export function publicIssue(i: Issue): Issue {
  return { path: i.path, message: i.message, code: i.code, ...(i.line !== undefined ? { line: i.line, column: i.column } : {}) };
}

/** An issue for a problem's detail: its place in the source (`content line 3:1`) beside its path. */
export function locatedIssue(i: Issue, field?: string): FieldError {
  return { ...i, path: i.line !== undefined ? `${i.path} (${field ? `${field} ` : ''}line ${i.line}:${i.column})` : i.path };
}
