// Reusable blocks inserted into documents (DESIGN §8, docs/blocks.md "Inserting blocks"): a `blockRef` element names a
// block of the organization. A snapshot is copied into the document when the document is saved (its content and the
// version it came from stay in the element); a linked block is resolved each time the document renders, to its pinned
// version or its current one. Either way the block must be ACTIVE when it is inserted; its variables' defaults fill
// the document's missing variables, and the values are checked against the block's schema.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import type { ValidateFunction } from 'ajv';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError, errorSummary, type FieldError } from '../contracts/errors.js';
import { compileClientSchema, formatAjvErrors } from '../contracts/schema.js';
import { DOCUMENT_LIMITS, type BlockRefElement, type DocumentJson, type Element, type Variables } from '../contracts/document-json.js';
import { MAX_BLOCK_MARKDOWN_BYTES } from '../contracts/blocks.js';
import { isBlockRef } from '../document/block-refs.js';
import { MarkdownParser } from './markdown-parser.js';
import type { Store } from '../kernel/store/store.js';
import type { BlockRecord, BlockVersionRecord } from '../kernel/model.js';

/** Why blocks are inserted: a render (linked blocks must be usable) or a save (linked blocks must exist). */
export type InsertionPurpose = 'render' | 'save';

export interface InsertOptions {
  /** Linked blocks get their content too (for a render, or to check a save as a render would). */
  linked: boolean;
  purpose: InsertionPurpose;
  /** A block's own new content being checked: references to it are cycles, and it counts as one level of nesting. */
  within?: { blockId: string; name: string };
}

export interface InsertedBlocks {
  /** A copy of the document: snapshots (and, with `linked`, linked blocks) hold their content; missing variables filled from the blocks' defaults. */
  document: DocumentJson;
  /** Blocks that cannot be inserted (unknown, not ACTIVE, a cycle, too deep, variables against the schema at a render). */
  errors: FieldError[];
  /** What a save lets pass but a render would not (a linked block not ACTIVE yet, variables against the schema). */
  warnings: FieldError[];
}

/** Parsed versions kept (a version never changes, so its elements never go stale). */
const PARSED_CACHE_SIZE = 256;

interface Use {
  block: BlockRecord;
  version: BlockVersionRecord;
  path: string;
}

@injectable()
export class BlockInsertion {
  readonly #parsed = new Map<string, Element[] | FieldError>();
  readonly #schemas = new Map<string, ValidateFunction>();

  constructor(
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(MarkdownParser) private readonly markdown: MarkdownParser,
  ) {}

  /** The document with its blocks' content in place (see InsertOptions); the input is not changed. */
  async insert(orgId: string, doc: DocumentJson, options: InsertOptions): Promise<InsertedBlocks> {
    const document = structuredClone(doc);
    const errors: FieldError[] = [];
    const warnings: FieldError[] = [];
    const blocks = new Map<string, Promise<BlockRecord | undefined>>();
    const uses: Use[] = [];
    const fetch = (id: string) => {
      let found = blocks.get(id);
      if (!found) blocks.set(id, (found = this.store.getBlock(orgId, id)));
      return found;
    };
    const start = options.within ? [{ id: options.within.blockId, name: options.within.name }] : [];

    // `chain`: the blocks being inserted around this content, for cycles; `depth`: how deep it is nested, snapshots included.
    const fill = async (content: unknown[], base: string, chain: { id: string; name: string }[], depth: number): Promise<void> => {
      for (let j = 0; j < content.length; j++) {
        const el = content[j];
        if (!isBlockRef(el) || typeof el.blockId !== 'string') continue;
        const path = `${base}[${j}]`;
        const named = chain.find((c) => c.id === el.blockId);
        if (named) {
          const names = [...chain.slice(chain.indexOf(named)), named].map((c) => `"${c.name}" (${c.id})`).join(' → ');
          errors.push({ path, message: `inserts reusable block ${el.blockId} inside itself: ${names}; a block cannot contain itself`, code: 'BLOCK_CYCLE' });
          continue;
        }
        if (depth >= DOCUMENT_LIMITS.blockDepth) {
          const names = [...chain.map((c) => `"${c.name}"`), el.blockId].join(' → ');
          errors.push({ path, message: `nests reusable blocks more than ${DOCUMENT_LIMITS.blockDepth} deep (${names})`, code: 'BLOCK_TOO_DEEP' });
          continue;
        }
        if (Array.isArray(el.content)) {
          // A saved snapshot: its content is the document's own now; blocks inside it are inserted like any.
          await fill(el.content, `${path}.content`, chain, depth + 1);
          continue;
        }
        if (el.mode !== 'snapshot' && !options.linked) continue;
        const block = await fetch(el.blockId);
        const problem = this.#unusable(block, el, options.purpose);
        if (problem?.error) {
          errors.push({ path, message: problem.message, code: 'BLOCK_UNAVAILABLE' });
          continue;
        }
        if (problem) warnings.push({ path, message: problem.message, code: 'BLOCK_UNAVAILABLE' });
        const version = block!.versions.find((v) => v.version === (el.version ?? block!.currentVersion))!;
        const elements = await this.#elements(version);
        if (!Array.isArray(elements)) {
          errors.push({ ...elements, path });
          continue;
        }
        const inner = structuredClone(elements);
        uses.push({ block: block!, version, path });
        await fill(inner, `${path}.content`, [...chain, { id: block!.id, name: block!.name }], depth + 1);
        const filled = el as BlockRefElement;
        if (el.mode === 'snapshot') filled.version = version.version;
        filled.content = inner as unknown as BlockRefElement['content'];
      }
    };
    const sections = Array.isArray(document.sections) ? document.sections : [];
    for (let i = 0; i < sections.length; i++) {
      const content = sections[i]?.content;
      if (Array.isArray(content)) await fill(content, `sections[${i}].content`, start, start.length);
    }
    this.#variables(document, uses, options.purpose === 'render' ? errors : warnings);
    return { document, errors, warnings };
  }

  /**
   * The document with its snapshots filled, for saving: 400 naming every block that cannot be copied. Linked blocks
   * stay references.
   */
  async snapshots(orgId: string, doc: DocumentJson, prefix: string): Promise<DocumentJson> {
    const inserted = await this.insert(orgId, doc, { linked: false, purpose: 'save' });
    if (inserted.errors.length) throw blockErrors(inserted.errors, prefix);
    return inserted.document;
  }

  /** Why `el` cannot take the block now: an error, or at a save a warning (a linked block that is not ACTIVE yet). */
  #unusable(block: BlockRecord | undefined, el: BlockRefElement, purpose: InsertionPurpose): { message: string; error: boolean } | undefined {
    if (!block) return { message: `reusable block ${el.blockId} was not found (unknown, deleted, or another organization's)`, error: true };
    if (el.version !== undefined && !block.versions.some((v) => v.version === el.version)) {
      return { message: `reusable block "${block.name}" (${block.id}) has no version ${el.version}; its versions are 1 to ${block.currentVersion}`, error: true };
    }
    if (block.status === 'ACTIVE') return undefined;
    const why = block.status === 'ARCHIVED' ? 'ARCHIVED: it was withdrawn' : 'still a DRAFT';
    const fix = block.status === 'ARCHIVED' ? 'reactivate it (POST /reusable-blocks/{id}/status {"status":"ACTIVE"}) or remove the reference' : 'activate it (POST /reusable-blocks/{id}/status {"status":"ACTIVE"})';
    if (el.mode === 'linked' && purpose === 'save') {
      return { message: `reusable block "${block.name}" (${block.id}) is ${why}; documents render with it only once it is ACTIVE: ${fix}`, error: false };
    }
    return { message: `reusable block "${block.name}" (${block.id}) is ${why}, and only ACTIVE blocks are inserted: ${fix}`, error: true };
  }

  /** The version's Markdown as elements (every section's content in a row), or why it cannot be read. */
  async #elements(version: BlockVersionRecord): Promise<Element[] | FieldError> {
    const cached = this.#parsed.get(version.id);
    if (cached) {
      this.#parsed.delete(version.id);
      this.#parsed.set(version.id, cached);
      return cached;
    }
    const parsed = await this.markdown.parse(version.markdown, { maxBytes: MAX_BLOCK_MARKDOWN_BYTES });
    const result: Element[] | FieldError = parsed.document
      ? parsed.document.sections.flatMap((s) => s.content as Element[])
      : { path: '', message: `reusable block version ${version.version} cannot be read: ${errorSummary(parsed.errors)}`, code: 'BLOCK_UNAVAILABLE' };
    if (this.#parsed.size >= PARSED_CACHE_SIZE) this.#parsed.delete(this.#parsed.keys().next().value!);
    this.#parsed.set(version.id, result);
    return result;
  }

  /**
   * Each inserted version's default variables fill the document's missing ones; then the values each block
   * declares (its schema's `properties` and `required`) are checked against its schema, once per version.
   */
  #variables(document: DocumentJson, uses: Use[], into: FieldError[]): void {
    if (!uses.length) return;
    const variables: Record<string, unknown> = { ...(document.variables ?? {}) };
    for (const { version } of uses) for (const [name, value] of Object.entries(version.variables)) if (!Object.hasOwn(variables, name)) variables[name] = structuredClone(value);
    if (Object.keys(variables).length) document.variables = variables as Variables;
    const checked = new Set<string>();
    for (const { block, version, path } of uses) {
      if (checked.has(version.id)) continue;
      checked.add(version.id);
      const schema = version.schema as { properties?: Record<string, unknown>; required?: unknown };
      const names = new Set([...Object.keys(schema.properties ?? {}), ...(Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === 'string') : [])]);
      const values = Object.fromEntries([...names].filter((n) => Object.hasOwn(variables, n)).map((n) => [n, structuredClone(variables[n])]));
      const validate = this.#schema(version);
      if (validate(values)) continue;
      for (const e of formatAjvErrors(validate.errors, 'variables')) {
        into.push({ path: e.path, message: `${e.message} (reusable block "${block.name}" version ${version.version}, inserted at ${path}, declares it in its schema)`, code: 'INVALID_FIELD' });
      }
    }
  }

  #schema(version: BlockVersionRecord): ValidateFunction {
    let validate = this.#schemas.get(version.id);
    if (!validate) {
      // Checked when the version was saved (block-service compileVariablesSchema).
      validate = compileClientSchema(version.schema);
      if (this.#schemas.size >= PARSED_CACHE_SIZE) this.#schemas.delete(this.#schemas.keys().next().value!);
      this.#schemas.set(version.id, validate);
    }
    return validate;
  }
}

/** 400 naming the blocks that cannot be inserted; `prefix` places the paths in the request (`config.`, or nothing). */
export function blockErrors(errors: FieldError[], prefix: string): HttpError {
  const placed = errors.map((e) => ({ ...e, path: `${prefix}${e.path}` }));
  return new HttpError('VALIDATION_FAILED', `Reusable blocks cannot be inserted: ${errorSummary(placed)}.`, placed);
}
