// Reusable blocks (spec "Reusable block", DESIGN §8): named Extended Markdown content of an organization with an
// append-only version history (restore appends a copy), a status (DRAFT, ACTIVE, ARCHIVED) and variables checked
// against the version's JSON Schema. Inserting blocks into documents is block-insertion.ts; a version's own
// insertions are checked here (they exist, no cycle, at most 5 deep). Images a version draws from `/temp-image/` become
// permanent assets when it is written, as a document's do; the block counts as a user of them while it exists.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { KeyedMutex } from '../kernel/keyed-mutex.js';
import { HttpError, errorSummary, type FieldError } from '../contracts/errors.js';
import type { ValidateFunction } from 'ajv';
import { compileClientSchema, formatAjvErrors } from '../contracts/schema.js';
import {
  BLOCK_TRANSITIONS,
  MAX_BLOCK_MARKDOWN_BYTES,
  MAX_BLOCK_SCHEMA_BYTES,
  MAX_BLOCK_VERSIONS,
  MAX_BLOCKS_PER_ORG,
  type BlockStatus,
  type BlockSummary,
  type BlockVersionView,
  type BlockView,
  type CreateBlock,
  type CreateBlockVersion,
  type UpdateBlock,
} from '../contracts/blocks.js';
import { MarkdownParser } from './markdown-parser.js';
import { BlockInsertion, blockErrors } from './block-insertion.js';
import { DocumentImages, withAssetPaths, type PersistedImages } from './document-images.js';
import { hasBlockRefs } from '../document/block-refs.js';
import type { ParseResult } from '../document/markdown/index.js';
import type { DocumentJson } from '../contracts/document-json.js';
import { locatedIssue, publicIssue } from './document-check.js';
import { pageByPosition, uniqueSlug } from './slugs-and-pages.js';
import type { Clock } from '../kernel/clock.js';
import type { BlockChange, Store } from '../kernel/store/store.js';
import type { AssetRecord, BlockRecord, BlockVersionRecord } from '../kernel/model.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What GET /reusable-blocks filters by (each optional). */
export interface BlockFilter {
  status?: BlockStatus;
  category?: string;
  tag?: string;
}

/** A version's content as given, before it is checked. */
type VersionContent = Pick<CreateBlockVersion, 'title' | 'markdown' | 'schema' | 'variables'>;

/** What a version's write adds to the block's assets: the ones its images use, and those made for it. */
type VersionAssets = Pick<PersistedImages<DocumentJson>, 'assetIds' | 'newAssets'>;

@injectable()
export class BlockService {
  /** Creations of an organization's blocks run one at a time: the slug and count checks hold until the write. */
  readonly #creating = new KeyedMutex();

  constructor(
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(MarkdownParser) private readonly markdown: MarkdownParser,
    @inject(BlockInsertion) private readonly insertion: BlockInsertion,
    @inject(DocumentImages) private readonly images: DocumentImages,
  ) {}

  async list(orgId: string, filter: BlockFilter, page: { limit: number; cursor: string | null }): Promise<{ items: BlockSummary[]; nextCursor: string | null }> {
    const all = (await this.store.listBlocks(orgId)).filter(
      (b) => (!filter.status || b.status === filter.status) && (filter.category === undefined || (b.category ?? '') === filter.category) && (filter.tag === undefined || b.tags.includes(filter.tag)),
    );
    const { items, nextCursor } = pageByPosition(all, page);
    return { items: items.map(summaryView), nextCursor };
  }

  async get(orgId: string, id: string): Promise<BlockView> {
    return blockView(await this.#own(orgId, id));
  }

  /** POST /reusable-blocks: the block with version 1, DRAFT. `by` is the caller's principal. */
  async create(orgId: string, body: CreateBlock, by: string): Promise<BlockView> {
    const id = randomUUID();
    const checked = await this.#checked(orgId, body, { id, name: body.name });
    return this.images.exclusive(orgId, () => this.#creating.run(orgId, async () => {
      const existing = await this.store.listBlocks(orgId);
      if (existing.length >= MAX_BLOCKS_PER_ORG) {
        throw limit(`The organization already has ${existing.length} reusable blocks, the most allowed (${MAX_BLOCKS_PER_ORG}); delete some first.`, '(body)', 'too many blocks');
      }
      const slug = uniqueSlug(new Set(existing.map((b) => b.slug)), body.slug, body.name, 'block');
      const saved = await this.images.persist(orgId, checked.document);
      const content = { ...checked.content, markdown: withAssetPaths(checked.content.markdown, saved.replaced) };
      const now = this.clock.now().toISOString();
      const rec: BlockRecord = {
        id,
        orgId,
        name: body.name,
        slug,
        category: body.category ?? null,
        tags: uniqueTags(body.tags),
        description: body.description ?? null,
        status: 'DRAFT',
        currentVersion: 1,
        versions: [newVersion(1, content, now, by, null, null)],
        assetIds: saved.assetIds,
        createdBy: by,
        createdAt: now,
        updatedAt: now,
      };
      await this.store.createBlock(rec, saved.newAssets);
      return blockView(rec);
    }));
  }

  /** PATCH /reusable-blocks/{id}: name, slug, category, tags, description; the versions stay as they are. */
  async update(orgId: string, id: string, body: UpdateBlock): Promise<BlockView> {
    await this.#own(orgId, id);
    const run = async () => {
      const taken = body.slug === undefined ? new Set<string>() : new Set((await this.store.listBlocks(orgId)).filter((b) => b.id !== id).map((b) => b.slug));
      return this.#change(orgId, id, (current) => {
        const change: BlockChange = {};
        if (body.name !== undefined) change.name = body.name;
        if (body.slug !== undefined) change.slug = uniqueSlug(taken, body.slug, current.name, 'block');
        if (body.category !== undefined) change.category = body.category;
        if (body.description !== undefined) change.description = body.description;
        if (body.tags !== undefined) change.tags = uniqueTags(body.tags);
        return change;
      });
    };
    // A slug change takes the creation lock too, so a new block cannot take the same slug meanwhile.
    return body.slug === undefined ? run() : this.#creating.run(orgId, run);
  }

  /** POST /reusable-blocks/{id}/versions: a new current version; earlier ones never change. */
  async addVersion(orgId: string, id: string, body: CreateBlockVersion, by: string): Promise<BlockView> {
    const block = await this.#own(orgId, id);
    const checked = await this.#checked(orgId, body, block);
    return this.images.exclusive(orgId, async () => {
      const saved = await this.images.persist(orgId, checked.document);
      const content = { ...checked.content, markdown: withAssetPaths(checked.content.markdown, saved.replaced) };
      return this.#append(orgId, id, () => ({ content, changeNote: body.changeNote ?? null, restoredFrom: null }), by, saved);
    });
  }

  /** POST /reusable-blocks/{id}/versions/{version}/restore: a new version copying the content of `version`. */
  async restore(orgId: string, id: string, version: number, by: string): Promise<BlockView> {
    const block = await this.#own(orgId, id);
    const old = block.versions.find((v) => v.version === version);
    // The blocks it inserts and the images it draws may have changed since: checked again, as a new version's would be
    // (a version written before blocks kept assets may still name a temporary image).
    const parsed = old ? await this.#parsed(orgId, old.markdown, block) : undefined;
    return this.images.exclusive(orgId, async () => {
      const saved = parsed ? await this.images.persist(orgId, parsed.document) : { assetIds: [], newAssets: [], replaced: new Map<string, string>() };
      return this.#append(orgId, id, (current) => {
        const from = current.versions.find((v) => v.version === version);
        if (!from) {
          throw new HttpError('NOT_FOUND', `Reusable block ${id} has no version ${version}; its versions are 1 to ${current.currentVersion}.`);
        }
        return { content: { title: from.title, markdown: withAssetPaths(from.markdown, saved.replaced), schema: from.schema, variables: from.variables }, changeNote: null, restoredFrom: version };
      }, by, saved);
    });
  }

  /** POST /reusable-blocks/{id}/status: one of the moves BLOCK_TRANSITIONS allows, else 409 INVALID_TRANSITION. */
  async setStatus(orgId: string, id: string, status: BlockStatus): Promise<BlockView> {
    await this.#own(orgId, id);
    return this.#change(orgId, id, (current) => {
      const allowed = BLOCK_TRANSITIONS[current.status];
      if (!allowed.includes(status)) {
        const moves = Object.entries(BLOCK_TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => `${from}→${to}`)).join(', ');
        throw new HttpError('INVALID_TRANSITION', `Reusable block ${id} is ${current.status} and cannot move to ${status}; from ${current.status} it can move to ${allowed.join(' or ')} (the moves allowed: ${moves}).`);
      }
      return { status };
    });
  }

  /** Deletes the block and, after the write, the bytes of the assets no document, template or other block uses. */
  async delete(orgId: string, id: string): Promise<void> {
    const gone = UUID.test(id) ? await this.images.exclusive(orgId, () => this.store.deleteBlock(orgId, id)) : undefined;
    if (!gone) throw notFound(id);
    await this.images.release(gone.releasedAssets);
  }

  /**
   * Appends the version `make` gives from the stored block, numbered from it in the same step (so never twice), with
   * the assets its images use; run inside `images.exclusive`. The block keeps the assets of all its versions.
   */
  async #append(orgId: string, id: string, make: (current: BlockRecord) => { content: Required<VersionContent>; changeNote: string | null; restoredFrom: number | null }, by: string, assets: VersionAssets): Promise<BlockView> {
    try {
      return await this.#change(orgId, id, (current) => {
        if (current.versions.length >= MAX_BLOCK_VERSIONS) {
          throw limit(`Reusable block ${id} has ${current.versions.length} versions, the most one block keeps (${MAX_BLOCK_VERSIONS}); make a new block (POST /reusable-blocks) for further changes.`, '(body)', 'too many versions');
        }
        const { content, changeNote, restoredFrom } = make(current);
        const next = current.currentVersion + 1;
        return {
          currentVersion: next,
          versions: [...current.versions, newVersion(next, content, this.clock.now().toISOString(), by, changeNote, restoredFrom)],
          assetIds: [...new Set([...(current.assetIds ?? []), ...assets.assetIds])],
        };
      }, assets.newAssets);
    } catch (e) {
      // Nothing was written: the assets made for this version go with their bytes.
      await this.images.release(assets.newAssets.map((a) => a.id));
      throw e;
    }
  }

  async #change(orgId: string, id: string, change: (current: BlockRecord) => BlockChange, newAssets: AssetRecord[] = []): Promise<BlockView> {
    const rec = await this.store.updateBlock(orgId, id, change, this.clock.now().toISOString(), newAssets);
    if (!rec) throw notFound(id);
    return blockView(rec);
  }

  /**
   * A version's content, checked: the Markdown parses without errors (at most 256 KiB), the schema is a bounded JSON
   * Schema of an object that ajv compiles, and the variables validate against it.
   */
  async #checked(orgId: string, body: VersionContent, self: Pick<BlockRecord, 'id' | 'name'>): Promise<{ content: Required<VersionContent>; document: DocumentJson }> {
    const parsed = await this.#parsed(orgId, body.markdown, self);
    const schema = body.schema ?? {};
    const variables = body.variables ?? {};
    const validate = compileVariablesSchema(schema);
    if (!validate(structuredClone(variables))) {
      const errors = formatAjvErrors(validate.errors, 'variables');
      throw new HttpError('VALIDATION_FAILED', `The variables do not match the block's schema: ${errorSummary(errors)}.`, errors);
    }
    return { content: { title: body.title, markdown: body.markdown, schema, variables }, document: parsed.document };
  }

  /**
   * The Markdown of a version, parsed, with the blocks it inserts checked: they exist (in the organization), nothing
   * leads back to `self`, and with `self` they nest at most 5 deep; and the images it draws can be used (400 naming
   * the path of a missing or expired temporary image, as for a template).
   */
  async #parsed(orgId: string, markdown: string, self: Pick<BlockRecord, 'id' | 'name'>): Promise<ParseResult & { document: DocumentJson }> {
    const parsed = await this.markdown.parse(markdown, { maxBytes: MAX_BLOCK_MARKDOWN_BYTES });
    if (parsed.errors.length || !parsed.document) {
      throw new HttpError('VALIDATION_FAILED', `The Markdown cannot be saved as a block: ${errorSummary(parsed.errors.map((i) => locatedIssue(i, 'markdown')))}.`, parsed.errors.map(publicIssue));
    }
    if (hasBlockRefs(parsed.document)) {
      const inserted = await this.insertion.insert(orgId, parsed.document, { linked: true, purpose: 'save', within: { blockId: self.id, name: self.name } });
      if (inserted.errors.length) throw blockErrors(inserted.errors, 'markdown.');
    }
    await this.images.check(orgId, parsed.document, '');
    return parsed as ParseResult & { document: DocumentJson };
  }

  async #own(orgId: string, id: string): Promise<BlockRecord> {
    const rec = UUID.test(id) ? await this.store.getBlock(orgId, id) : undefined;
    if (!rec) throw notFound(id);
    return rec;
  }
}

/** The block's variables schema compiled, or 400 naming what is wrong with it. */
function compileVariablesSchema(schema: Record<string, unknown>): ValidateFunction {
  const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
  if (bytes > MAX_BLOCK_SCHEMA_BYTES) throw limit(`The schema is ${bytes} bytes as JSON; at most ${MAX_BLOCK_SCHEMA_BYTES} are accepted.`, 'schema', `at most ${MAX_BLOCK_SCHEMA_BYTES} bytes`);
  const bad = schemaReferenceIssue(schema, 'schema');
  if (bad) throw invalidSchema(bad.message, bad.path);
  if (schema.type !== undefined && schema.type !== 'object') throw invalidSchema('must describe an object (the variables): its `type` must be "object"', 'schema.type');
  try {
    return compileClientSchema(schema);
  } catch (e) {
    throw invalidSchema(`is not a JSON Schema ajv can compile: ${(e as Error).message}`, 'schema');
  }
}

/**
 * The first `$id`, non-local `$ref` or regular expression in the schema: a block's schema stands alone and registers
 * nothing, and it carries no `pattern` or `patternProperties` (a regular expression chosen by a client could hold the
 * server's event loop while variables are checked; JavaScript's RegExp has no time limit).
 */
function schemaReferenceIssue(node: unknown, path: string, parentKey = ''): FieldError | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = schemaReferenceIssue(node[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (!node || typeof node !== 'object') return undefined;
  for (const [key, value] of Object.entries(node)) {
    // Under `properties` a key is a variable's name, not a keyword.
    const keyword = parentKey !== 'properties';
    if (keyword && ((key === 'pattern' && typeof value === 'string') || (key === 'patternProperties' && value && typeof value === 'object'))) {
      return { path: `${path}.${key}`, message: 'regular expressions are not accepted in a block\'s schema; use enum, const, minLength/maxLength or format instead', code: 'INVALID_FIELD' };
    }
    if (typeof value === 'string') {
      if (key === '$id') return { path: `${path}.${key}`, message: 'must not be set: a block\'s schema has no identifier of its own', code: 'INVALID_FIELD' };
      if ((key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef') && !value.startsWith('#')) {
        return { path: `${path}.${key}`, message: `may only point inside the schema (start with "#"), not to "${value}"`, code: 'INVALID_FIELD' };
      }
    }
    const found = schemaReferenceIssue(value, `${path}.${key}`, keyword ? key : '');
    if (found) return found;
  }
  return undefined;
}

function invalidSchema(message: string, path: string): HttpError {
  return new HttpError('VALIDATION_FAILED', `The block's schema is invalid: ${path} ${message}.`, [{ path, message, code: 'INVALID_FIELD' }]);
}

function limit(detail: string, path: string, message: string): HttpError {
  return new HttpError('VALIDATION_FAILED', detail, [{ path, message, code: 'LIMIT_EXCEEDED' }]);
}

function notFound(id: string): HttpError {
  return new HttpError('NOT_FOUND', `Reusable block ${id} was not found (unknown, deleted, or another organization's).`);
}

function uniqueTags(tags: string[] | undefined): string[] {
  return [...new Set(tags ?? [])];
}

function newVersion(version: number, content: Required<VersionContent>, at: string, by: string, changeNote: string | null, restoredFrom: number | null): BlockVersionRecord {
  return { id: randomUUID(), version, ...structuredClone(content), createdAt: at, changeNote, restoredFromVersion: restoredFrom, createdBy: by };
}

function versionView(blockId: string, v: BlockVersionRecord): BlockVersionView {
  return {
    id: v.id,
    blockId,
    version: v.version,
    title: v.title,
    markdown: v.markdown,
    schema: v.schema,
    variables: v.variables,
    createdAt: v.createdAt,
    ...(v.changeNote !== null ? { changeNote: v.changeNote } : {}),
    ...(v.restoredFromVersion !== null ? { restoredFromVersion: v.restoredFromVersion } : {}),
    ...(v.createdBy !== null ? { createdByUserId: v.createdBy } : {}),
  };
}

function summaryView(b: BlockRecord): BlockSummary {
  return {
    id: b.id,
    orgId: b.orgId,
    name: b.name,
    slug: b.slug,
    category: b.category ?? '',
    tags: b.tags,
    status: b.status,
    currentVersion: b.currentVersion,
    createdAt: b.createdAt,
    updatedAt: b.updatedAt,
    ...(b.description !== null ? { description: b.description } : {}),
    ...(b.createdBy !== null ? { createdByUserId: b.createdBy } : {}),
    current: versionView(b.id, b.versions[b.versions.length - 1]!),
  };
}

function blockView(b: BlockRecord): BlockView {
  return { ...summaryView(b), versions: b.versions.map((v) => versionView(b.id, v)) };
}
