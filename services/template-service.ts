// Templates (spec "Template", DESIGN §8): the built-in catalog (read-only, browse and copy) and the organization's
// workspace templates, written in Extended Markdown or document JSON, which seed documents when productive.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError, errorSummary } from '../contracts/errors.js';
import { MAX_TEMPLATES_PER_ORG, type CopyTemplate, type CreateTemplate, type TemplateScope, type TemplateSummary, type TemplateView, type UpdateTemplate } from '../contracts/templates.js';
import type { DocumentJson } from '../contracts/document-json.js';
import { MarkdownParser } from './markdown-parser.js';
import { pageByPosition, uniqueSlug } from './slugs-and-pages.js';
import { DocumentImages, withAssetPaths } from './document-images.js';
import { checkDocumentConfig, checkWithBlocks, locatedIssue, publicIssue } from './document-check.js';
import { BlockInsertion } from './block-insertion.js';
import { hasBlockRefs } from '../document/block-refs.js';
import { resolveStyle } from './styles.js';
import { catalogTemplates, type CatalogTemplate } from './template-catalog.js';
import { CatalogPreviews, type PreviewKind } from './catalog-previews.js';
import type { QuireConfig } from '../kernel/config.js';
import type { Clock } from '../kernel/clock.js';
import type { Store, TemplateChange } from '../kernel/store/store.js';
import type { TemplateRecord } from '../kernel/model.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a document made from a template starts with. */
export interface TemplateSeed {
  name: string;
  config: DocumentJson;
  stylePresetId: string | null;
}

@injectable()
export class TemplateService {

  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(MarkdownParser) private readonly markdown: MarkdownParser,
    @inject(DocumentImages) private readonly images: DocumentImages,
    @inject(CatalogPreviews) private readonly previews: CatalogPreviews,
    @inject(BlockInsertion) private readonly blocks: BlockInsertion,
  ) {}

  /** A catalog template's preview (`png`, page 1) or sample PDF, rendered on first request (404 for other ids). */
  async preview(id: string, kind: PreviewKind): Promise<{ path: string; mimeType: string; sizeBytes: number }> {
    const t = catalogTemplates().find((c) => c.id === id);
    if (!t) throw new HttpError('NOT_FOUND', `Template ${id} is not a catalog template; only catalog templates have previews.`);
    return this.previews.file(t, kind);
  }

  #catalogView(t: CatalogTemplate): TemplateView {
    const base = `${this.config.publicUrl}/api/v1/dev/templates/${t.id}`;
    return { ...catalogView(t), previewImage: `${base}/preview.png`, pdfUrl: `${base}/sample.pdf` };
  }

  /** GET /templates: one scope (default workspace), paged by position. */
  async list(orgId: string, scope: TemplateScope, page: { limit: number; cursor: string | null }): Promise<{ items: TemplateSummary[]; nextCursor: string | null }> {
    const all = scope === 'catalog' ? catalogTemplates().map((t) => this.#catalogView(t)) : (await this.store.listTemplates(orgId)).map(workspaceView);
    const { items, nextCursor } = pageByPosition(all, page);
    return { items: items.map(summary), nextCursor };
  }

  /** GET /templates/markdown (legacy): the organization's templates, whole, as a bare array. */
  async legacyList(orgId: string): Promise<TemplateView[]> {
    return (await this.store.listTemplates(orgId)).map(workspaceView);
  }

  async get(orgId: string, id: string): Promise<TemplateView> {
    const catalog = catalogTemplates().find((t) => t.id === id);
    if (catalog) return this.#catalogView(catalog);
    return workspaceView(await this.#own(orgId, id));
  }

  /** `slugBase` names the slug to derive from when none is asked for (a copy's: its original's), else the name. */
  async create(orgId: string, body: CreateTemplate, slugBase = body.name): Promise<TemplateView> {
    const source = await this.#source(orgId, body.markdown, body.config, body.stylePresetId);
    return this.images.exclusive(orgId, async () => {
      const existing = await this.store.listTemplates(orgId);
      if (existing.length >= MAX_TEMPLATES_PER_ORG) {
        throw new HttpError('VALIDATION_FAILED', `The organization already has ${existing.length} templates, the most allowed; delete some first.`, [{ path: '(body)', message: 'too many templates', code: 'LIMIT_EXCEEDED' }]);
      }
      const slug = this.#slug(existing, body.slug, slugBase);
      const saved = await this.images.persist(orgId, source.config);
      const now = this.clock.now().toISOString();
      const rec: TemplateRecord = {
        id: randomUUID(),
        orgId,
        name: body.name,
        slug,
        category: body.category ?? null,
        description: body.description ?? null,
        productive: body.productive ?? true,
        stylePresetId: body.stylePresetId ?? null,
        config: saved.document as unknown as Record<string, unknown>,
        markdown: source.markdown === null ? null : withAssetPaths(source.markdown, saved.replaced),
        warning: source.warning,
        assetIds: saved.assetIds,
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
      await this.store.createTemplate(rec, saved.newAssets);
      return workspaceView(rec);
    });
  }

  async update(orgId: string, id: string, body: UpdateTemplate, ifMatch: number | undefined): Promise<TemplateView> {
    const current = await this.#own(orgId, id);
    if (body.markdown !== undefined && body.config !== undefined) throw both();
    const stylePresetId = body.stylePresetId === undefined ? current.stylePresetId : body.stylePresetId;
    const source = body.markdown !== undefined || body.config !== undefined ? await this.#source(orgId, body.markdown, body.config, stylePresetId ?? undefined) : undefined;
    if (!source && body.stylePresetId) await resolveStyle(this.store, orgId, body.stylePresetId);
    const outcome = await this.images.exclusive(orgId, async () => {
      const change: TemplateChange = {};
      for (const key of ['name', 'productive', 'category', 'description', 'stylePresetId'] as const) if (body[key] !== undefined) (change as Record<string, unknown>)[key] = body[key];
      if (body.slug !== undefined) change.slug = this.#slug((await this.store.listTemplates(orgId)).filter((t) => t.id !== id), body.slug, current.name);
      let newAssets: Awaited<ReturnType<DocumentImages['persist']>>['newAssets'] = [];
      if (source) {
        const saved = await this.images.persist(orgId, source.config);
        Object.assign(change, { config: saved.document, markdown: source.markdown === null ? null : withAssetPaths(source.markdown, saved.replaced), warning: source.warning, assetIds: saved.assetIds });
        newAssets = saved.newAssets;
      }
      const result = await this.store.updateTemplate(orgId, id, change, newAssets, this.clock.now().toISOString(), ifMatch);
      if (result === 'conflict') {
        await this.images.release(newAssets.map((a) => a.id));
        throw new HttpError('VERSION_CONFLICT', `Template ${id} changed since version ${ifMatch}; read it again and send its current version in If-Match.`);
      }
      if (!result) throw notFound(id);
      return result;
    });
    await this.images.release(outcome.releasedAssets);
    return workspaceView(outcome.template);
  }

  async delete(orgId: string, id: string): Promise<void> {
    if (catalogTemplates().some((t) => t.id === id)) throw readOnly(id, 'deleted');
    const gone = await this.images.exclusive(orgId, () => this.store.deleteTemplate(orgId, id));
    if (!gone) throw notFound(id);
    await this.images.release(gone.releasedAssets);
  }

  /** POST /templates/{id}/copy: an independent workspace template with the same content (catalog or workspace). */
  async copy(orgId: string, id: string, body: CopyTemplate): Promise<TemplateView> {
    const from = await this.get(orgId, id);
    return this.create(orgId, {
      name: body.name ?? from.name,
      ...(from.format === 'markdown' ? { markdown: from.markdown } : { config: from.config }),
      productive: body.productive ?? true,
      ...(body.slug ? { slug: body.slug } : {}),
      ...(from.category ? { category: from.category } : {}),
      ...(from.description ? { description: from.description } : {}),
      ...(from.stylePresetId ? { stylePresetId: from.stylePresetId } : {}),
    }, from.slug);
  }

  /** A document's start from a template: only a productive workspace template may seed one (403 otherwise). */
  async seed(orgId: string, templateId: string): Promise<TemplateSeed> {
    const catalog = catalogTemplates().find((t) => t.id === templateId);
    if (catalog) {
      throw new HttpError('TEMPLATE_NOT_PRODUCTIVE', `Template ${templateId} (${catalog.slug}) is a catalog template, which is browse-only: copy it into your workspace with POST /templates/${templateId}/copy and create the document from the copy.`);
    }
    const rec = await this.#own(orgId, templateId);
    if (!rec.productive) {
      throw new HttpError('TEMPLATE_NOT_PRODUCTIVE', `Template ${templateId} is not productive, so documents cannot be created from it; set it productive with PATCH /templates/${templateId} {"productive": true}.`);
    }
    return { name: rec.name, config: rec.config as unknown as DocumentJson, stylePresetId: rec.stylePresetId };
  }

  /** The template's content from its Markdown or its JSON (exactly one), checked like a document's. */
  async #source(orgId: string, markdown: string | undefined, config: Record<string, unknown> | undefined, stylePresetId: string | undefined): Promise<{ config: DocumentJson; markdown: string | null; warning: string | null }> {
    if ((markdown === undefined) === (config === undefined)) throw both();
    if (markdown !== undefined) {
      const parsed = await this.markdown.parse(markdown, {});
      if (parsed.errors.length || !parsed.document) {
        throw new HttpError('VALIDATION_FAILED', `The Markdown cannot be saved as a template: ${errorSummary(parsed.errors.map((i) => locatedIssue(i, 'markdown')))}.`, parsed.errors.map(publicIssue));
      }
      if (stylePresetId) await resolveStyle(this.store, orgId, stylePresetId);
      // Blocks stay references in a template (a document made from it copies its snapshots); checked as a save would.
      if (hasBlockRefs(parsed.document)) await checkWithBlocks(orgId, parsed.document, false, { insertion: this.blocks, purpose: 'save' }, '');
      await this.images.check(orgId, parsed.document, '');
      return { config: parsed.document, markdown, warning: null };
    }
    const checked = await checkDocumentConfig(this.store, orgId, config!, stylePresetId, false, { insertion: this.blocks, purpose: 'save' });
    await this.images.check(orgId, checked.document);
    const doc = config as unknown as DocumentJson;
    const written = await this.markdown.toMarkdown(doc);
    return written.lost
      ? { config: doc, markdown: null, warning: `${written.lost.path}: ${written.lost.what}; the template is kept as JSON (config).` }
      : { config: doc, markdown: written.markdown, warning: null };
  }

  /** The slug asked for (409 if another template has it), or one made from `name`, made unique with -2, -3, .... */
  #slug(existing: TemplateRecord[], asked: string | undefined, name: string): string {
    return uniqueSlug(new Set(existing.map((t) => t.slug)), asked, name, 'template');
  }

  async #own(orgId: string, id: string): Promise<TemplateRecord> {
    if (catalogTemplates().some((t) => t.id === id)) throw readOnly(id, 'changed');
    const rec = UUID.test(id) ? await this.store.getTemplate(orgId, id) : undefined;
    if (!rec) throw notFound(id);
    return rec;
  }
}

function both(): HttpError {
  return new HttpError('VALIDATION_FAILED', 'Give the template as `markdown` or as `config`, not both and not neither.', [{ path: 'markdown', message: 'exactly one of markdown and config is required', code: 'INVALID_FIELD' }]);
}

function notFound(id: string): HttpError {
  return new HttpError('NOT_FOUND', `Template ${id} was not found (unknown, deleted, or another organization's).`);
}

function readOnly(id: string, verb: string): HttpError {
  return new HttpError('FORBIDDEN', `Template ${id} is a catalog template and cannot be ${verb}; copy it with POST /templates/${id}/copy and change the copy.`);
}

function catalogView(t: CatalogTemplate): TemplateView {
  const at = '2026-01-01T00:00:00.000Z';
  return { id: t.id, scope: 'catalog', productive: false, name: t.name, slug: t.slug, category: t.category, description: t.description, stylePresetId: t.stylePresetId, format: 'markdown', markdown: t.markdown, config: t.config as unknown as Record<string, unknown>, createdAt: at, updatedAt: at };
}

function workspaceView(t: TemplateRecord): TemplateView {
  return {
    id: t.id,
    scope: 'workspace',
    productive: t.productive,
    name: t.name,
    slug: t.slug,
    category: t.category ?? '',
    ...(t.description !== null ? { description: t.description } : {}),
    stylePresetId: t.stylePresetId,
    format: t.markdown === null ? 'json_fallback' : 'markdown',
    markdown: t.markdown ?? '',
    config: t.config,
    ...(t.warning ? { warning: t.warning } : {}),
    version: t.version,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

function summary(t: TemplateView): TemplateSummary {
  const { markdown: _m, config: _c, warning: _w, version: _v, ...rest } = t;
  return rest;
}
