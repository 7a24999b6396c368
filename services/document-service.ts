// The workspace's documents (DESIGN §8): document JSON or Extended Markdown saved under a version, read back as
// Markdown (or as JSON where Markdown cannot say it all), changed with a lost-update guard, deleted with the
// permanent images only they used. A save checks the document exactly as a render would.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError, errorSummary, type FieldError } from '../contracts/errors.js';
import { MAX_DOCUMENTS_PER_ORG, type CreateDocument, type CreateMarkdownDocument, type DocumentMarkdown, type DocumentSummary, type DocumentView, type UpdateDocument } from '../contracts/documents.js';
import type { Defaults, DocumentJson } from '../contracts/document-json.js';
import { mergeDefaults, validateStyleDefinition } from '../document/styles.js';
import type { Issue } from '../document/markdown/index.js';
import { MarkdownParser } from './markdown-parser.js';
import { DocumentImages } from './document-images.js';
import { TemplateService } from './template-service.js';
import { checkDocumentConfig, checkWithBlocks, documentNotFound, locatedIssue, publicIssue, savedDocument, type BlockCheck } from './document-check.js';
import { uniqueIssues } from '../document/validator.js';
import { BlockInsertion } from './block-insertion.js';
import { hasBlockRefs } from '../document/block-refs.js';
import { resolveStyle } from './styles.js';
import type { Clock } from '../kernel/clock.js';
import type { Store, DocumentChange, PageKey } from '../kernel/store/store.js';
import type { DocumentRecord } from '../kernel/model.js';

/** A list page: `limit` 1 to 200 (default 50) and the cursor of the previous page. */
export interface PageRequest {
  limit: number;
  cursor: string | null;
}

/** Markdown written for a document version, kept for repeated reads of the same version (documents change far less than they are read). */
const MARKDOWN_CACHE_SIZE = 64;

@injectable()
export class DocumentService {
  readonly #markdownCache = new Map<string, DocumentMarkdown>();

  constructor(
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(MarkdownParser) private readonly markdown: MarkdownParser,
    @inject(DocumentImages) private readonly images: DocumentImages,
    @inject(TemplateService) private readonly templates: TemplateService,
    @inject(BlockInsertion) private readonly blocks: BlockInsertion,
  ) {}

  /**
   * POST /documents: document JSON, checked like POST /render (with `strict`), or a copy of a productive workspace
   * template (403 TEMPLATE_NOT_PRODUCTIVE otherwise), saved with version 1.
   */
  async create(orgId: string, body: CreateDocument, strict: boolean): Promise<DocumentView> {
    if ((body.config === undefined) === (body.templateId === undefined)) {
      throw new HttpError('VALIDATION_FAILED', 'Give the document as `config` or name a template in `templateId`, not both and not neither.', [{ path: 'config', message: 'exactly one of config and templateId is required', code: 'INVALID_FIELD' }]);
    }
    const seed = body.templateId !== undefined ? await this.templates.seed(orgId, body.templateId) : undefined;
    const config = seed ? (seed.config as unknown as Record<string, unknown>) : body.config!;
    const stylePresetId = body.stylePresetId ?? seed?.stylePresetId ?? undefined;
    const { warnings } = await checkDocumentConfig(this.store, orgId, config, stylePresetId, strict, this.#blockCheck);
    const saved = await this.blocks.snapshots(orgId, config as unknown as DocumentJson, 'config.');
    return this.#save(orgId, body.name ?? seed?.name, saved, stylePresetId ?? null, warnings, 'config.');
  }

  /** POST /documents/markdown: the Markdown with the request's settings over its front matter, saved as the document it parses to. */
  async createFromMarkdown(orgId: string, body: CreateMarkdownDocument, strict: boolean): Promise<DocumentView> {
    if (body.stylePresetId) await resolveStyle(this.store, orgId, body.stylePresetId);
    const styleErrors: Issue[] = body.style ? validateStyleDefinition(body.style, 'style') : [];
    const style = styleErrors.length ? undefined : (body.style as Defaults | undefined);
    const parsed = await this.markdown.parse(body.content, {
      strict,
      overrides: {
        document: body.document,
        variables: body.variables,
        abbreviations: body.abbreviations,
        citations: body.citations,
        defaults: style || body.defaults ? mergeDefaults(style, body.defaults as Defaults | undefined) : undefined,
      },
    });
    const errors = [...styleErrors, ...parsed.errors];
    if (errors.length || !parsed.document) throw markdownErrors(errors);
    const { document, warnings } = await this.#withBlocks(orgId, parsed.document, parsed.warnings.map(publicIssue), strict);
    return this.#save(orgId, body.name, document, body.stylePresetId ?? null, warnings, '');
  }

  async get(orgId: string, id: string): Promise<DocumentView> {
    return documentView(await this.#find(orgId, id));
  }

  async list(orgId: string, page: PageRequest): Promise<{ items: DocumentSummary[]; nextCursor: string | null }> {
    const after = page.cursor === null ? undefined : decodeCursor(page.cursor);
    const rows = await this.store.listDocuments(orgId, page.limit + 1, after);
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    return { items: items.map(summaryView), nextCursor: rows.length > page.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
  }

  async delete(orgId: string, id: string): Promise<void> {
    const gone = await this.images.exclusive(orgId, () => this.store.deleteDocument(orgId, id));
    if (!gone) throw documentNotFound(id);
    await this.images.release(gone.releasedAssets);
  }

  /**
   * GET /documents/{id}/markdown: the document as Extended Markdown when reading that Markdown back gives the same
   * document (in normal form); otherwise `json_fallback` with the JSON and a warning naming the first part lost.
   */
  async markdownOf(orgId: string, id: string): Promise<DocumentMarkdown> {
    const doc = await this.#find(orgId, id);
    const key = `${doc.id}@${doc.version}`;
    const cached = this.#markdownCache.get(key);
    if (cached) return cached;
    const { markdown, lost } = await this.markdown.toMarkdown(doc.config as unknown as DocumentJson, !doc.fromMarkdown);
    const answer: DocumentMarkdown = lost
      ? { documentId: doc.id, markdown: null, format: 'json_fallback', config: doc.config, warning: `${lost.path}: ${lost.what}; the document is given as JSON (config) instead.`, version: doc.version, updatedAt: doc.updatedAt }
      : { documentId: doc.id, markdown, format: 'markdown', version: doc.version, updatedAt: doc.updatedAt };
    if (this.#markdownCache.size >= MARKDOWN_CACHE_SIZE) this.#markdownCache.delete(this.#markdownCache.keys().next().value!);
    this.#markdownCache.set(key, answer);
    return answer;
  }

  /** PATCH /documents/{id}/markdown: the whole document replaced by what the Markdown parses to (nothing saved on an error). */
  async patchMarkdown(orgId: string, id: string, markdown: string, ifMatch: number | undefined, strict: boolean): Promise<DocumentView> {
    const current = await this.#find(orgId, id);
    const parsed = await this.markdown.parse(markdown, { strict });
    if (parsed.errors.length || !parsed.document) throw markdownErrors(parsed.errors, 'markdown');
    // The parse checked the document (with strict); its preset must still exist, as on create.
    if (current.stylePresetId) await resolveStyle(this.store, orgId, current.stylePresetId);
    const { document, warnings } = await this.#withBlocks(orgId, parsed.document, parsed.warnings.map(publicIssue), strict);
    return this.#change(orgId, id, { config: document }, ifMatch, warnings, '');
  }

  /** PATCH /documents/{id}: name, config (checked like POST /documents) or style preset. */
  async update(orgId: string, id: string, body: UpdateDocument, ifMatch: number | undefined, strict: boolean): Promise<DocumentView> {
    const current = await this.#find(orgId, id);
    const stylePresetId = body.stylePresetId === undefined ? current.stylePresetId : body.stylePresetId;
    const config = body.config ?? current.config;
    const { warnings } = await checkDocumentConfig(this.store, orgId, config, stylePresetId ?? undefined, strict, this.#blockCheck);
    const change: { name?: string; config?: DocumentJson; stylePresetId?: string | null } = {};
    if (body.name !== undefined) change.name = body.name;
    if (body.config !== undefined) change.config = await this.blocks.snapshots(orgId, body.config as unknown as DocumentJson, 'config.');
    if (body.stylePresetId !== undefined) change.stylePresetId = body.stylePresetId;
    return this.#change(orgId, id, change, ifMatch, warnings, 'config.');
  }

  get #blockCheck(): BlockCheck {
    return { insertion: this.blocks, purpose: 'save' };
  }

  /**
   * A document Markdown parsed to, checked with its blocks as a render would insert them (their warnings added to the
   * parser's), and with its snapshots filled for saving.
   */
  async #withBlocks(orgId: string, parsed: DocumentJson, warnings: FieldError[], strict: boolean): Promise<{ document: DocumentJson; warnings: FieldError[] }> {
    if (!hasBlockRefs(parsed)) return { document: parsed, warnings };
    const checked = await checkWithBlocks(orgId, parsed, strict, this.#blockCheck, '');
    return { document: await this.blocks.snapshots(orgId, parsed, ''), warnings: uniqueIssues([...warnings, ...checked.warnings]) };
  }

  /** `prefix` places image errors in the request: `config.` for JSON, '' for a document Markdown parsed to. */
  async #save(orgId: string, name: string | undefined, config: DocumentJson, stylePresetId: string | null, warnings: FieldError[], prefix: string): Promise<DocumentView> {
    await this.images.check(orgId, config, prefix);
    return this.images.exclusive(orgId, async () => {
      const count = await this.store.countDocuments(orgId);
      if (count >= MAX_DOCUMENTS_PER_ORG) {
        throw new HttpError('VALIDATION_FAILED', `The organization already has ${count} documents, the most allowed; delete some first.`, [{ path: '(body)', message: `the organization already has ${count} documents, the most allowed`, code: 'LIMIT_EXCEEDED' }]);
      }
      const saved = await this.images.persist(orgId, config);
      const now = this.clock.now().toISOString();
      const doc: DocumentRecord = {
        id: randomUUID(),
        orgId,
        name: name ?? defaultName(saved.document),
        config: saved.document as unknown as Record<string, unknown>,
        stylePresetId,
        assetIds: saved.assetIds,
        fromMarkdown: prefix === '',
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
      await this.store.createDocument(doc, saved.newAssets);
      return { ...documentView(doc), warnings };
    });
  }

  async #change(orgId: string, id: string, change: { name?: string; config?: DocumentJson; stylePresetId?: string | null }, ifMatch: number | undefined, warnings: FieldError[], prefix: string): Promise<DocumentView> {
    if (change.config) await this.images.check(orgId, change.config, prefix);
    const { document, released } = await this.images.exclusive(orgId, async () => {
      const stored: DocumentChange = { ...change } as DocumentChange;
      let newAssets: Awaited<ReturnType<DocumentImages['persist']>>['newAssets'] = [];
      if (change.config) {
        const saved = await this.images.persist(orgId, change.config);
        stored.config = saved.document as unknown as Record<string, unknown>;
        stored.assetIds = saved.assetIds;
        stored.fromMarkdown = prefix === '';
        newAssets = saved.newAssets;
      }
      const outcome = await this.store.updateDocument(orgId, id, stored, newAssets, this.clock.now().toISOString(), ifMatch);
      if (outcome === undefined) throw documentNotFound(id);
      if (outcome === 'conflict') {
        // The assets made for this change are not written: their bytes go too.
        await this.images.release(newAssets.map((a) => a.id));
        const now = await this.store.getDocument(orgId, id);
        throw new HttpError('VERSION_CONFLICT', `Document ${id} is at version ${now?.version}, not ${ifMatch}: it changed since you read it. Read it again, apply your change to that version, and send it with If-Match: ${now?.version}.`);
      }
      return { document: outcome.document, released: outcome.releasedAssets };
    });
    await this.images.release(released);
    return { ...documentView(document), warnings };
  }

  #find(orgId: string, id: string): Promise<DocumentRecord> {
    return savedDocument(this.store, orgId, id);
  }
}

function markdownErrors(errors: Issue[], field = 'content'): HttpError {
  return new HttpError('VALIDATION_FAILED', `The Markdown cannot be saved: ${errorSummary(errors.map((i) => locatedIssue(i, field)))}.`, errors.map(publicIssue));
}

function defaultName(doc: DocumentJson): string {
  return doc.document?.title?.trim() || doc.document?.filename || 'Untitled document';
}

export function summaryView(doc: DocumentRecord): DocumentSummary {
  const type = (doc.config.document as { type?: string } | undefined)?.type ?? 'pdf';
  return { id: doc.id, name: doc.name, version: doc.version, stylePresetId: doc.stylePresetId, type, createdAt: doc.createdAt, updatedAt: doc.updatedAt };
}

function documentView(doc: DocumentRecord): DocumentView {
  return { ...summaryView(doc), config: doc.config };
}

export function encodeCursor(key: PageKey): string {
  return Buffer.from(`${key.createdAt}|${key.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): PageKey {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) {
    throw new HttpError('VALIDATION_FAILED', 'cursor is not a cursor this list gave; pass the nextCursor of the previous page unchanged.', [{ path: 'query.cursor', message: 'is not a cursor of this list', code: 'INVALID_FIELD' }]);
  }
  return { createdAt, id };
}
