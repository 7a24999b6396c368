// Creating render jobs: `{config, pdfProfile, webhook}` or Extended Markdown with its settings, checked
// (document contract, strict references, images, target), then admitted like any job (backlog, credits)
// and queued on the target's plugin; the page-image variants add `image` and target its format. Also the
// no-render check of Extended Markdown. The route checked each body against its schema; this trusts it.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError, errorSummary, type FieldError } from '../contracts/errors.js';
import { JobService, type AdmitSpec } from '../kernel/job-service.js';
import { DOCUMENT_TYPES, IMAGE_DPI, IMAGE_FORMATS, RENDER_TARGETS, type ImageFormat, type ImageOptions, type MarkdownRenderRequest, type MarkdownValidation } from '../contracts/render.js';
import { uniqueIssues, validateDocument } from '../document/validator.js';
import type { Defaults, DocumentJson } from '../contracts/document-json.js';
import { mergeDefaults, validateStyleDefinition } from '../document/styles.js';
import type { Issue, ParseResult } from '../document/markdown/index.js';
import { MarkdownParser } from './markdown-parser.js';
import { resolveStyle } from './styles.js';
import type { Clock } from '../kernel/clock.js';
import type { Store } from '../kernel/store/store.js';
import { PluginLoadError, type PluginRegistry, type RegisteredAction } from '../kernel/plugin-registry.js';
import type { TObject } from '@sinclair/typebox';
import type { DocumentRecord, JobRecord, WebhookConfig } from '../kernel/model.js';
import type { RenderDocument } from '../contracts/documents.js';
import { DocumentImages } from './document-images.js';
import { checkDocumentConfig, checkWithBlocks, glyphFindings, isObject, locatedIssue, publicIssue, savedDocument } from './document-check.js';
import { BlockInsertion } from './block-insertion.js';
import { hasBlockRefs } from '../document/block-refs.js';
import { checkPageSpecs } from '../sdk/page-spec.js';
import { variablesOf } from './forms/form-variables.js';
import { renderParamsShown } from './job-events.js';

/** The page-image settings of a job, defaults filled in (`pages` `["1-"]`: every page). */
export interface ImageSettings {
  format: ImageFormat;
  dpi: number;
  pages: string[];
}

/**
 * Boot check of the render targets the manifests declare (`ActionDeclaration.target`) against the public
 * contract's (RENDER_TARGETS). The contract keeps its enums (`document.type`, `image.format`, the job's
 * `format`) rather than deriving them at startup from whatever plugins are loaded: they are the spec clients
 * generate code from, the same on every server, and the document validator compiles `document.type` before
 * any plugin loads. So a target outside the contract stops the boot (no request could reach it); a contract
 * target no plugin provides answers 400 UNSUPPORTED_TARGET (docs/rendering.md). Which plugin serves a target,
 * and whether a PDF profile applies to it, come from its manifest and contract alone.
 */
export function checkRenderTargets(registry: PluginRegistry): void {
  for (const { plugin, action } of registry.actions()) {
    if (action.target && !RENDER_TARGETS.includes(action.target)) {
      throw new PluginLoadError(
        `Plugin ${plugin.definition.manifest.id}: ${action.name} declares render target ${action.target}, which no request can name; the render contract's targets are ${RENDER_TARGETS.join(', ')} (contracts/render.ts).`,
      );
    }
  }
}

/** A PDF profile is a promise about a PDF: it applies to the targets whose result reports `pdfCompliance` (render.pdf). */
function keepsPdfProfile(reg: RegisteredAction): boolean {
  const result = reg.plugin.definition.contract[reg.action.name]?.result as TObject | undefined;
  return result?.properties?.pdfCompliance !== undefined;
}

@injectable()
export class RenderService {
  constructor(
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Registry) private readonly registry: PluginRegistry,
    @inject(MarkdownParser) private readonly markdown: MarkdownParser,
    @inject(JobService) private readonly jobs: JobService,
    @inject(DocumentImages) private readonly images: DocumentImages,
    @inject(BlockInsertion) private readonly blocks: BlockInsertion,
  ) {}

  /**
   * A render of document JSON (a body of RenderRequestSchema). `endpoint` is how the caller names what it
   * serves, for the answers that name it (a full backlog).
   */
  async create(orgId: string, body: RenderBody, strict: boolean, endpoint: string): Promise<JobRecord> {
    return this.#createFromConfig(orgId, body, strict, endpoint);
  }

  /** The document of `create`, rasterised page by page (`image`; a body of ImageRenderRequestSchema). */
  async createImages(orgId: string, body: RenderBody, strict: boolean, endpoint: string): Promise<JobRecord> {
    const image = imageSettings(body.image);
    return this.#createFromConfig(orgId, body, strict, endpoint, image);
  }

  async #createFromConfig(orgId: string, body: RenderBody, strict: boolean, what: string, image?: ImageSettings): Promise<JobRecord> {
    return this.#admit(orgId, await this.#planConfig(orgId, body, strict, what, image));
  }

  /** POST /render/document/{documentId}: the saved document with the request's fields (see planDocument). */
  async createFromDocument(orgId: string, documentId: string, body: RenderDocument, strict: boolean, endpoint: string): Promise<JobRecord> {
    const doc = await savedDocument(this.store, orgId, documentId);
    return this.#admit(orgId, await this.planDocument(orgId, doc, body, strict, endpoint));
  }


  /**
   * A render of a saved document, checked and priced but not admitted (a bulk render admits many at once): the
   * request's variables go over the document's, name by name; `format` replaces `document.type` (PNG and JPEG
   * render page images, with `image`); the request's style preset replaces the document's. With `filloutId` the
   * record's variables lie between the document's and the request's.
   */
  async planDocument(orgId: string, doc: DocumentRecord, request: RenderDocument, strict: boolean, what: string, bulk?: JobRecord['bulk']): Promise<PlannedRender> {
    const config = structuredClone(doc.config);
    const recorded = request.filloutId ? await this.#recordVariables(orgId, doc, request.filloutId) : undefined;
    if (request.variables || recorded) config.variables = { ...(isObject(config.variables) ? config.variables : {}), ...recorded, ...request.variables };
    let image: ImageSettings | undefined;
    if (request.format === 'PNG' || request.format === 'JPEG') {
      image = imageSettings({ ...request.image, format: request.format === 'PNG' ? 'png' : 'jpeg' });
    } else if (request.image) {
      throw new HttpError('VALIDATION_FAILED', 'image applies to page images only; set format to PNG or JPEG, or leave image out.', [{ path: 'image', message: 'applies only when format is PNG or JPEG', code: 'INVALID_FIELD' }]);
    } else if (request.format) {
      config.document = { ...(isObject(config.document) ? config.document : {}), type: request.format.toLowerCase() };
    }
    const body: RenderBody = { config, pdfProfile: request.pdfProfile, stylePresetId: request.stylePresetId ?? doc.stylePresetId ?? undefined, webhook: request.webhook };
    return this.#planConfig(orgId, body, strict, what, image, { ...(request.filloutId ? { filloutId: request.filloutId } : {}), ...(bulk ? { bulk } : {}) });
  }

  /**
   * The variables of the record `filloutId` names (services/forms/form-variables.ts): it must be the organization's
   * (else 404) and of this document (else 400).
   */
  async #recordVariables(orgId: string, doc: DocumentRecord, filloutId: string): Promise<Record<string, unknown>> {
    const record = await this.store.getFillout(orgId, filloutId);
    const form = record ? await this.store.getForm(orgId, record.formId) : undefined;
    if (!record || !form) {
      throw new HttpError('NOT_FOUND', `filloutId ${filloutId} names no record of the organization (unknown, deleted with its form, or another organization's).`, [{ path: 'filloutId', message: 'no such record', code: 'NOT_FOUND' }]);
    }
    if (record.documentId !== doc.id) {
      throw new HttpError('VALIDATION_FAILED', `Record ${filloutId} is a submission of a form of document ${record.documentId}, not of ${doc.id}; render that document, or leave filloutId out.`, [{ path: 'filloutId', message: `is a record of document ${record.documentId}`, code: 'INVALID_FIELD' }]);
    }
    return variablesOf(form, doc, record.values);
  }

  async #planConfig(orgId: string, body: RenderBody, strict: boolean, what: string, image?: ImageSettings, extra: PlanExtra = {}): Promise<PlannedRender> {
    const { config, pdfProfile = 'standard', stylePresetId, webhook } = body;
    if (webhook) this.jobs.checkWebhook(webhook);

    const { document: doc, warnings: findings } = await checkDocumentConfig(this.store, orgId, config, stylePresetId, strict, { insertion: this.blocks, purpose: 'render' });
    return this.#plan(orgId, doc, pdfProfile, webhook, [...findings, ...glyphFindings(doc, strict, 'config.')], what, image, extra);
  }

  /** The Markdown and its settings become a document, rendered like `create` (a body of MarkdownRenderRequestSchema). */
  async createFromMarkdown(orgId: string, body: MarkdownRenderRequest, strict: boolean, endpoint: string): Promise<JobRecord> {
    return this.#createFromMarkdown(orgId, body, strict, endpoint, false);
  }

  /** The Markdown request plus `image`, rasterised like `createImages` (a body of MarkdownImageRenderRequestSchema). */
  async createImagesFromMarkdown(orgId: string, body: MarkdownImageRequest, strict: boolean, endpoint: string): Promise<JobRecord> {
    return this.#createFromMarkdown(orgId, body, strict, endpoint, true);
  }

  async #createFromMarkdown(orgId: string, body: MarkdownImageRequest, strict: boolean, what: string, images: boolean): Promise<JobRecord> {
    // The image settings are checked first: they are the envelope's, and cheap.
    const image = images ? imageSettings(body.image) : undefined;
    return this.#admit(orgId, await this.planMarkdown(orgId, body, strict, what, image));
  }

  /**
   * The Markdown request become a checked, priced render, not admitted: a job admits it, and the editor's free
   * preview (POST /render/markdown/preview) runs it on the pool at once. `image` makes it page images.
   */
  async planMarkdown(orgId: string, body: MarkdownRenderRequest, strict: boolean, what: string, image?: ImageSettings): Promise<PlannedRender> {
    const { request, parsed } = await this.#parseMarkdown(orgId, body, strict);
    if (parsed.errors.length) {
      throw new HttpError('VALIDATION_FAILED', `The Markdown cannot be rendered: ${errorSummary(parsed.errors.map((i) => locatedIssue(i)))}.`, parsed.errors);
    }
    // The parser validated the document; validating again fills in the defaults the renderer relies on.
    let doc = validateDocument(parsed.document).document!;
    let warnings: FieldError[] = parsed.warnings;
    if (hasBlockRefs(doc)) {
      const inserted = await checkWithBlocks(orgId, doc, strict, { insertion: this.blocks, purpose: 'render' }, '');
      doc = inserted.document;
      warnings = uniqueIssues([...warnings, ...inserted.warnings]);
    }
    warnings = [...warnings, ...glyphFindings(doc, strict, '')];
    if (request.webhook) this.jobs.checkWebhook(request.webhook as WebhookConfig);
    return this.#plan(orgId, doc, request.pdfProfile ?? 'standard', request.webhook as WebhookConfig | undefined, warnings, what, image);
  }

  /** What `createFromMarkdown` would say of the same body, without rendering. */
  async validateMarkdown(orgId: string, body: MarkdownRenderRequest, strict: boolean): Promise<MarkdownValidation> {
    const { parsed } = await this.#parseMarkdown(orgId, body, strict);
    return { valid: parsed.errors.length === 0, errors: parsed.errors.map(publicIssue), warnings: parsed.warnings.map(publicIssue) };
  }

  /**
   * The style preset must exist (else 400). Styling errors in `style` and everything about the Markdown and
   * the other settings are in the result.
   */
  async #parseMarkdown(orgId: string, request: MarkdownRenderRequest, strict: boolean): Promise<{ request: MarkdownRenderRequest; parsed: ParseResult }> {
    const baseDefaults = request.stylePresetId ? await resolveStyle(this.store, orgId, request.stylePresetId) : undefined;
    const styleErrors: Issue[] = request.style ? validateStyleDefinition(request.style, 'style') : [];
    const style = styleErrors.length ? undefined : (request.style as Defaults | undefined);
    const parsed = await this.markdown.parse(request.content, {
      strict,
      baseDefaults,
      overrides: {
        document: request.document,
        variables: request.variables,
        abbreviations: request.abbreviations,
        citations: request.citations,
        defaults: style || request.defaults ? mergeDefaults(style, request.defaults as Defaults | undefined) : undefined,
      },
    });
    if (styleErrors.length) parsed.errors.unshift(...styleErrors);
    if (styleErrors.length) parsed.document = null;
    return { request, parsed };
  }

  #admit(orgId: string, planned: PlannedRender): Promise<JobRecord> {
    return this.jobs.admit(orgId, planned.reg, planned.spec);
  }

  /** Page images target their format (the pages of the PDF rendering, whatever `document.type` says). */
  async #plan(orgId: string, doc: DocumentJson, pdfProfile: string, webhook: WebhookConfig | undefined, warnings: FieldError[], what: string, image?: ImageSettings, extra: PlanExtra = {}): Promise<PlannedRender> {
    const reg = image ? this.#target(image.format, 'image.format', IMAGE_FORMATS) : this.#target(doc.document.type, 'config.document.type', DOCUMENT_TYPES);
    if (!image && pdfProfile !== 'standard' && !keepsPdfProfile(reg)) {
      // A profile is a promise about a PDF; accepting it for a Word or OpenDocument file would be a silent lie.
      throw new HttpError('VALIDATION_FAILED', `pdfProfile ${pdfProfile} applies to PDF output, not to ${doc.document.type.toUpperCase()}; leave it out or set document.type to pdf.`, [
        { path: 'pdfProfile', message: `applies to PDF output only; document.type is ${doc.document.type}`, code: 'PDF_PROFILE_NOT_APPLICABLE' },
      ]);
    }
    const imageSources = await this.images.check(orgId, doc);
    const createdAt = this.clock.now().toISOString();
    const params = { document: doc, pdfProfile, createdAt, ...(image ? { image } : {}), ...(extra.filloutId ? { filloutId: extra.filloutId } : {}) };
    const spec: AdmitSpec = {
      kind: 'render',
      params,
      paramsShown: renderParamsShown(params),
      webhook: webhook ?? null,
      inputFileIds: [],
      imageSources,
      warnings,
      createdAt,
      what,
      ...(extra.bulk ? { bulk: extra.bulk } : {}),
    };
    return { reg, spec };
  }

  #target(type: string, field: string, targets: readonly string[]): RegisteredAction {
    const reg = this.registry.byTarget(type);
    if (!reg) {
      const available = targets.filter((t) => this.registry.byTarget(t));
      throw new HttpError('VALIDATION_FAILED', `${type.toUpperCase()} output is not available on this server yet; ${field.replace(/^config\./, '')} may be ${available.join(', ') || 'nothing else'}.`, [
        { path: field, message: `${type} output is not available on this server yet; use ${available.join(' or ') || 'another endpoint'}`, code: 'UNSUPPORTED_TARGET' },
      ]);
    }
    const { plugin } = reg;
    if (plugin.state === 'disabled') throw new HttpError('PLUGIN_DISABLED', `${type.toUpperCase()} rendering is provided by plugin ${plugin.definition.manifest.id}, which the operator disabled.`);
    if (plugin.state === 'unavailable') {
      throw new HttpError('PLUGIN_UNAVAILABLE', `${type.toUpperCase()} rendering is unavailable: plugin ${plugin.definition.manifest.id} is ${plugin.reason}.`, undefined, { 'Retry-After': '3600' });
    }
    return reg;
  }
}

/** A render checked and priced, not yet admitted: the target's action and the job's spec. */
export interface PlannedRender {
  reg: RegisteredAction;
  spec: AdmitSpec;
}

interface PlanExtra {
  filloutId?: string;
  bulk?: JobRecord['bulk'];
}

/** A body of RenderRequestSchema or ImageRenderRequestSchema, as the route checked it. */
export type RenderBody = { config: Record<string, unknown>; pdfProfile?: string | undefined; stylePresetId?: string; webhook?: WebhookConfig; image?: ImageOptions };
/** A body of MarkdownRenderRequestSchema or MarkdownImageRenderRequestSchema. */
export type MarkdownImageRequest = MarkdownRenderRequest & { image?: ImageOptions };

/**
 * `image` with its defaults (png, 150 dpi, every page). Malformed page specs answer 400 here; whether a
 * page exists is known only once the PDF is rendered, so the job fails for a page past the end.
 */
function imageSettings(image: ImageOptions | undefined): ImageSettings {
  const pages = image?.pages ?? ['1-'];
  const errors: FieldError[] = checkPageSpecs(pages, null).map((p) => ({ path: `image.pages[${p.index}]`, message: p.message, code: 'INVALID_PAGE_SPEC' }));
  if (errors.length) throw new HttpError('VALIDATION_FAILED', `Invalid page specs: ${errorSummary(errors)}.`, errors);
  return { format: image?.format ?? 'png', dpi: image?.dpi ?? IMAGE_DPI.default, pages };
}
