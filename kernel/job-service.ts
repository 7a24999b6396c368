// Creating tools jobs: input files, page specs, credits and backpressure, then persist and queue. The caller
// checked the body against the action's request schema (jobRequestSchema); the messages name the endpoint it gives.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { Type } from '@sinclair/typebox';
import { TOKENS } from './tokens.js';
import { HttpError, type FieldError } from '../contracts/errors.js';
import { checkPageSpecs, resolvePageSpec } from '../sdk/page-spec.js';
import { KeyedMutex } from './keyed-mutex.js';
import { currentIdempotencyKey, failpointAfterAdmission } from './idempotency-scope.js';
import { JobRunner, inputFileRefs } from './job-runner.js';
import { WebhookSchema } from '../contracts/common.js';
import { FORBIDDEN_WEBHOOK_HEADERS } from './webhook-delivery.js';
import type { UrlPolicy } from '../sdk/url-policy.js';
import type { Clock } from './clock.js';
import type { Store } from './store/store.js';
import { servingPool, type PluginRegistry, type RegisteredAction } from './plugin-registry.js';
import type { ActionCredits } from '../sdk/plugin-api.js';
import type { BulkJobRecord, FileRecord, JobRecord, WebhookConfig } from './model.js';
import type { TObject, TSchema } from '@sinclair/typebox';

/** A body matching jobRequestSchema: the action's input fields and the optional `webhook`. */
export type JobRequest = Record<string, unknown> & { webhook?: WebhookConfig };

/** The request body schema of a job route: the plugin's input plus the kernel's `webhook`. */
export function jobRequestSchema(inputSchema: TSchema): TSchema {
  const input = inputSchema as TObject;
  return Type.Object({ ...input.properties, webhook: Type.Optional(WebhookSchema) }, { additionalProperties: false, description: input.description });
}

@injectable()
export class JobService {
  readonly #orgLocks = new KeyedMutex();
  /** Credits held outside the store, per organization: synchronous imports in progress (jobs hold theirs as records). */
  readonly #held = new Map<string, number>();

  constructor(
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.UrlPolicy) private readonly urlPolicy: UrlPolicy,
    @inject(JobRunner) private readonly runner: JobRunner,
    @inject(TOKENS.Registry) private readonly registry: PluginRegistry,
  ) {}

  /**
   * A tools job from a body that matches the action's jobRequestSchema (the caller checked it). `endpoint`
   * is how the caller names what it serves (a tools route), for the answers that name it.
   */
  async create(orgId: string, reg: RegisteredAction, body: JobRequest, endpoint: string): Promise<JobRecord> {
    const { action, plugin } = reg;
    const { webhook, ...params } = body;
    if (webhook) this.#checkWebhook(webhook);

    const refs = inputFileRefs(action, params);
    const files = await this.resolveInputFiles(orgId, action, params, endpoint, refs);
    // A request may need an optional system component the machine lacks (LibreOffice for a PDF output).
    const absent = this.registry.missingFor(reg, params, refs.map((r) => ({ field: r.field, mimeType: files.get(r.fileId)!.mimeType })));
    if (absent.length) {
      const how = plugin.definition.manifest.requires.filter((c) => absent.includes(c.name)).map((c) => `${c.name} (${c.install})`);
      throw new HttpError('PLUGIN_UNAVAILABLE', `${endpoint} cannot serve this request: it needs ${how.join(', ')}, which is not installed on this server. Requests that do not need it still work.`, undefined, { 'Retry-After': '3600' });
    }
    const specErrors: FieldError[] = [];
    for (const decl of action.pageSpecs ?? []) {
      const specs = params[decl.field] as string[] | undefined;
      if (!specs) continue;
      const file = files.get(String(params[decl.file]));
      for (const p of checkPageSpecs(specs, file?.pageCount ?? null)) {
        specErrors.push({ path: `${decl.field}[${p.index}]`, message: p.message, code: 'INVALID_PAGE_SPEC' });
      }
    }
    if (specErrors.length) throw new HttpError('VALIDATION_FAILED', `Invalid page specs: ${specErrors.map((e) => e.message).join('; ')}.`, specErrors);
    const pages = action.pages ? await this.#meterPages(orgId, reg, params, files.get(String(params[action.pages.file])), endpoint) : undefined;

    // A tools job's answers and events show none of its request (toolsJobView): nothing of it is kept once it finishes.
    return this.admit(orgId, reg, { kind: 'tools', params, paramsShown: {}, webhook: webhook ?? null, inputFileIds: [...new Set(refs.map((r) => r.fileId))], what: endpoint, pages });
  }

  /**
   * A page-metered action: checks the rules that depend on the input's type (400), counts the pages the
   * job will process and checks them against the organization plan's limit (413).
   */
  async #meterPages(orgId: string, reg: RegisteredAction, params: Record<string, unknown>, file: FileRecord | undefined, endpoint: string): Promise<number> {
    const decl = reg.action.pages!;
    const isPdf = file?.mimeType === 'application/pdf';
    const errors: FieldError[] = [];
    for (const rule of decl.pdfOnly ?? []) {
      const value = params[rule.field];
      if (value === undefined || isPdf || (rule.values && !rule.values.includes(String(value)))) continue;
      const what = rule.values ? `${rule.field} ${JSON.stringify(value)}` : rule.field;
      errors.push({ path: rule.field, message: `${what} needs a PDF input; ${decl.file} is ${file?.mimeType ?? 'not a PDF'}`, code: 'INVALID_FIELD' });
    }
    for (const rule of decl.onlyWhen ?? []) {
      if (params[rule.field] === undefined || rule.values.includes(String(params[rule.other]))) continue;
      errors.push({ path: rule.field, message: `is allowed only when ${rule.other} is ${rule.values.map((v) => JSON.stringify(v)).join(' or ')}`, code: 'INVALID_FIELD' });
    }
    if (errors.length) throw new HttpError('VALIDATION_FAILED', `The request does not fit its input: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`, errors);

    let count = 1;
    if (isPdf && file.pageCount !== null) {
      const specs = decl.specs ? (params[decl.specs] as string[] | undefined) : undefined;
      if (specs?.length) count = new Set(specs.flatMap((s) => resolvePageSpec(s, file.pageCount!))).size;
      else count = Math.min(file.pageCount, decl.firstPages ?? file.pageCount);
    }
    const org = await this.store.getOrganization(orgId);
    const limit = org ? planPageLimit(decl.planLimits ?? {}, reg.plugin.settings.planPageLimits, org.plan) : null;
    if (limit !== null && count > limit) {
      throw new HttpError('PAGE_LIMIT_EXCEEDED', `${endpoint} would process ${count} pages of ${decl.file}; plan ${org!.plan} allows ${limit} per job. Select fewer pages${decl.specs ? ` with ${decl.specs}` : ''} or split the PDF.`);
    }
    return count;
  }

  /** The tool files a request names, looked up in the caller's organization (404) and checked against the action's accepted types (415); `endpoint` as in `create`. */
  async resolveInputFiles(orgId: string, action: RegisteredAction['action'], params: Record<string, unknown>, endpoint: string, refs = inputFileRefs(action, params)): Promise<Map<string, FileRecord>> {
    const now = this.clock.now().toISOString();
    const files = new Map<string, FileRecord>();
    for (const ref of refs) {
      const path = fieldPath(params, ref);
      const rec = await this.store.getFile(orgId, ref.fileId);
      // Temporary images (uploaded for documents) are not tool inputs.
      if (!rec || rec.kind === 'IMAGE' || rec.expiresAt <= now) throw new HttpError('NOT_FOUND', `${path}: file ${ref.fileId} was not found (unknown, expired, or another organization's).`);
      const { accept, maxBytes } = action.files!.find((f) => f.field === ref.field || matchesPath(f.field, ref.field))!;
      if (!accept.includes(rec.mimeType)) {
        throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `${path}: file ${ref.fileId} is ${rec.mimeType} (detected from its content); ${endpoint} accepts ${accept.join(', ')}.`);
      }
      if (maxBytes !== undefined && rec.sizeBytes > maxBytes) {
        throw new HttpError('PAYLOAD_TOO_LARGE', `${path}: file ${ref.fileId} has ${rec.sizeBytes} bytes; ${endpoint} takes files of at most ${maxBytes} bytes (${formatMegabytes(maxBytes)}).`);
      }
      files.set(ref.fileId, rec);
    }
    return files;
  }

  /** Credits promised and not yet charged: unfinished jobs' estimates and what imports in progress hold. */
  async reserved(orgId: string): Promise<number> {
    return (await this.store.outstandingEstimate(orgId)) + (this.#held.get(orgId) ?? 0);
  }

  /**
   * Holds `cost` credits for work that runs outside a job (a synchronous import), checked against the balance
   * under the same per-organization lock as job admission (402 when they are not available). The returned
   * function gives them back; charge before calling it, so the credits are never counted twice or not at all.
   */
  async hold(orgId: string, actionName: string, cost: number): Promise<() => void> {
    await this.#orgLocks.run(orgId, async () => {
      await this.#checkAvailable(orgId, actionName, cost);
      this.#held.set(orgId, (this.#held.get(orgId) ?? 0) + cost);
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#held.get(orgId) ?? cost) - cost;
      if (left > 0) this.#held.set(orgId, left);
      else this.#held.delete(orgId);
    };
  }

  /** 401 when the organization is gone, 402 when its balance less what is reserved does not cover `cost`. */
  async #checkAvailable(orgId: string, actionName: string, cost: number): Promise<void> {
    const credit = await this.store.creditState(orgId);
    const held = this.#held.get(orgId) ?? 0;
    if (!credit || credit.balance - credit.outstanding - held < cost) this.#refuse(credit, orgId, actionName, cost);
  }

  /** The 401 (the organization is gone) or 402 (its balance less what is reserved does not cover `cost`) of a refusal. */
  #refuse(credit: { balance: number; outstanding: number } | undefined, orgId: string, actionName: string, cost: number): never {
    if (!credit) throw new HttpError('UNAUTHENTICATED', 'The organization of this key no longer exists.');
    const balance = credit.balance;
    const available = balance - (credit.outstanding + (this.#held.get(orgId) ?? 0));
    throw new HttpError('INSUFFICIENT_CREDITS', `${actionName} costs ${cost} credit${cost === 1 ? '' : 's'}; the organization has ${Math.max(0, available)} available (balance ${balance}, the rest reserved by unfinished work).`);
  }

  /**
   * The common part of every job creation: backpressure (503), credits against the balance minus what
   * unfinished jobs already promised (402: the store checks and writes in one step for all servers on it; the
   * per-organization lock here orders admissions with this server's holds), then persist and queue.
   */
  async admit(orgId: string, reg: RegisteredAction, spec: AdmitSpec): Promise<JobRecord> {
    this.#checkBacklog([{ reg, spec }]);
    const cost = jobCost(reg.action.credits, spec.params, spec.pages ?? 0);
    // The lock covers the credit check and making the job visible (which counts it as outstanding);
    // the disk write is awaited outside it, so concurrent admissions of one organization share a
    // journal write and its fdatasync instead of queueing behind each other's.
    const { job, durable } = await this.#orgLocks.run(orgId, async () => {
      const job = this.#jobRecord(orgId, reg, spec, cost);
      const admission = await this.store.admitJob(job, { cost, held: this.#held.get(orgId) ?? 0 });
      if (!admission.admitted) this.#refuse(admission.credit, orgId, reg.action.name, cost);
      return { job, durable: admission.durable };
    });
    await durable;
    failpointAfterAdmission(job.idempotencyKey);
    this.runner.enqueue(job);
    return job;
  }

  /**
   * Many jobs at once, all or none (a bulk render): the backlog must take them all (503), the credits of all of them
   * must be available (402, `what` names the request), and they are written with the record `group` makes of them
   * in one write, then queued.
   */
  async admitMany<G extends BulkJobRecord>(orgId: string, entries: Array<{ reg: RegisteredAction; spec: AdmitSpec }>, what: string, group: (jobs: JobRecord[]) => G): Promise<G> {
    this.#checkBacklog(entries);
    const costs = entries.map(({ reg, spec }) => jobCost(reg.action.credits, spec.params, spec.pages ?? 0));
    const total = costs.reduce((a, b) => a + b, 0);
    const { record, jobs, durable } = await this.#orgLocks.run(orgId, async () => {
      const jobs = entries.map(({ reg, spec }, i) => this.#jobRecord(orgId, reg, spec, costs[i]!));
      const key = currentIdempotencyKey(orgId);
      const record: G = key === undefined ? group(jobs) : { ...group(jobs), idempotencyKey: key };
      const admission = await this.store.admitBulkJob(record, jobs, { cost: total, held: this.#held.get(orgId) ?? 0 });
      if (!admission.admitted) this.#refuse(admission.credit, orgId, what, total);
      return { record, jobs, durable: admission.durable };
    });
    await durable;
    failpointAfterAdmission(record.idempotencyKey);
    for (const job of jobs) this.runner.enqueue(job);
    return record;
  }

  /** 503 when a plugin's unfinished jobs and these would pass its backlog limit. */
  #checkBacklog(entries: Array<{ reg: RegisteredAction; spec: AdmitSpec }>): void {
    const added = new Map<string, { reg: RegisteredAction; count: number; what: string }>();
    for (const { reg, spec } of entries) {
      const id = reg.plugin.definition.manifest.id;
      const seen = added.get(id);
      if (seen) seen.count++;
      else added.set(id, { reg, count: 1, what: spec.what });
    }
    for (const [id, { reg, count, what }] of added) {
      const pool = servingPool(reg);
      if (this.runner.backlog(id) + count > pool.limits.maxBacklog) {
        const retryAfter = Math.max(1, Math.ceil(pool.limits.timeoutMs / 1000 / 4));
        const detail = count === 1 ? `${what} has ${pool.limits.maxBacklog} unfinished jobs, its limit` : `${what} would add ${count} jobs to the ${this.runner.backlog(id)} unfinished ones of its plugin; ${pool.limits.maxBacklog} is the limit`;
        throw new HttpError('SERVICE_BUSY', `${detail}; retry in ${retryAfter} s.`, undefined, { 'Retry-After': String(retryAfter) });
      }
    }
  }

  #jobRecord(orgId: string, reg: RegisteredAction, spec: AdmitSpec, cost: number): JobRecord {
    const key = currentIdempotencyKey(orgId);
    return {
      id: randomUUID(),
      kind: spec.kind,
      orgId,
      pluginId: reg.plugin.definition.manifest.id,
      action: reg.action.name,
      status: 'PENDING',
      params: spec.params,
      ...(spec.paramsShown ? { paramsShown: spec.paramsShown } : {}),
      inputFileIds: spec.inputFileIds,
      outputFileId: null,
      error: null,
      errorCode: null,
      result: null,
      webhook: spec.webhook,
      ...(spec.imageSources?.length ? { imageSources: spec.imageSources } : {}),
      ...(spec.warnings?.length ? { warnings: spec.warnings } : {}),
      ...(spec.bulk ? { bulk: spec.bulk } : {}),
      // A bulk job's items do not carry the key: their bulk job does.
      ...(!spec.bulk && key !== undefined ? { idempotencyKey: key } : {}),
      estimatedCredits: cost,
      chargedCredits: 0,
      attempts: 0,
      progress: 0,
      createdAt: spec.createdAt ?? this.clock.now().toISOString(),
      startedAt: null,
      completedAt: null,
    };
  }

  /** Checks a request's webhook: URL syntax under the outbound policy and consistent auth fields (400 otherwise). */
  checkWebhook(webhook: WebhookConfig): void {
    this.#checkWebhook(webhook);
  }

  #checkWebhook(webhook: WebhookConfig): void {
    const errors: FieldError[] = [];
    const decision = this.urlPolicy.checkSyntax(webhook.webhookUrl);
    if (!decision.allowed) errors.push({ path: 'webhook.webhookUrl', message: decision.reason, code: 'URL_REFUSED' });
    const auth = webhook.webhookAuth;
    if (auth) {
      if ((auth.headerName === undefined) !== (auth.headerValue === undefined)) {
        errors.push({ path: 'webhook.webhookAuth', message: 'headerName and headerValue go together; give both or neither', code: 'INVALID_FIELD' });
      }
      if (auth.headerName && FORBIDDEN_WEBHOOK_HEADERS.includes(auth.headerName.toLowerCase())) {
        errors.push({ path: 'webhook.webhookAuth.headerName', message: `${auth.headerName} is set by Quire and cannot be overridden; forbidden names: ${FORBIDDEN_WEBHOOK_HEADERS.join(', ')}`, code: 'INVALID_FIELD' });
      }
      if (auth.basicAuthPassword !== undefined && auth.basicAuthUsername === undefined) {
        errors.push({ path: 'webhook.webhookAuth.basicAuthUsername', message: 'is required when basicAuthPassword is given', code: 'INVALID_FIELD' });
      }
    }
    if (errors.length) throw new HttpError('VALIDATION_FAILED', `The webhook cannot be used: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`, errors);
  }
}

export interface AdmitSpec {
  kind: 'tools' | 'render';
  params: Record<string, unknown>;
  /** What the job's answers read of `params` once it has finished (JobRecord.paramsShown); absent: all of them. */
  paramsShown?: Record<string, unknown>;
  webhook: WebhookConfig | null;
  inputFileIds: string[];
  imageSources?: string[];
  warnings?: JobRecord['warnings'];
  createdAt?: string;
  /** The bulk render the job is an item of. */
  bulk?: JobRecord['bulk'];
  /** Pages a page-metered action will process (see ActionPages). */
  pages?: number;
  /** Names the endpoint in a 503 answer. */
  what: string;
}

/** `perRequest` plus the per-page price (fixed, or chosen by a body field's value) times the pages. */
export function jobCost(credits: ActionCredits, params: Record<string, unknown>, pages: number): number {
  const per = credits.perPage;
  const perPage = per === undefined ? 0 : typeof per === 'number' ? per : (per.values[String(params[per.field])] ?? 0);
  return credits.perRequest + perPage * pages;
}

/** The page limit of a plan: the operator's override (null = none) wins over the manifest's; unlisted plans have none. */
function planPageLimit(defaults: Record<string, number>, override: unknown, plan: string): number | null {
  if (override && typeof override === 'object' && plan in override) {
    const v = (override as Record<string, unknown>)[plan];
    return typeof v === 'number' && v > 0 ? v : null;
  }
  return defaults[plan] ?? null;
}

function fieldPath(params: Record<string, unknown>, ref: { field: string; fileId: string }): string {
  if (ref.field.includes('.')) return ref.field;
  const value = params[ref.field];
  return Array.isArray(value) ? `${ref.field}[${value.indexOf(ref.fileId)}]` : ref.field;
}

function formatMegabytes(bytes: number): string {
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
}

/** Whether a concrete path (`variables.logo.src`) is one of a declared path's (`variables.*.src`). */
function matchesPath(declared: string, concrete: string): boolean {
  const d = declared.split('.');
  const c = concrete.split('.');
  return d.length === c.length && d.every((seg, i) => seg === '*' || seg === c[i]);
}
