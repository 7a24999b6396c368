// Interactive forms and their records (DESIGN §8, docs/forms.md): forms made from a saved document's variables and
// managed by API key; the public page's side (open a link, store a submission with its images, render it, its
// status); records read, deleted and exported.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../../kernel/tokens.js';
import { HttpError } from '../../contracts/errors.js';
import type { CreateForm, FormView, RecordView, UpdateForm } from '../../contracts/forms.js';
import type { QuireConfig } from '../../kernel/config.js';
import type { Clock } from '../../kernel/clock.js';
import type { Store, FormChange } from '../../kernel/store/store.js';
import type { BlobStore } from '../../kernel/store/blob-store.js';
import type { AssetRecord, DocumentRecord, FilloutRecord, FilloutSubmitter, FormImageValue, FormRecord, FormValue, JobRecord, JobStatus } from '../../kernel/model.js';
import { validateDocument } from '../../document/validator.js';
import { scanReferences } from '../../document/references.js';
import { checkWithBlocks, documentNotFound, isObject, savedDocument } from '../document-check.js';
import { BlockInsertion } from '../block-insertion.js';
import { DocumentImages } from '../document-images.js';
import { DownloadLinks } from '../download-links.js';
import { RenderService } from '../render-service.js';
import { decodeCursor, type PageRequest } from '../document-service.js';
import { paged } from '../webhook-endpoints.js';
import { deriveFields, formFields } from './form-fields.js';
import { formPublicUrl, newTokenNonce, verifyFormToken } from './form-token.js';
import { variablesOf } from './form-variables.js';

export { variablesOf } from './form-variables.js';

/** Why a public link does not open a form: 404 (no such form, or not its current token) or 410 (it was one, and ended). */
export class FormLinkError extends Error {
  constructor(
    readonly status: 404 | 410,
    readonly reason: 'not-found' | 'revoked' | 'expired' | 'document-deleted',
  ) {
    super(`form link ${reason}`);
    this.name = 'FormLinkError';
  }
}

/** An image uploaded with a submission, its type already checked by the page (PNG, JPEG, WebP or GIF). */
export interface FormUpload {
  bytes: Buffer;
  mimeType: string;
  filename: string;
}

/** What the page shows of a record's render. */
export interface RecordRenderStatus {
  status: JobStatus;
  downloadUrl: string | null;
  error: string | null;
}

type Page<T> = { items: T[]; nextCursor: string | null };

/** How an export lists its records: a page at a time, all of the form's. */
const EXPORT_PAGE = 200;
/** How many replaced link nonces a form remembers (their links answer 410 rather than 404). */
const RETIRED_NONCES_KEPT = 20;

@injectable()
export class FormService {
  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Blobs) private readonly blobs: BlobStore,
    @inject(TOKENS.Secrets) private readonly secret: Buffer,
    @inject(RenderService) private readonly renders: RenderService,
    @inject(DocumentImages) private readonly images: DocumentImages,
    @inject(BlockInsertion) private readonly blocks: BlockInsertion,
    @inject(DownloadLinks) private readonly links: DownloadLinks,
  ) {}

  // ---------------------------------------------------------------- forms (API key)

  /** POST /documents/{documentId}/forms: the fields derived from the document, with the request's overrides. */
  async create(orgId: string, documentId: string, body: CreateForm): Promise<FormView> {
    const doc = await savedDocument(this.store, orgId, documentId);
    if (body.expiresAt !== undefined) this.#checkExpiry(body.expiresAt);
    const fields = await this.#fields(orgId, doc, body.fields ?? []);
    const now = this.clock.now().toISOString();
    const form: FormRecord = {
      id: randomUUID(),
      orgId,
      documentId: doc.id,
      title: body.title ?? doc.name,
      description: body.description ?? null,
      fields,
      autoRender: body.autoRender ?? false,
      format: body.format ?? 'PDF',
      locale: body.locale ?? 'en',
      labels: body.labels ?? {},
      submissionsPerMinute: body.submissionsPerMinute ?? 10,
      recordIp: body.recordIp ?? false,
      tokenNonce: newTokenNonce(),
      expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
      revokedAt: null,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.createForm(form);
    return this.view(form);
  }

  async get(orgId: string, id: string): Promise<FormView> {
    return this.view(await this.#find(orgId, id));
  }

  /** GET /documents/{documentId}/forms: also the forms of a deleted document (they stay); 404 when the organization has neither. */
  async list(orgId: string, documentId: string, page: PageRequest): Promise<Page<FormView>> {
    const rows = await this.store.listForms(orgId, { documentId }, page.limit + 1, page.cursor === null ? undefined : decodeCursor(page.cursor));
    if (!rows.length && page.cursor === null && !(await this.store.getDocument(orgId, documentId))) throw documentNotFound(documentId);
    return paged(rows, page.limit, (f) => this.view(f));
  }

  /** PATCH /forms/{id}: the fields given; `fields` derives them again from the document as it is now. */
  async update(orgId: string, id: string, body: UpdateForm, ifMatch: number | undefined): Promise<FormView> {
    if (body.expiresAt) this.#checkExpiry(body.expiresAt);
    let fields: FormRecord['fields'] | undefined;
    if (body.fields !== undefined) {
      const form = await this.#find(orgId, id);
      const doc = await this.store.getDocument(orgId, form.documentId);
      if (!doc) throw new HttpError('VALIDATION_FAILED', `The form's document ${form.documentId} was deleted: its fields cannot be derived again.`, [{ path: 'fields', message: 'the document was deleted', code: 'INVALID_FIELD' }]);
      fields = await this.#fields(orgId, doc, body.fields);
    }
    const change: FormChange = {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(fields ? { fields } : {}),
      ...(body.expiresAt !== undefined ? { expiresAt: body.expiresAt === null ? null : new Date(body.expiresAt).toISOString() } : {}),
      ...(body.autoRender !== undefined ? { autoRender: body.autoRender } : {}),
      ...(body.format !== undefined ? { format: body.format } : {}),
      ...(body.locale !== undefined ? { locale: body.locale } : {}),
      ...(body.labels !== undefined ? { labels: body.labels } : {}),
      ...(body.submissionsPerMinute !== undefined ? { submissionsPerMinute: body.submissionsPerMinute } : {}),
      ...(body.recordIp !== undefined ? { recordIp: body.recordIp } : {}),
    };
    return this.view(await this.#update(orgId, id, () => change, ifMatch));
  }

  /** DELETE /forms/{id}: with its records and their images. */
  async delete(orgId: string, id: string): Promise<void> {
    const gone = await this.images.exclusive(orgId, () => this.store.deleteForm(orgId, id));
    if (!gone) throw formNotFound(id);
    await this.images.release(gone.releasedAssets);
  }

  /** POST /forms/{id}/revoke: the link answers 410 until a new token is made. */
  async revoke(orgId: string, id: string): Promise<FormView> {
    const at = this.clock.now().toISOString();
    return this.view(await this.#update(orgId, id, (current) => (current.revokedAt ? {} : { revokedAt: at })));
  }

  /** POST /forms/{id}/rotate-token: a new link; every earlier one answers 410 (as revoked), and a revoked form is open again. */
  async rotate(orgId: string, id: string): Promise<FormView> {
    return this.view(
      await this.#update(orgId, id, (current) => ({
        tokenNonce: newTokenNonce(),
        retiredTokenNonces: [current.tokenNonce, ...(current.retiredTokenNonces ?? [])].slice(0, RETIRED_NONCES_KEPT),
        revokedAt: null,
      })),
    );
  }

  /** The API's view of a form: never its nonce; its link and status as of now. */
  view(form: FormRecord): FormView {
    const { orgId: _org, tokenNonce, retiredTokenNonces: _retired, ...rest } = form;
    return { ...rest, status: this.#status(form), publicUrl: formPublicUrl(this.config.publicUrl, this.secret, form.id, tokenNonce) };
  }

  // ---------------------------------------------------------------- the public page

  /** The form a public link opens, with its document; FormLinkError (404 or 410) when it does not open one. */
  async openPublic(formId: string, token: string | null): Promise<{ form: FormRecord; document: DocumentRecord }> {
    const form = await this.store.getFormById(formId);
    if (!form) throw new FormLinkError(404, 'not-found');
    if (!verifyFormToken(this.secret, form.id, form.tokenNonce, token)) {
      // A link the owner replaced is an ended link, as a revoked one is; any other token is no link of this form.
      const retired = (form.retiredTokenNonces ?? []).some((nonce) => verifyFormToken(this.secret, form.id, nonce, token));
      throw retired ? new FormLinkError(410, 'revoked') : new FormLinkError(404, 'not-found');
    }
    if (form.revokedAt) throw new FormLinkError(410, 'revoked');
    if (this.#expired(form)) throw new FormLinkError(410, 'expired');
    const document = await this.store.getDocument(form.orgId, form.documentId);
    if (!document) throw new FormLinkError(410, 'document-deleted');
    return { form, document };
  }

  /** The record's variables (services/forms/form-variables.ts). */
  variablesOf(form: Pick<FormRecord, 'fields'>, document: Pick<DocumentRecord, 'config'>, values: Record<string, FormValue>): ReturnType<typeof variablesOf> {
    return variablesOf(form, document, values);
  }

  /**
   * Stores a checked submission: each upload becomes a permanent asset (bytes first, then the record and the assets
   * in one write), then with `autoRender` its render is admitted (`filloutId` = the record's id). A refused admission
   * (credits, backlog, a document the values make invalid) is kept on the record as `renderError`; the record stays.
   */
  async submit(form: FormRecord, values: Record<string, FormValue>, uploads: Record<string, FormUpload>, submitter: FilloutSubmitter): Promise<{ record: FilloutRecord; job: JobRecord | null }> {
    const now = this.clock.now().toISOString();
    const assets: AssetRecord[] = [];
    const all: Record<string, FormValue> = { ...values };
    let written = false;
    try {
      for (const [name, upload] of Object.entries(uploads)) {
        const id = randomUUID();
        await this.blobs.put(id, upload.bytes);
        assets.push({ id, orgId: form.orgId, mimeType: upload.mimeType, sizeBytes: upload.bytes.length, sourceImageId: null, createdAt: now });
        all[name] = { assetId: id, mimeType: upload.mimeType, sizeBytes: upload.bytes.length, filename: upload.filename } satisfies FormImageValue;
      }
      const record: FilloutRecord = {
        id: randomUUID(),
        orgId: form.orgId,
        formId: form.id,
        documentId: form.documentId,
        values: all,
        assetIds: assets.map((a) => a.id),
        submitter: { userAgent: submitter.userAgent, locale: submitter.locale, ip: form.recordIp ? submitter.ip : null },
        jobId: null,
        renderError: null,
        createdAt: now,
      };
      await this.store.createFillout(record, assets);
      written = true;
      return form.autoRender ? await this.#render(form, record) : { record, job: null };
    } catch (err) {
      // Nothing refers to the bytes of a record that was not written.
      if (!written) await this.images.release(assets.map((a) => a.id));
      throw err;
    }
  }

  /** The state of the render a record started; null when it started none (or the job is gone). */
  async renderStatus(record: FilloutRecord): Promise<RecordRenderStatus | null> {
    if (!record.jobId) return null;
    const job = await this.store.getJob(record.orgId, record.jobId);
    if (!job) return null;
    return { status: job.status, downloadUrl: this.links.downloadUrl(job), error: job.error };
  }

  async #render(form: FormRecord, record: FilloutRecord): Promise<{ record: FilloutRecord; job: JobRecord | null }> {
    try {
      const job = await this.renders.createFromDocument(form.orgId, form.documentId, { format: form.format, filloutId: record.id }, false, 'the form submission');
      return { record: (await this.store.updateFillout(form.orgId, record.id, { jobId: job.id })) ?? { ...record, jobId: job.id }, job };
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const renderError = { code: err.code, message: err.message };
      return { record: (await this.store.updateFillout(form.orgId, record.id, { renderError })) ?? { ...record, renderError }, job: null };
    }
  }

  // ---------------------------------------------------------------- records (API key)

  /**
   * GET /records: a form named must be the organization's (404 otherwise); a document named must be, or have been
   * (its records outlive it): 404 when the organization has neither it nor records of it.
   */
  async listRecords(orgId: string, filter: { formId?: string; documentId?: string }, page: PageRequest): Promise<Page<RecordView>> {
    if (filter.formId) await this.#find(orgId, filter.formId);
    const rows = await this.store.listFillouts(orgId, filter, page.limit + 1, page.cursor === null ? undefined : decodeCursor(page.cursor));
    if (filter.documentId && !rows.length && page.cursor === null && !(await this.store.getDocument(orgId, filter.documentId))) throw documentNotFound(filter.documentId);
    return paged(rows, page.limit, recordView);
  }

  async getRecord(orgId: string, id: string): Promise<RecordView> {
    const rec = await this.store.getFillout(orgId, id);
    if (!rec) throw recordNotFound(id);
    return recordView(rec);
  }

  /** DELETE /records/{id}: the record and the images only it used. */
  async deleteRecord(orgId: string, id: string): Promise<void> {
    const gone = await this.images.exclusive(orgId, () => this.store.deleteFillout(orgId, id));
    if (!gone) throw recordNotFound(id);
    await this.images.release(gone.releasedAssets);
  }

  /** Every record of the form, newest first, with the form (for its columns). */
  async allRecords(orgId: string, formId: string): Promise<{ form: FormRecord; records: RecordView[] }> {
    const form = await this.#find(orgId, formId);
    const records: RecordView[] = [];
    let after: FilloutRecord | undefined;
    for (;;) {
      const rows = await this.store.listFillouts(orgId, { formId }, EXPORT_PAGE, after ? { createdAt: after.createdAt, id: after.id } : undefined);
      records.push(...rows.map(recordView));
      if (rows.length < EXPORT_PAGE) return { form, records };
      after = rows[rows.length - 1];
    }
  }

  // ---------------------------------------------------------------- parts

  /** The document's fields with the overrides: its variables, and those its text (with its linked blocks) uses undeclared. */
  async #fields(orgId: string, doc: DocumentRecord, overrides: NonNullable<CreateForm['fields']>): Promise<FormRecord['fields']> {
    const variables = isObject(doc.config.variables) ? doc.config.variables : {};
    const valid = validateDocument(doc.config);
    let undeclared: string[] = [];
    if (valid.valid) {
      const { document } = await checkWithBlocks(orgId, valid.document!, false, { insertion: this.blocks, purpose: 'render' }, 'config.');
      undeclared = scanReferences(document).unknownVariableNames;
    }
    return formFields(deriveFields(variables, undeclared), overrides, variables);
  }

  #checkExpiry(expiresAt: string): void {
    if (Date.parse(expiresAt) <= this.clock.now().getTime()) {
      throw new HttpError('VALIDATION_FAILED', `expiresAt ${expiresAt} has passed; give a time in the future (or leave it out for a link that does not expire).`, [{ path: 'expiresAt', message: 'must be in the future', code: 'INVALID_FIELD' }]);
    }
  }

  #expired(form: FormRecord): boolean {
    return form.expiresAt !== null && Date.parse(form.expiresAt) <= this.clock.now().getTime();
  }

  #status(form: FormRecord): FormView['status'] {
    if (form.revokedAt) return 'REVOKED';
    return this.#expired(form) ? 'EXPIRED' : 'ACTIVE';
  }

  async #update(orgId: string, id: string, change: (current: FormRecord) => FormChange, ifMatch?: number): Promise<FormRecord> {
    const outcome = await this.store.updateForm(orgId, id, change, this.clock.now().toISOString(), ifMatch);
    if (outcome === 'conflict') {
      const now = await this.store.getForm(orgId, id);
      throw new HttpError('VERSION_CONFLICT', `Form ${id} is at version ${now?.version}, not ${ifMatch}: it changed since you read it. Read it again and send its current version in If-Match.`);
    }
    if (!outcome) throw formNotFound(id);
    return outcome;
  }

  async #find(orgId: string, id: string): Promise<FormRecord> {
    const form = await this.store.getForm(orgId, id);
    if (!form) throw formNotFound(id);
    return form;
  }
}

export function formNotFound(id: string): HttpError {
  return new HttpError('NOT_FOUND', `Form ${id} was not found (unknown, deleted, or another organization's).`);
}

export function recordNotFound(id: string, path?: string): HttpError {
  return new HttpError('NOT_FOUND', `Record ${id} was not found (unknown, deleted with its form, or another organization's).`, path ? [{ path, message: 'no such record', code: 'NOT_FOUND' }] : undefined);
}

/** The API's view of a record: images with the URL they are read at. */
export function recordView(r: FilloutRecord): RecordView {
  const values: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(r.values)) values[name] = isImage(v) ? { ...v, url: `/api/v1/dev/images/${v.assetId}` } : v;
  return { id: r.id, formId: r.formId, documentId: r.documentId, values, submitter: r.submitter, jobId: r.jobId, renderError: r.renderError, createdAt: r.createdAt };
}

export function isImage(v: FormValue): v is FormImageValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as FormImageValue).assetId === 'string';
}

