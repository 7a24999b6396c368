// The PostgreSQL metadata store (QUIRE_DATABASE_URL): the Store interface over a pg pool, with the embedded store's semantics.
// Longer than 400 lines: one class implements the whole Store interface over one pool, one short method per operation; each area's SQL lives in its own file (pg-jobs, pg-workspace, pg-idempotency, pg-webhooks, pg-forms, pg-operators).
import pg from 'pg';
import { DatabaseTooNewError, migrate } from './migrations.js';
import { PgWorkspace } from './pg-workspace.js';
import { PgForms } from './pg-forms.js';
import { PgOperators } from './pg-operators.js';
import { listJobs } from './pg-job-list.js';
import { KeyCache } from './pg-key-cache.js';
import { fanOutBulk, PgWebhooks } from './pg-webhooks.js';
import { addLedger, admitJob, checkCredit, claimJob, creditState, finishJob, FINISHED_CHANNEL, outstandingEstimate, readOrganizations, stageBulk, stageJob, type KnownJob } from './pg-jobs.js';
import { copy, databaseName, listOwn, prepared, put, readAll, readOne, readOwn, transaction, type Db, type RecordOf } from './pg-rows.js';
import * as idempotency from './pg-idempotency.js';
import type { IdempotencyBegin, IdempotencyClaim, IdempotencyDone, IdempotentJob } from '../store.js';
import type { Admission, BlockChange, ClaimPatch, CreditCheck, DocumentChange, JobLease, PageKey, Store, StylePresetPatch, TemplateChange } from '../store.js';
import type { FilloutPatch, FormChange, WebhookAttemptOutcome, WebhookEndpointChange } from '../store.js';
import type { JobListFilter, JobListRow } from '../store.js';
import { checkParamsPatch } from '../store.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEvent } from '../../model.js';
import type { FilloutRecord, FormRecord } from '../../model.js';
import type { OperatorAuditEntry, PluginOverride } from '../../model.js';
import type { AssetRecord, BulkJobRecord, DocumentRecord, IntegrationClient, ResourceTokenRecord, StylePresetRecord, TemplateRecord } from '../../model.js';
import type { BlockRecord } from '../../model.js';
import type { ApiKeyRecord, FileRecord, JobRecord, JobStatus, LedgerEntry, Organization } from '../../model.js';

/** The advisory lock key of the first start's bootstrap ("quire-bs" as a 64-bit integer). */
const BOOTSTRAP_LOCK = '8175556638605664883';

/** Most jobs remembered as written here (far more than a node queues and runs at once). */
const JOBS_REMEMBERED = 10_000;

const isFinished = (status: JobStatus) => status === 'COMPLETED' || status === 'FAILED';

/**
 * Every write that the embedded store makes as one journal line is one transaction here; a read-modify-write locks
 * its row (SELECT … FOR UPDATE) from the read to the write, except on a job's hot path (pg-jobs.ts), where a write is
 * conditioned on the row version read or written last. A write is durable when its promise resolves, so staging
 * hands back an already resolved `durable`. Reads return fresh objects.
 */
export class PgStore implements Store {
  readonly #pool: pg.Pool;
  readonly #workspace: PgWorkspace;
  readonly #webhooks: PgWebhooks;
  readonly #forms: PgForms;
  readonly #operators: PgOperators;
  readonly #url: string;
  /** Unfinished jobs as this process last wrote them (admitted or claimed here), with the row version of that write. */
  readonly #known = new Map<string, KnownJob>();
  readonly #keys = new KeyCache();

  constructor(url: string, poolSize = 10) {
    this.#url = url;
    // Timestamps are compared as instants; UTC keeps a zone-less instant a caller passes meaning what it means in ISO.
    this.#pool = new pg.Pool({ connectionString: url, max: poolSize, options: '-c TimeZone=UTC' });
    // An idle connection the server closed is discarded by the pool; without a listener its error would end the process.
    this.#pool.on('error', () => undefined);
    this.#workspace = new PgWorkspace(this.#pool);
    this.#webhooks = new PgWebhooks(this.#pool);
    this.#forms = new PgForms(this.#pool);
    this.#operators = new PgOperators(this.#pool);
  }

  async init(): Promise<void> {
    try {
      await migrate(this.#pool);
    } catch (err) {
      if (err instanceof DatabaseTooNewError) throw err;
      throw new Error(`Cannot open the PostgreSQL database ${this.#where} (QUIRE_DATABASE_URL): ${(err as Error).message}`, { cause: err });
    }
  }

  /** Host, port and database of the URL: never its password. */
  get #where(): string {
    return databaseName(this.#url);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  /**
   * Under a session advisory lock held on a connection of its own (not one of the pool's, which `fn` uses for its
   * reads and writes): a second node waits there and then finds the organization the first created. Closing the
   * connection ends the session and its lock, also when `fn` throws.
   */
  async bootstrapOnce<T>(fn: () => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.#url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [BOOTSTRAP_LOCK]);
      return await fn();
    } finally {
      await client.end();
    }
  }

  async createOrganization(org: Organization): Promise<void> {
    await put(this.#pool, 'organizations', copy(org));
  }

  async getOrganization(id: string): Promise<Organization | undefined> {
    return (await readOrganizations<Organization>(this.#pool, 'WHERE id = $1', [id]))[0];
  }

  listOrganizations(): Promise<Organization[]> {
    return readOrganizations(this.#pool, 'ORDER BY seq');
  }

  async createApiKey(key: ApiKeyRecord): Promise<void> {
    await put(this.#pool, 'api_keys', copy(key));
  }

  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.#keys.find(hash, () => this.#byHash('api_keys', hash));
  }

  listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
    return listOwn(this.#pool, 'api_keys', orgId);
  }

  async revokeApiKey(orgId: string, id: string, at: string): Promise<boolean> {
    // Forgotten before (no request uses the cached key from now on) and after (none cached it meanwhile).
    this.#keys.forget(id);
    const revoked = await this.#revoke('api_keys', orgId, id, at);
    this.#keys.forget(id);
    return revoked;
  }

  async createIntegrationClient(client: IntegrationClient): Promise<void> {
    await put(this.#pool, 'integration_clients', copy(client));
  }

  getIntegrationClient(id: string): Promise<IntegrationClient | undefined> {
    return readOne(this.#pool, 'integration_clients', id);
  }

  listIntegrationClients(): Promise<IntegrationClient[]> {
    return readAll(this.#pool, 'SELECT data FROM integration_clients ORDER BY seq');
  }

  async createResourceToken(token: ResourceTokenRecord): Promise<void> {
    await put(this.#pool, 'resource_tokens', copy(token));
  }

  findResourceTokenByHash(hash: string): Promise<ResourceTokenRecord | undefined> {
    return this.#byHash('resource_tokens', hash);
  }

  getResourceToken(id: string): Promise<ResourceTokenRecord | undefined> {
    return readOne(this.#pool, 'resource_tokens', id);
  }

  listResourceTokens(orgId: string): Promise<ResourceTokenRecord[]> {
    return listOwn(this.#pool, 'resource_tokens', orgId);
  }

  revokeResourceToken(orgId: string, id: string, at: string): Promise<boolean> {
    return this.#revoke('resource_tokens', orgId, id, at);
  }

  async #byHash<T extends 'api_keys' | 'resource_tokens'>(table: T, hash: string): Promise<RecordOf<T> | undefined> {
    const { rows } = await prepared<{ data: RecordOf<T> }>(this.#pool, `${table}_by_hash`, `SELECT data FROM ${table} WHERE hash = $1`, [hash]);
    return rows[0]?.data;
  }

  /** False when the key or token is unknown, another organization's, or already revoked. */
  #revoke(table: 'api_keys' | 'resource_tokens', orgId: string, id: string, at: string): Promise<boolean> {
    return transaction(this.#pool, async (tx) => {
      const rec = await readOwn(tx, table, orgId, id, true);
      if (!rec || rec.revokedAt) return false;
      await put(tx, table, { ...rec, revokedAt: at });
      return true;
    });
  }

  async createFile(file: FileRecord): Promise<void> {
    await put(this.#pool, 'files', copy(file));
  }

  getFile(orgId: string, id: string): Promise<FileRecord | undefined> {
    return readOwn(this.#pool, 'files', orgId, id);
  }

  async deleteFile(id: string): Promise<void> {
    await this.#pool.query('DELETE FROM files WHERE id = $1', [id]);
  }

  listFilesExpiredBy(instant: string): Promise<FileRecord[]> {
    return readAll(this.#pool, 'SELECT data FROM files WHERE expires_at <= $1 ORDER BY seq', [instant]);
  }

  async createJob(job: JobRecord): Promise<void> {
    await put(this.#pool, 'jobs', copy(job));
  }

  async stageJob(job: JobRecord): Promise<{ durable: Promise<void> }> {
    // Committed before this resolves: visible to every node and durable at once; the notice tells every node at commit.
    const staged = await stageJob(this.#pool, copy(job));
    if (job.status === 'PENDING') this.#remember(staged);
    return { durable: Promise.resolve() };
  }

  async admitJob(job: JobRecord, check: CreditCheck): Promise<Admission> {
    const { admission, written } = await admitJob(this.#pool, copy(job), check);
    if (written && job.status === 'PENDING') this.#remember(written);
    return admission;
  }

  getJob(orgId: string, id: string): Promise<JobRecord | undefined> {
    return readOwn(this.#pool, 'jobs', orgId, id);
  }

  getJobById(id: string): Promise<JobRecord | undefined> {
    return readOne(this.#pool, 'jobs', id);
  }

  updateJob(id: string, patch: Partial<JobRecord>): Promise<JobRecord> {
    return transaction(this.#pool, async (tx) => {
      const job = await requireJob(tx, id);
      const updated = { ...job, ...jobPatch(patch) };
      await put(tx, 'jobs', updated);
      return updated;
    });
  }

  async claimJob(id: string, patch: ClaimPatch, lease?: JobLease): Promise<{ job: JobRecord; durable: Promise<void> } | undefined> {
    const known = this.#known.get(id);
    this.#known.delete(id);
    const claimed = await claimJob(this.#pool, id, jobPatch(patch), lease, known);
    if (!claimed) return undefined;
    this.#remember(claimed);
    return { job: copy(claimed.job), durable: Promise.resolve() };
  }

  /** A job as this process wrote it: its claim or finish, made here next, then needs no read. */
  #remember(written: KnownJob): void {
    this.#known.set(written.job.id, written);
    // A job that never moves on here (claimed by another node and never tried here, or given up at shutdown) is
    // forgotten with the oldest.
    if (this.#known.size > JOBS_REMEMBERED) this.#known.delete(this.#known.keys().next().value!);
  }

  finishJob(id: string, patch: Partial<JobRecord>, charge: Omit<LedgerEntry, 'balanceAfter'> | null, output?: FileRecord, event?: WebhookEvent): Promise<JobRecord> {
    // One statement: the output file, the state change, the charge and the event's deliveries are committed together or not at all.
    const known = this.#known.get(id);
    this.#known.delete(id);
    return finishJob(this.#pool, id, jobPatch(patch), charge, output, known, event);
  }

  listJobs(orgId: string, filter: JobListFilter, limit: number, after?: PageKey): Promise<JobListRow[]> {
    return listJobs(this.#pool, orgId, filter, limit, after);
  }

  async listJobsByStatus(statuses: JobStatus[]): Promise<JobRecord[]> {
    const jobs = await readAll<JobRecord>(this.#pool, 'SELECT data FROM jobs WHERE status = ANY($1::text[]) ORDER BY seq', [statuses]);
    // The embedded store's order: by createdAt as text, ties in the order the jobs were written (a stable sort).
    return jobs.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  outstandingEstimate(orgId: string): Promise<number> {
    return outstandingEstimate(this.#pool, orgId);
  }

  creditState(orgId: string): Promise<{ balance: number; outstanding: number } | undefined> {
    return creditState(this.#pool, orgId);
  }

  deleteJobsFinishedBefore(instant: string): Promise<number> {
    return transaction(this.#pool, async (tx) => {
      const jobs = await tx.query('DELETE FROM jobs WHERE completed_at < $1', [instant]);
      const bulks = await tx.query('DELETE FROM bulk_jobs WHERE completed_at < $1', [instant]);
      return (jobs.rowCount ?? 0) + (bulks.rowCount ?? 0);
    });
  }

  addLedgerEntry(entry: Omit<LedgerEntry, 'balanceAfter'>): Promise<LedgerEntry> {
    return transaction(this.#pool, (tx) => addLedger(tx, entry));
  }

  listLedger(orgId: string, limit: number): Promise<LedgerEntry[]> {
    return readAll(this.#pool, 'SELECT data FROM ledger WHERE org_id = $1 ORDER BY seq DESC LIMIT $2', [orgId, limit]);
  }

  createStylePreset(preset: StylePresetRecord): Promise<void> {
    return this.#workspace.createStylePreset(preset);
  }

  getStylePreset(orgId: string, id: string): Promise<StylePresetRecord | undefined> {
    return this.#workspace.getStylePreset(orgId, id);
  }

  listStylePresets(orgId: string): Promise<StylePresetRecord[]> {
    return this.#workspace.listStylePresets(orgId);
  }

  updateStylePreset(orgId: string, id: string, patch: StylePresetPatch, at: string): Promise<StylePresetRecord | undefined> {
    return this.#workspace.updateStylePreset(orgId, id, patch, at);
  }

  deleteStylePreset(orgId: string, id: string): Promise<boolean> {
    return this.#workspace.deleteStylePreset(orgId, id);
  }

  createDocument(doc: DocumentRecord, newAssets: AssetRecord[]): Promise<void> {
    return this.#workspace.createDocument(doc, newAssets);
  }

  getDocument(orgId: string, id: string): Promise<DocumentRecord | undefined> {
    return this.#workspace.getDocument(orgId, id);
  }

  countDocuments(orgId: string): Promise<number> {
    return this.#workspace.countDocuments(orgId);
  }

  listDocuments(orgId: string, limit: number, after?: PageKey): Promise<DocumentRecord[]> {
    return this.#workspace.listDocuments(orgId, limit, after);
  }

  updateDocument(orgId: string, id: string, change: DocumentChange, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ document: DocumentRecord; releasedAssets: string[] } | 'conflict' | undefined> {
    return this.#workspace.updateDocument(orgId, id, change, newAssets, at, expectedVersion);
  }

  deleteDocument(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return this.#workspace.deleteDocument(orgId, id);
  }

  createTemplate(template: TemplateRecord, newAssets: AssetRecord[]): Promise<void> {
    return this.#workspace.createTemplate(template, newAssets);
  }

  getTemplate(orgId: string, id: string): Promise<TemplateRecord | undefined> {
    return this.#workspace.getTemplate(orgId, id);
  }

  listTemplates(orgId: string): Promise<TemplateRecord[]> {
    return this.#workspace.listTemplates(orgId);
  }

  updateTemplate(orgId: string, id: string, change: TemplateChange, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ template: TemplateRecord; releasedAssets: string[] } | 'conflict' | undefined> {
    return this.#workspace.updateTemplate(orgId, id, change, newAssets, at, expectedVersion);
  }

  deleteTemplate(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return this.#workspace.deleteTemplate(orgId, id);
  }

  createBlock(block: BlockRecord, newAssets: AssetRecord[]): Promise<void> {
    return this.#workspace.createBlock(block, newAssets);
  }

  getBlock(orgId: string, id: string): Promise<BlockRecord | undefined> {
    return this.#workspace.getBlock(orgId, id);
  }

  listBlocks(orgId: string): Promise<BlockRecord[]> {
    return this.#workspace.listBlocks(orgId);
  }

  updateBlock(orgId: string, id: string, change: (current: BlockRecord) => BlockChange, at: string, newAssets?: AssetRecord[]): Promise<BlockRecord | undefined> {
    return this.#workspace.updateBlock(orgId, id, change, at, newAssets);
  }

  deleteBlock(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return this.#workspace.deleteBlock(orgId, id);
  }

  getAsset(orgId: string, id: string): Promise<AssetRecord | undefined> {
    return this.#workspace.getAsset(orgId, id);
  }

  findAssetBySource(orgId: string, sourceImageId: string): Promise<AssetRecord | undefined> {
    return this.#workspace.findAssetBySource(orgId, sourceImageId);
  }

  async stageBulkJob(bulk: BulkJobRecord, jobs: JobRecord[], event?: WebhookEvent): Promise<{ durable: Promise<void> }> {
    await transaction(this.#pool, async (tx) => {
      await stageBulk(tx, bulk, jobs);
      await fanOutBulk(tx, bulk.orgId, bulk.id, event);
    });
    return { durable: Promise.resolve() };
  }

  admitBulkJob(bulk: BulkJobRecord, jobs: JobRecord[], check: CreditCheck): Promise<Admission> {
    return transaction(this.#pool, async (tx) => {
      const refused = await checkCredit(tx, bulk.orgId, check);
      if (refused) return refused;
      await stageBulk(tx, bulk, jobs);
      return { admitted: true, durable: Promise.resolve() };
    });
  }

  getBulkJob(orgId: string, id: string): Promise<BulkJobRecord | undefined> {
    return readOwn(this.#pool, 'bulk_jobs', orgId, id);
  }

  listUnfinishedBulkJobs(): Promise<BulkJobRecord[]> {
    return readAll(this.#pool, "SELECT data FROM bulk_jobs WHERE status IN ('PENDING', 'PROCESSING') ORDER BY seq");
  }

  finishBulkJob(id: string, patch: Partial<BulkJobRecord>, output?: FileRecord, event?: WebhookEvent): Promise<BulkJobRecord> {
    return transaction(this.#pool, async (tx) => {
      const b = await readOne(tx, 'bulk_jobs', id, true);
      if (!b) throw new Error(`Bulk job ${id} does not exist.`);
      if (isFinished(b.status)) throw new Error(`Bulk job ${id} is already ${b.status}; a finished job never moves again.`);
      const updated = { ...b, ...copy(patch) };
      if (output) await put(tx, 'files', copy(output));
      await put(tx, 'bulk_jobs', updated);
      await fanOutBulk(tx, b.orgId, id, event);
      await tx.query('SELECT pg_notify($1, $2)', [FINISHED_CHANNEL, id]);
      return updated;
    });
  }

  beginIdempotency(orgId: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyBegin> {
    return idempotency.beginIdempotency(this.#pool, orgId, key, claim);
  }

  renewIdempotency(orgId: string, key: string, owner: string, leaseUntil: string): Promise<boolean> {
    return idempotency.renewIdempotency(this.#pool, orgId, key, owner, leaseUntil);
  }

  completeIdempotency(orgId: string, key: string, owner: string, done: IdempotencyDone): Promise<boolean> {
    return idempotency.completeIdempotency(this.#pool, orgId, key, owner, done);
  }

  releaseIdempotency(orgId: string, key: string, owner: string): Promise<void> {
    return idempotency.releaseIdempotency(this.#pool, orgId, key, owner);
  }

  deleteIdempotencyExpiredBy(instant: string): Promise<number> {
    return idempotency.deleteIdempotencyExpiredBy(this.#pool, instant);
  }

  findJobByIdempotencyKey(orgId: string, key: string): Promise<IdempotentJob | undefined> {
    return idempotency.findJobByIdempotencyKey(this.#pool, orgId, key);
  }

  createWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void> {
    return this.#webhooks.createEndpoint(endpoint);
  }

  getWebhookEndpoint(orgId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    return this.#webhooks.getEndpoint(orgId, id);
  }

  listWebhookEndpoints(orgId: string, limit: number, after?: PageKey): Promise<WebhookEndpointRecord[]> {
    return this.#webhooks.listEndpoints(orgId, limit, after);
  }

  updateWebhookEndpoint(orgId: string, id: string, change: (current: WebhookEndpointRecord) => WebhookEndpointChange, at: string, expectedVersion?: number): Promise<WebhookEndpointRecord | 'conflict' | undefined> {
    return this.#webhooks.updateEndpoint(orgId, id, change, at, expectedVersion);
  }

  deleteWebhookEndpoint(orgId: string, id: string): Promise<boolean> {
    return this.#webhooks.deleteEndpoint(orgId, id);
  }

  createWebhookDelivery(delivery: WebhookDeliveryRecord): Promise<void> {
    return this.#webhooks.createDelivery(delivery);
  }

  getWebhookDelivery(orgId: string, id: string): Promise<WebhookDeliveryRecord | undefined> {
    return this.#webhooks.getDelivery(orgId, id);
  }

  listWebhookDeliveries(orgId: string, endpointId: string, limit: number, after?: PageKey): Promise<WebhookDeliveryRecord[]> {
    return this.#webhooks.listDeliveries(orgId, endpointId, limit, after);
  }

  claimWebhookDeliveries(now: string, lease: JobLease, limit: number): Promise<WebhookDeliveryRecord[]> {
    return this.#webhooks.claim(now, lease, limit);
  }

  recordWebhookAttempt(id: string, owner: string, outcome: WebhookAttemptOutcome): Promise<WebhookDeliveryRecord | undefined> {
    return this.#webhooks.recordAttempt(id, owner, outcome);
  }

  deleteWebhookDeliveriesBefore(instant: string): Promise<number> {
    return this.#webhooks.deleteDeliveriesBefore(instant);
  }

  createForm(form: FormRecord): Promise<void> {
    return this.#forms.createForm(form);
  }

  getForm(orgId: string, id: string): Promise<FormRecord | undefined> {
    return this.#forms.getForm(orgId, id);
  }

  getFormById(id: string): Promise<FormRecord | undefined> {
    return this.#forms.getFormById(id);
  }

  listForms(orgId: string, filter: { documentId?: string }, limit: number, after?: PageKey): Promise<FormRecord[]> {
    return this.#forms.listForms(orgId, filter, limit, after);
  }

  updateForm(orgId: string, id: string, change: (current: FormRecord) => FormChange, at: string, expectedVersion?: number): Promise<FormRecord | 'conflict' | undefined> {
    return this.#forms.updateForm(orgId, id, change, at, expectedVersion);
  }

  deleteForm(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return this.#forms.deleteForm(orgId, id);
  }

  createFillout(record: FilloutRecord, newAssets: AssetRecord[]): Promise<void> {
    return this.#forms.createFillout(record, newAssets);
  }

  getFillout(orgId: string, id: string): Promise<FilloutRecord | undefined> {
    return this.#forms.getFillout(orgId, id);
  }

  listFillouts(orgId: string, filter: { formId?: string; documentId?: string }, limit: number, after?: PageKey): Promise<FilloutRecord[]> {
    return this.#forms.listFillouts(orgId, filter, limit, after);
  }

  updateFillout(orgId: string, id: string, patch: FilloutPatch): Promise<FilloutRecord | undefined> {
    return this.#forms.updateFillout(orgId, id, patch);
  }

  deleteFillout(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return this.#forms.deleteFillout(orgId, id);
  }

  setPluginOverride(override: PluginOverride, entry: OperatorAuditEntry): Promise<void> {
    return this.#operators.setPluginOverride(override, entry);
  }

  listPluginOverrides(): Promise<PluginOverride[]> {
    return this.#operators.listPluginOverrides();
  }

  listOperatorAudit(limit: number, after?: PageKey): Promise<OperatorAuditEntry[]> {
    return this.#operators.listOperatorAudit(limit, after);
  }

}

async function requireJob(tx: Db, id: string): Promise<JobRecord> {
  const job = await readOne(tx, 'jobs', id, true);
  if (!job) throw new Error(`Job ${id} does not exist.`);
  return job;
}

function jobPatch(patch: Partial<JobRecord>): Partial<JobRecord> {
  checkParamsPatch(patch);
  return copy(patch);
}
