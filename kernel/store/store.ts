// The metadata store interface: the embedded lowdb store implements it today, PostgreSQL can later.
import type { AssetRecord, BulkJobRecord, DocumentRecord, IntegrationClient, ResourceTokenRecord, StylePresetRecord, TemplateRecord } from '../model.js';
import type { BlockRecord } from '../model.js';
import type { ApiKeyRecord, FileRecord, JobRecord, JobStatus, LedgerEntry, Organization } from '../model.js';
import type { WebhookAttemptRecord, WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEvent } from '../model.js';
import type { FilloutRecord, FormRecord } from '../model.js';
import type { OperatorAuditEntry, PluginOverride } from '../model.js';

export interface Store {
  init(): Promise<void>;
  close(): Promise<void>;
  /**
   * Runs `fn` (the first start's bootstrap) while no other caller of the same data runs one, in this process or in any
   * other server on the same database: servers starting at once take turns, so the second sees what the first made.
   */
  bootstrapOnce<T>(fn: () => Promise<T>): Promise<T>;

  createOrganization(org: Organization): Promise<void>;
  getOrganization(id: string): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;

  createApiKey(key: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(orgId: string): Promise<ApiKeyRecord[]>;
  revokeApiKey(orgId: string, id: string, at: string): Promise<boolean>;

  createIntegrationClient(client: IntegrationClient): Promise<void>;
  getIntegrationClient(id: string): Promise<IntegrationClient | undefined>;
  listIntegrationClients(): Promise<IntegrationClient[]>;
  createResourceToken(token: ResourceTokenRecord): Promise<void>;
  findResourceTokenByHash(hash: string): Promise<ResourceTokenRecord | undefined>;
  getResourceToken(id: string): Promise<ResourceTokenRecord | undefined>;
  listResourceTokens(orgId: string): Promise<ResourceTokenRecord[]>;
  revokeResourceToken(orgId: string, id: string, at: string): Promise<boolean>;

  createFile(file: FileRecord): Promise<void>;
  /** Scoped to the organization: another organization's file is undefined. */
  getFile(orgId: string, id: string): Promise<FileRecord | undefined>;
  deleteFile(id: string): Promise<void>;
  listFilesExpiredBy(instant: string): Promise<FileRecord[]>;

  createJob(job: JobRecord): Promise<void>;
  /**
   * Like createJob, in two steps: resolves once the job is visible to reads (and counted by
   * outstandingEstimate); `durable` resolves once it is on disk, and rejects if it cannot be written.
   * Without a credit check: admissions go through admitJob, which stages the same way.
   */
  stageJob(job: JobRecord): Promise<{ durable: Promise<void> }>;
  /**
   * stageJob after a credit check, atomically for every server on the store: the job's organization must have
   * `cost` credits beyond what its unfinished jobs' estimates and `held` (credits this server holds outside jobs)
   * take. Two admissions for one organization, on any servers, never both pass a check only one of them would.
   */
  admitJob(job: JobRecord, check: CreditCheck): Promise<Admission>;
  getJob(orgId: string, id: string): Promise<JobRecord | undefined>;
  getJobById(id: string): Promise<JobRecord | undefined>;
  updateJob(id: string, patch: Partial<JobRecord>): Promise<JobRecord>;
  /**
   * Takes a PENDING job to run it: applies `patch` (its move to PROCESSING) and counts the attempt (`attempts` + 1)
   * only if the job is still PENDING, in one step, so of two claims one gets the job and the other undefined (as does
   * a job that is unknown or not PENDING). Resolves once the claim is visible to reads; `durable` resolves once it is
   * stored (as stageJob). A store shared by several nodes records `lease` with it: the claim lapses `ms` after the
   * claim or the last renewal (JobQueue).
   */
  claimJob(id: string, patch: ClaimPatch, lease?: JobLease): Promise<{ job: JobRecord; durable: Promise<void> } | undefined>;
  /**
   * Moves a job to a final state; when `charge` is given, the ledger entry and the balance change
   * are written in the same write as the state change, so a job is never charged twice.
   * `output`, the record of the job's output file, is written in that same write too, and so is, with `event`, one
   * PENDING delivery of it per enabled endpoint of the job's organization whose filter matches (webhook endpoints).
   */
  finishJob(id: string, patch: Partial<JobRecord>, charge: Omit<LedgerEntry, 'balanceAfter'> | null, output?: FileRecord, event?: WebhookEvent): Promise<JobRecord>;
  listJobsByStatus(statuses: JobStatus[]): Promise<JobRecord[]>;
  /**
   * The organization's jobs as GET /jobs lists them: its render and tools jobs (not the items of a bulk job) and its
   * bulk jobs, newest first (ties by id), after the one `after` names, at most `limit`; `filter` keeps the kinds and
   * stored statuses it names (absent or empty: every one).
   */
  listJobs(orgId: string, filter: JobListFilter, limit: number, after?: PageKey): Promise<JobListRow[]>;
  /** Sum of the estimates of the organization's unfinished jobs (credits already promised). */
  outstandingEstimate(orgId: string): Promise<number>;
  /** The organization's balance and outstandingEstimate read together (one read where a read costs a round trip); undefined when the organization is unknown. */
  creditState(orgId: string): Promise<{ balance: number; outstanding: number } | undefined>;
  deleteJobsFinishedBefore(instant: string): Promise<number>;

  addLedgerEntry(entry: Omit<LedgerEntry, 'balanceAfter'>): Promise<LedgerEntry>;
  listLedger(orgId: string, limit: number): Promise<LedgerEntry[]>;

  /** When the preset is the default, the organization's other presets stop being it, in the same write. */
  createStylePreset(preset: StylePresetRecord): Promise<void>;
  /** Scoped to the organization: another organization's preset is undefined. */
  getStylePreset(orgId: string, id: string): Promise<StylePresetRecord | undefined>;
  /** The organization's presets, oldest first. */
  listStylePresets(orgId: string): Promise<StylePresetRecord[]>;
  /**
   * Applies the patch, adds 1 to `version` and sets `updatedAt` to `at`; `isDefault: true` clears the
   * organization's other default in the same write. Undefined when the preset is unknown or another organization's.
   */
  updateStylePreset(orgId: string, id: string, patch: StylePresetPatch, at: string): Promise<StylePresetRecord | undefined>;
  /** False when the preset is unknown or another organization's. */
  deleteStylePreset(orgId: string, id: string): Promise<boolean>;

  /** The document and the new assets it is the first to use, in one write. */
  createDocument(doc: DocumentRecord, newAssets: AssetRecord[]): Promise<void>;
  /** Scoped to the organization: another organization's document is undefined. */
  getDocument(orgId: string, id: string): Promise<DocumentRecord | undefined>;
  countDocuments(orgId: string): Promise<number>;
  /** The organization's documents, newest first, after the one `after` names (a cursor), at most `limit`. */
  listDocuments(orgId: string, limit: number, after?: PageKey): Promise<DocumentRecord[]>;
  /**
   * Replaces what `change` gives, adds 1 to `version` and sets `updatedAt`, in one write with the new assets and the
   * deletion of the assets no document uses any more (their ids are returned: the caller deletes their bytes).
   * 'conflict' when `expectedVersion` is given and is not the stored version; undefined when the document is unknown.
   */
  updateDocument(orgId: string, id: string, change: DocumentChange, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ document: DocumentRecord; releasedAssets: string[] } | 'conflict' | undefined>;
  /** Deletes the document and, in the same write, the assets only it used (returned, as in updateDocument). */
  deleteDocument(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined>;
  /** The template and the new assets it is the first to use, in one write. */
  createTemplate(template: TemplateRecord, newAssets: AssetRecord[]): Promise<void>;
  getTemplate(orgId: string, id: string): Promise<TemplateRecord | undefined>;
  /** The organization's templates, oldest first. */
  listTemplates(orgId: string): Promise<TemplateRecord[]>;
  /** As updateDocument, for a template. */
  updateTemplate(orgId: string, id: string, change: TemplateChange, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ template: TemplateRecord; releasedAssets: string[] } | 'conflict' | undefined>;
  /** As deleteDocument, for a template. */
  deleteTemplate(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined>;

  /** The block and the new assets it is the first to use, in one write. */
  createBlock(block: BlockRecord, newAssets: AssetRecord[]): Promise<void>;
  /** Scoped to the organization: another organization's block is undefined. */
  getBlock(orgId: string, id: string): Promise<BlockRecord | undefined>;
  /** The organization's blocks, oldest first. */
  listBlocks(orgId: string): Promise<BlockRecord[]>;
  /**
   * Calls `change` with the stored block and writes what it returns (with `updatedAt: at`), with nothing in between:
   * a change made from the current state (the next version number, a status move) cannot race another. `change` may
   * throw to refuse (nothing is written). `newAssets` are written in the same write. Undefined when the block is
   * unknown or another organization's.
   */
  updateBlock(orgId: string, id: string, change: (current: BlockRecord) => BlockChange, at: string, newAssets?: AssetRecord[]): Promise<BlockRecord | undefined>;
  /** As deleteDocument, for a block: undefined when the block is unknown or another organization's. */
  deleteBlock(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined>;

  getAsset(orgId: string, id: string): Promise<AssetRecord | undefined>;
  /** The organization's asset made from the temporary image `sourceImageId`, while a document, template or block still uses it. */
  findAssetBySource(orgId: string, sourceImageId: string): Promise<AssetRecord | undefined>;

  /**
   * A bulk job and its items' render jobs, visible at once and written in one write (as stageJob); with `event` (a bulk
   * job FAILED at creation), the deliveries of it as finishBulkJob writes them, in that write too.
   */
  stageBulkJob(bulk: BulkJobRecord, jobs: JobRecord[], event?: WebhookEvent): Promise<{ durable: Promise<void> }>;
  /** stageBulkJob after the credit check of admitJob (the bulk job's organization; `cost` is all the jobs' together). */
  admitBulkJob(bulk: BulkJobRecord, jobs: JobRecord[], check: CreditCheck): Promise<Admission>;
  getBulkJob(orgId: string, id: string): Promise<BulkJobRecord | undefined>;
  listUnfinishedBulkJobs(): Promise<BulkJobRecord[]>;
  /** Moves a bulk job to its final state, with the record of its ZIP (if any) and the deliveries of `event` (as finishJob) in the same write. */
  finishBulkJob(id: string, patch: Partial<BulkJobRecord>, output?: FileRecord, event?: WebhookEvent): Promise<BulkJobRecord>;

  // Idempotency keys (docs/idempotency.md): one record per organization and key, shared by every server on the store.
  /**
   * Takes the key for a request, atomically for every server: 'started' when no record exists or it expired (a new
   * in-flight record is written, durable when this resolves), 'taken-over' when an in-flight record's lease lapsed
   * before `now` (its server died; the record is this caller's now, expiry unchanged), 'in-flight' while another
   * request holds it, 'done' with the stored answer. Of concurrent callers exactly one gets 'started' or 'taken-over'.
   */
  beginIdempotency(orgId: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyBegin>;
  /** Extends the lease of the caller's in-flight record; false when the record is no longer the caller's. */
  renewIdempotency(orgId: string, key: string, owner: string, leaseUntil: string): Promise<boolean>;
  /** Stores the answer on the caller's in-flight record (it becomes 'done'); false when the record is no longer the caller's. */
  completeIdempotency(orgId: string, key: string, owner: string, done: IdempotencyDone): Promise<boolean>;
  /** Deletes the caller's in-flight record (a retry runs again). */
  releaseIdempotency(orgId: string, key: string, owner: string): Promise<void>;
  /** Deletes the records that expired by `instant`; returns how many. */
  deleteIdempotencyExpiredBy(instant: string): Promise<number>;
  /** The job or bulk job of the organization that was admitted with the key (its `idempotencyKey`), bulk jobs first. */
  findJobByIdempotencyKey(orgId: string, key: string): Promise<IdempotentJob | undefined>;

  // Webhook endpoints of organizations and their deliveries (docs/webhooks.md).
  createWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  /** Scoped to the organization: another organization's endpoint is undefined. */
  getWebhookEndpoint(orgId: string, id: string): Promise<WebhookEndpointRecord | undefined>;
  /** The organization's endpoints, newest first, after the one `after` names, at most `limit`. */
  listWebhookEndpoints(orgId: string, limit: number, after?: PageKey): Promise<WebhookEndpointRecord[]>;
  /**
   * Calls `change` with the stored endpoint and writes what it returns, with `version` + 1 and `updatedAt: at`, with
   * nothing in between. 'conflict' when `expectedVersion` is not the stored version; undefined when unknown.
   */
  updateWebhookEndpoint(orgId: string, id: string, change: (current: WebhookEndpointRecord) => WebhookEndpointChange, at: string, expectedVersion?: number): Promise<WebhookEndpointRecord | 'conflict' | undefined>;
  /** Deletes the endpoint and, in the same write, its deliveries. False when unknown or another organization's. */
  deleteWebhookEndpoint(orgId: string, id: string): Promise<boolean>;
  /** A delivery queued outside a job's finish (a ping, a redelivery). */
  createWebhookDelivery(delivery: WebhookDeliveryRecord): Promise<void>;
  getWebhookDelivery(orgId: string, id: string): Promise<WebhookDeliveryRecord | undefined>;
  /** The endpoint's deliveries, newest first, after the one `after` names, at most `limit`. */
  listWebhookDeliveries(orgId: string, endpointId: string, limit: number, after?: PageKey): Promise<WebhookDeliveryRecord[]>;
  /**
   * Takes up to `limit` PENDING deliveries due by `now` that no lease holds (or whose lease lapsed), oldest due first,
   * and leases them to `lease.owner` for `lease.ms`: of two nodes claiming at once, each delivery goes to one.
   */
  claimWebhookDeliveries(now: string, lease: JobLease, limit: number): Promise<WebhookDeliveryRecord[]>;
  /**
   * Writes an attempt's outcome (the delivery's new state, its lease released) and the endpoint's health in one write,
   * if `owner` still holds the delivery's lease; undefined otherwise (the lease lapsed and another node took it, or the
   * delivery went with its endpoint).
   */
  recordWebhookAttempt(id: string, owner: string, outcome: WebhookAttemptOutcome): Promise<WebhookDeliveryRecord | undefined>;
  /** Deletes deliveries created before `instant` (with their logs); returns how many. */
  deleteWebhookDeliveriesBefore(instant: string): Promise<number>;
  // Interactive forms of documents and their records (docs/forms.md).
  createForm(form: FormRecord): Promise<void>;
  /** Scoped to the organization: another organization's form is undefined. */
  getForm(orgId: string, id: string): Promise<FormRecord | undefined>;
  /** Any organization's form: the public page finds it by its id alone (its token is then checked). */
  getFormById(id: string): Promise<FormRecord | undefined>;
  /** The organization's forms (of one document when `documentId` is given), newest first, after the one `after` names, at most `limit`. */
  listForms(orgId: string, filter: { documentId?: string }, limit: number, after?: PageKey): Promise<FormRecord[]>;
  /**
   * Calls `change` with the stored form and writes what it returns, with `version` + 1 and `updatedAt: at`, with
   * nothing in between. 'conflict' when `expectedVersion` is not the stored version; undefined when unknown.
   */
  updateForm(orgId: string, id: string, change: (current: FormRecord) => FormChange, at: string, expectedVersion?: number): Promise<FormRecord | 'conflict' | undefined>;
  /** Deletes the form and, in the same write, its records and the assets only they used (returned: the caller deletes their bytes). */
  deleteForm(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined>;
  /** The record and the new assets (its uploaded images) in one write. */
  createFillout(record: FilloutRecord, newAssets: AssetRecord[]): Promise<void>;
  /** Scoped to the organization: another organization's record is undefined. */
  getFillout(orgId: string, id: string): Promise<FilloutRecord | undefined>;
  /** The organization's records (of one form, or one document, when given), newest first, after `after`, at most `limit`. */
  listFillouts(orgId: string, filter: { formId?: string; documentId?: string }, limit: number, after?: PageKey): Promise<FilloutRecord[]>;
  /** Sets the render the record started, or why it could not; undefined when unknown. */
  updateFillout(orgId: string, id: string, patch: FilloutPatch): Promise<FilloutRecord | undefined>;
  /** Deletes the record and, in the same write, the assets only it used (returned). */
  deleteFillout(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined>;

  // Plugins switched at runtime by operators, and the audit log of the switches (docs/operators.md).
  /** Replaces the plugin's override and appends `entry` to the audit log, in one write. */
  setPluginOverride(override: PluginOverride, entry: OperatorAuditEntry): Promise<void>;
  /** Every plugin's override (one per plugin, the last set), in no particular order. */
  listPluginOverrides(): Promise<PluginOverride[]>;
  /** The audit log, newest first, after the entry `after` names, at most `limit`. */
  listOperatorAudit(limit: number, after?: PageKey): Promise<OperatorAuditEntry[]>;
}

/** The kinds of job GET /jobs lists: render and tools jobs (JobRecord.kind, absent: tools) and bulk jobs. */
export type JobListKind = 'render' | 'tools' | 'bulk';

export interface JobListFilter {
  kinds?: JobListKind[];
  statuses?: JobStatus[];
}

/** One row of the job list: a render or tools job, or a bulk job. */
export type JobListRow = { kind: 'job'; job: JobRecord } | { kind: 'bulk'; bulk: BulkJobRecord };

/** The fields of a form a change may replace. */
export type FormChange = Partial<Omit<FormRecord, 'id' | 'orgId' | 'documentId' | 'version' | 'createdAt' | 'updatedAt'>>;

/** What a record's render changes on it. */
export type FilloutPatch = Partial<Pick<FilloutRecord, 'jobId' | 'renderError'>>;

/** The fields of a webhook endpoint a change may replace. */
export type WebhookEndpointChange = Partial<Pick<WebhookEndpointRecord, 'url' | 'events' | 'description' | 'enabled' | 'disabledReason' | 'secrets' | 'failingSince'>>;

/** What an attempt changed: the delivery (status, attempts, nextAttemptAt, its log entry) and the endpoint's health. */
export interface WebhookAttemptOutcome {
  patch: Pick<WebhookDeliveryRecord, 'status' | 'attempts' | 'nextAttemptAt' | 'updatedAt'>;
  entry: WebhookAttemptRecord;
  /**
   * The endpoint's health after it: a success clears `failingSince`; a failure sets it when unset, and disables the
   * endpoint with `reason` once it has failed for `disableAfterMs` (the delivery then ends FAILED). Absent: unchanged.
   */
  health?: { ok: true } | { ok: false; disableAfterMs: number; reason: string };
}

/** Who asks for an idempotency key and when; the lease and the expiry of a new record. */
export interface IdempotencyClaim {
  owner: string;
  now: string;
  leaseUntil: string;
  expiresAt: string;
}

export type IdempotencyBegin =
  | { state: 'started' }
  | { state: 'taken-over' }
  | { state: 'in-flight'; leaseUntil: string }
  | ({ state: 'done' } & IdempotencyDone);

/** The fingerprint of the first request (SHA-256 of method, URL and body) and its answer. */
export interface IdempotencyDone {
  fingerprint: string;
  response: StoredResponse;
}

/** An HTTP answer as stored for replay: the headers that matter, the body bytes in base64. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One idempotency key's record, as the embedded store keeps it (`id` is `<orgId>:<key>`) and migrate-to-postgres copies it. */
export interface IdempotencyRecord {
  id: string;
  orgId: string;
  key: string;
  owner: string;
  state: 'in-flight' | 'done';
  leaseUntil: string;
  createdAt: string;
  expiresAt: string;
  fingerprint: string | null;
  response: StoredResponse | null;
}

export type IdempotentJob = { kind: 'job'; job: JobRecord } | { kind: 'bulk'; bulk: BulkJobRecord };

/** Who runs a claimed job, and for how long the claim holds unless renewed. */
/** The credits an admission needs, and those its server holds outside jobs (JobService.hold). */
export interface CreditCheck {
  cost: number;
  held: number;
}

/** Admitted (staged, as stageJob), or refused with the organization's credit state then (undefined: no such organization). */
export type Admission = { admitted: true; durable: Promise<void> } | { admitted: false; credit: { balance: number; outstanding: number } | undefined };

/** What a claim changes besides the attempt it counts. */
export type ClaimPatch = Omit<Partial<JobRecord>, 'attempts' | 'params'>;

export interface JobLease {
  owner: string;
  ms: number;
}

/** Where a page of a list starts: after the record with this `createdAt` and `id` (newest first). */
export interface PageKey {
  createdAt: string;
  id: string;
}

/** The fields of a template a change may replace. */
export type TemplateChange = Partial<Omit<TemplateRecord, 'id' | 'orgId' | 'version' | 'createdAt' | 'updatedAt'>>;

/** The fields of a block a change may replace (a new version is the whole `versions` with it appended). */
export type BlockChange = Partial<Pick<BlockRecord, 'name' | 'slug' | 'category' | 'tags' | 'description' | 'status' | 'currentVersion' | 'versions' | 'assetIds'>>;

/** The fields of a document a change may replace. */
export type DocumentChange = Partial<Pick<DocumentRecord, 'name' | 'config' | 'stylePresetId' | 'assetIds' | 'fromMarkdown'>>;

/** The fields of a style preset a client may change. */
export type StylePresetPatch = Partial<Pick<StylePresetRecord, 'name' | 'description' | 'category' | 'tags' | 'isDefault' | 'definition'>>;

/**
 * A job's `params` never change while it waits or runs (a retry after a restart runs the same request); as it
 * finishes they may become what its answers read of them (JobRecord.paramsShown). Throws on any other change.
 */
export function checkParamsPatch(patch: Partial<JobRecord>): void {
  if ('params' in patch && patch.status !== 'COMPLETED' && patch.status !== 'FAILED') {
    throw new Error('A job\'s params never change once it is stored, except to what its answers show as it finishes.');
  }
}
