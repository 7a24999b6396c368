// The embedded metadata store: state in memory, changes appended to a journal, a lowdb JSON snapshot.
// Longer than 400 lines: one class implements the whole Store interface over one journal, one short method per operation.
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { Low } from 'lowdb';
import { DurableJsonFile } from './durable-json-file.js';
import { Journal, fsyncDir } from './journal.js';
import { LedgerArchive, wholeLedger } from './ledger-archive.js';
import { StoreState, emptyData, ops, type Data, type StoreOp } from './store-state.js';
import { KeyedMutex } from '../keyed-mutex.js';
import { beginKey, expiredKeyChanges, jobByKey, ownedKeyChange } from './idempotency-state.js';
import { EmbeddedWebhooks } from './webhook-state.js';
import { EmbeddedForms } from './form-state.js';
import { EmbeddedOperatorLog } from './operator-state.js';
import { listJobs } from './job-list-state.js';
import type { Admission, BlockChange, ClaimPatch, CreditCheck, DocumentChange, JobLease, PageKey, Store, StylePresetPatch, TemplateChange } from './store.js';
import { checkParamsPatch } from './store.js';
import type { IdempotencyBegin, IdempotencyClaim, IdempotencyDone, IdempotentJob } from './store.js';
import type { FilloutPatch, FormChange, WebhookAttemptOutcome, WebhookEndpointChange } from './store.js';
import type { JobListFilter, JobListRow } from './store.js';
import type { AssetRecord, BulkJobRecord, DocumentRecord, IntegrationClient, ResourceTokenRecord, StylePresetRecord, TemplateRecord } from '../model.js';
import type { BlockRecord } from '../model.js';
import type { ApiKeyRecord, FileRecord, JobRecord, JobStatus, LedgerEntry, Organization } from '../model.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEvent } from '../model.js';
import type { FilloutRecord, FormRecord } from '../model.js';
import type { OperatorAuditEntry, PluginOverride } from '../model.js';

export interface LowdbStoreOptions {
  /** Rewrite the snapshot and empty the journal once it holds this many lines (default 20,000) ... */
  compactAfterLines?: number;
  /** ... or this many bytes (default 32 MiB). */
  compactAfterBytes?: number;
  /** Ledger entries of each organization kept in memory; older ones go to `ledger-archive.jsonl` (default 500). */
  ledgerKeptPerOrg?: number;
}

/**
 * Each change is applied in memory and appended as one line to `quire.journal`; its promise
 * resolves once that line is durable (changes made meanwhile share one write and fdatasync).
 * `quire.json` is the snapshot the journal continues; it is rewritten when the journal grows past a
 * threshold and on close.
 */
export class LowdbStore implements Store {
  readonly #dataDir: string;
  readonly #db: Low<Data>;
  readonly #journal: Journal<StoreOp>;
  readonly #ledgerArchive: LedgerArchive;
  #state = new StoreState(null);
  readonly #bootstrap = new KeyedMutex();
  readonly #webhooks = new EmbeddedWebhooks(() => this.#data, (...changes) => this.#commit(...changes));
  readonly #forms = new EmbeddedForms(() => this.#state, (...changes) => this.#commit(...changes));
  readonly #operators = new EmbeddedOperatorLog(() => this.#data, (...changes) => this.#commit(...changes));

  constructor(dataDir: string, options: LowdbStoreOptions = {}) {
    this.#dataDir = dataDir;
    this.#db = new Low<Data>(new DurableJsonFile<Data>(path.join(dataDir, 'quire.json')), emptyData());
    this.#ledgerArchive = new LedgerArchive(path.join(dataDir, 'ledger-archive.jsonl'), options.ledgerKeptPerOrg);
    this.#journal = new Journal<StoreOp>(path.join(dataDir, 'quire.journal'), {
      snapshotName: 'quire.json',
      compactAfterLines: options.compactAfterLines ?? 20_000,
      compactAfterBytes: options.compactAfterBytes ?? 32 * 1024 * 1024,
      snapshot: (seq) => this.#snapshot(seq),
    });
  }

  async init(): Promise<void> {
    await mkdir(this.#dataDir, { recursive: true });
    await this.#db.read();
    this.#state = new StoreState(this.#db.data);
    this.#db.data = this.#state.data;
    for (const entry of await this.#journal.open(this.#data.journalSeq)) {
      try {
        for (const op of entry.ops) this.#state.apply(op);
      } catch (err) {
        throw new Error(`Line ${entry.line} of the journal ${this.#journal.filename} cannot be replayed (${(err as Error).message}); restore the data dir from a backup.`);
      }
    }
    for (const job of Object.values(this.#data.jobs)) deepFreeze(job.params);
    await this.#ledgerArchive.recall(this.#data.ledger);
  }

  async close(): Promise<void> {
    await this.#journal.close();
  }

  /** The data dir lock keeps other processes out: taking turns within this one is enough. */
  bootstrapOnce<T>(fn: () => Promise<T>): Promise<T> {
    return this.#bootstrap.run('bootstrap', fn);
  }

  /** A copy of every collection as of now, the archived ledger entries included (migrate-to-postgres reads the whole data dir through it). */
  exportData(): Data {
    const data = structuredClone(this.#data);
    return { ...data, ledger: wholeLedger(this.#ledgerArchive.read(), data.ledger) };
  }

  /** Resolves once every change made so far is durable and no compaction is under way (tests, benchmarks). */
  async flush(): Promise<void> {
    await this.#journal.idle();
  }

  get #data(): Data {
    return this.#state.data;
  }

  /**
   * Writes `quire.json` as of `seq`; the state is serialised synchronously inside `write()`. The ledger entries the
   * last snapshot archived are left out of it (and out of memory), and the next old ones are archived after it.
   */
  async #snapshot(seq: number): Promise<void> {
    this.#data.ledger = this.#ledgerArchive.prune(this.#data.ledger);
    this.#data.journalSeq = seq;
    await this.#db.write();
    await fsyncDir(this.#dataDir); // the rename must be durable before the journal is emptied
    await this.#ledgerArchive.archiveOld(this.#data.ledger);
  }

  /** Journals the operations (throwing, unchanged, if that is impossible), applies them, resolves when durable. */
  #commit(...changes: StoreOp[]): Promise<void> {
    const durable = this.#journal.append(changes);
    for (const op of changes) this.#state.apply(op);
    return durable;
  }

  async createOrganization(org: Organization): Promise<void> {
    await this.#commit(ops.put('organizations', { ...org }));
  }

  async getOrganization(id: string): Promise<Organization | undefined> {
    const org = own(this.#data.organizations, id);
    return org && { ...org };
  }

  async listOrganizations(): Promise<Organization[]> {
    return Object.values(this.#data.organizations).map((o) => ({ ...o }));
  }

  async createApiKey(key: ApiKeyRecord): Promise<void> {
    await this.#commit(ops.put('apiKeys', { ...key }));
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = this.#state.apiKeyIdByHash(hash);
    const key = id ? own(this.#data.apiKeys, id) : undefined;
    return key && { ...key };
  }

  async listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
    return Object.values(this.#data.apiKeys).filter((k) => k.orgId === orgId).map((k) => ({ ...k }));
  }

  async revokeApiKey(orgId: string, id: string, at: string): Promise<boolean> {
    const key = own(this.#data.apiKeys, id);
    if (!key || key.orgId !== orgId || key.revokedAt) return false;
    await this.#commit(ops.patch('apiKeys', id, { revokedAt: at }));
    return true;
  }

  async createIntegrationClient(client: IntegrationClient): Promise<void> {
    await this.#commit(ops.put('integrationClients', { ...client }));
  }

  async getIntegrationClient(id: string): Promise<IntegrationClient | undefined> {
    const c = own(this.#data.integrationClients, id);
    return c && { ...c };
  }

  async listIntegrationClients(): Promise<IntegrationClient[]> {
    return Object.values(this.#data.integrationClients).map((c) => ({ ...c }));
  }

  async createResourceToken(token: ResourceTokenRecord): Promise<void> {
    await this.#commit(ops.put('resourceTokens', { ...token }));
  }

  async findResourceTokenByHash(hash: string): Promise<ResourceTokenRecord | undefined> {
    const id = this.#state.resourceTokenIdByHash(hash);
    const t = id ? own(this.#data.resourceTokens, id) : undefined;
    return t && { ...t };
  }

  async getResourceToken(id: string): Promise<ResourceTokenRecord | undefined> {
    const t = own(this.#data.resourceTokens, id);
    return t && { ...t };
  }

  async listResourceTokens(orgId: string): Promise<ResourceTokenRecord[]> {
    return Object.values(this.#data.resourceTokens).filter((t) => t.orgId === orgId).map((t) => ({ ...t }));
  }

  async revokeResourceToken(orgId: string, id: string, at: string): Promise<boolean> {
    const t = own(this.#data.resourceTokens, id);
    if (!t || t.orgId !== orgId || t.revokedAt) return false;
    await this.#commit(ops.patch('resourceTokens', id, { revokedAt: at }));
    return true;
  }

  async createFile(file: FileRecord): Promise<void> {
    await this.#commit(ops.put('files', { ...file }));
  }

  async getFile(orgId: string, id: string): Promise<FileRecord | undefined> {
    const file = own(this.#data.files, id);
    return file && file.orgId === orgId ? { ...file } : undefined;
  }

  async deleteFile(id: string): Promise<void> {
    if (!Object.hasOwn(this.#data.files, id)) return;
    await this.#commit(ops.del('files', id));
  }

  async listFilesExpiredBy(instant: string): Promise<FileRecord[]> {
    const out: FileRecord[] = [];
    for (const f of Object.values(this.#data.files)) if (f.expiresAt <= instant) out.push({ ...f });
    return out;
  }

  async createJob(job: JobRecord): Promise<void> {
    await this.#commit(ops.put('jobs', storedJob(job)));
  }

  async stageJob(job: JobRecord): Promise<{ durable: Promise<void> }> {
    // #commit applies the change to memory before it returns; only the disk write is left pending.
    return { durable: this.#commit(ops.put('jobs', storedJob(job))) };
  }

  async admitJob(job: JobRecord, check: CreditCheck): Promise<Admission> {
    // The check and the write happen with nothing in between: one process owns the data dir.
    return this.#refusal(job.orgId, check) ?? { admitted: true, ...(await this.stageJob(job)) };
  }

  #refusal(orgId: string, check: CreditCheck): Admission | undefined {
    const org = own(this.#data.organizations, orgId);
    if (!org) return { admitted: false, credit: undefined };
    const outstanding = this.#state.outstandingEstimate(orgId);
    return org.balance - outstanding - check.held < check.cost ? { admitted: false, credit: { balance: org.balance, outstanding } } : undefined;
  }

  async getJob(orgId: string, id: string): Promise<JobRecord | undefined> {
    const job = own(this.#data.jobs, id);
    return job && job.orgId === orgId ? jobCopy(job) : undefined;
  }

  async getJobById(id: string): Promise<JobRecord | undefined> {
    const job = own(this.#data.jobs, id);
    return job && jobCopy(job);
  }

  async updateJob(id: string, patch: Partial<JobRecord>): Promise<JobRecord> {
    const job = this.#requireJob(id);
    const durable = this.#commit(ops.patch('jobs', id, jobPatch(patch)));
    const copy = jobCopy(job);
    await durable;
    return copy;
  }

  async claimJob(id: string, patch: ClaimPatch): Promise<{ job: JobRecord; durable: Promise<void> } | undefined> {
    // One process runs the jobs of a data dir: no lease. The check and the change happen with nothing in between.
    const job = own(this.#data.jobs, id);
    if (!job || job.status !== 'PENDING') return undefined;
    const durable = this.#commit(ops.patch('jobs', id, jobPatch({ ...patch, attempts: job.attempts + 1 })));
    return { job: jobCopy(job), durable };
  }

  async finishJob(id: string, patch: Partial<JobRecord>, charge: Omit<LedgerEntry, 'balanceAfter'> | null, output?: FileRecord, event?: WebhookEvent): Promise<JobRecord> {
    const job = this.#requireJob(id);
    if (job.status === 'COMPLETED' || job.status === 'FAILED') {
      throw new Error(`Job ${id} is already ${job.status}; a finished job never moves again.`);
    }
    // One journal line: the output file, the state change, the charge and the event's deliveries are durable together or not at all.
    const hooks = this.#webhooks.fanOut(job.orgId, event, { kind: 'job', id });
    const durable = this.#commit(...(output ? [ops.put('files', { ...output })] : []), ops.patch('jobs', id, jobPatch(patch)), ...(charge ? this.#ledgerOps(charge) : []), ...hooks);
    const copy = jobCopy(job);
    await durable;
    return copy;
  }

  async listJobsByStatus(statuses: JobStatus[]): Promise<JobRecord[]> {
    return Object.values(this.#data.jobs)
      .filter((j) => statuses.includes(j.status))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map(jobCopy);
  }

  async listJobs(orgId: string, filter: JobListFilter, limit: number, after?: PageKey): Promise<JobListRow[]> {
    return listJobs(this.#data, orgId, filter, limit, after, jobCopy, (b) => structuredClone(b));
  }

  async outstandingEstimate(orgId: string): Promise<number> {
    return this.#state.outstandingEstimate(orgId);
  }

  async creditState(orgId: string): Promise<{ balance: number; outstanding: number } | undefined> {
    const org = own(this.#data.organizations, orgId);
    return org && { balance: org.balance, outstanding: this.#state.outstandingEstimate(orgId) };
  }

  async deleteJobsFinishedBefore(instant: string): Promise<number> {
    const gone: StoreOp[] = [];
    for (const j of Object.values(this.#data.jobs)) if (j.completedAt && j.completedAt < instant) gone.push(ops.del('jobs', j.id));
    for (const b of Object.values(this.#data.bulkJobs)) if (b.completedAt && b.completedAt < instant) gone.push(ops.del('bulkJobs', b.id));
    if (gone.length) await this.#commit(...gone);
    return gone.length;
  }

  async addLedgerEntry(entry: Omit<LedgerEntry, 'balanceAfter'>): Promise<LedgerEntry> {
    const changes = this.#ledgerOps(entry);
    const durable = this.#commit(...changes);
    const written = this.#data.ledger[this.#data.ledger.length - 1]!;
    const copy = { ...written };
    await durable;
    return copy;
  }

  async listLedger(orgId: string, limit: number): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    for (let i = this.#data.ledger.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.#data.ledger[i]!;
      if (e.orgId === orgId) out.push({ ...e });
    }
    return out;
  }

  async createStylePreset(preset: StylePresetRecord): Promise<void> {
    const clear = preset.isDefault ? this.#clearDefaultOps(preset.orgId, preset.id, preset.createdAt) : [];
    await this.#commit(...clear, ops.put('stylePresets', structuredClone(preset)));
  }

  async getStylePreset(orgId: string, id: string): Promise<StylePresetRecord | undefined> {
    const p = Object.hasOwn(this.#data.stylePresets, id) ? this.#data.stylePresets[id] : undefined;
    return p && p.orgId === orgId ? structuredClone(p) : undefined;
  }

  async listStylePresets(orgId: string): Promise<StylePresetRecord[]> {
    return Object.values(this.#data.stylePresets)
      .filter((p) => p.orgId === orgId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((p) => structuredClone(p));
  }

  async updateStylePreset(orgId: string, id: string, patch: StylePresetPatch, at: string): Promise<StylePresetRecord | undefined> {
    const p = Object.hasOwn(this.#data.stylePresets, id) ? this.#data.stylePresets[id] : undefined;
    if (!p || p.orgId !== orgId) return undefined;
    // The version is computed here, not by the caller, so concurrent updates each get their own number.
    const change = { ...structuredClone(patch), version: p.version + 1, updatedAt: at };
    const clear = patch.isDefault ? this.#clearDefaultOps(orgId, id, at) : [];
    const durable = this.#commit(...clear, ops.patch('stylePresets', id, change));
    const copy = structuredClone(p);
    await durable;
    return copy;
  }

  async deleteStylePreset(orgId: string, id: string): Promise<boolean> {
    const p = Object.hasOwn(this.#data.stylePresets, id) ? this.#data.stylePresets[id] : undefined;
    if (!p || p.orgId !== orgId) return false;
    await this.#commit(ops.del('stylePresets', id));
    return true;
  }

  async createDocument(doc: DocumentRecord, newAssets: AssetRecord[]): Promise<void> {
    await this.#commit(...newAssets.map((a) => ops.put('assets', { ...a })), ops.put('documents', structuredClone(doc)));
  }

  async getDocument(orgId: string, id: string): Promise<DocumentRecord | undefined> {
    const d = this.#own('documents', orgId, id);
    return d && structuredClone(d);
  }

  async countDocuments(orgId: string): Promise<number> {
    let n = 0;
    for (const d of Object.values(this.#data.documents)) if (d.orgId === orgId) n++;
    return n;
  }

  async listDocuments(orgId: string, limit: number, after?: PageKey): Promise<DocumentRecord[]> {
    return Object.values(this.#data.documents)
      .filter((d) => d.orgId === orgId && (!after || d.createdAt < after.createdAt || (d.createdAt === after.createdAt && d.id < after.id)))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }

  async updateDocument(orgId: string, id: string, change: DocumentChange, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ document: DocumentRecord; releasedAssets: string[] } | 'conflict' | undefined> {
    const outcome = await this.#updateVersioned('documents', orgId, id, change, newAssets, at, expectedVersion);
    return typeof outcome === 'object' ? { document: outcome.record, releasedAssets: outcome.releasedAssets } : outcome;
  }

  async deleteDocument(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return this.#deleteVersioned('documents', orgId, id);
  }

  async createTemplate(template: TemplateRecord, newAssets: AssetRecord[]): Promise<void> {
    await this.#commit(...newAssets.map((a) => ops.put('assets', { ...a })), ops.put('templates', structuredClone(template)));
  }

  async getTemplate(orgId: string, id: string): Promise<TemplateRecord | undefined> {
    const t = this.#own('templates', orgId, id);
    return t && structuredClone(t);
  }

  async listTemplates(orgId: string): Promise<TemplateRecord[]> {
    return Object.values(this.#data.templates)
      .filter((t) => t.orgId === orgId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((t) => structuredClone(t));
  }

  async updateTemplate(orgId: string, id: string, change: TemplateChange, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ template: TemplateRecord; releasedAssets: string[] } | 'conflict' | undefined> {
    const outcome = await this.#updateVersioned('templates', orgId, id, change, newAssets, at, expectedVersion);
    return typeof outcome === 'object' ? { template: outcome.record, releasedAssets: outcome.releasedAssets } : outcome;
  }

  async deleteTemplate(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return this.#deleteVersioned('templates', orgId, id);
  }

  /** A change of a document or template: version + 1, new assets and released assets in the same write. */
  async #updateVersioned<C extends 'documents' | 'templates'>(coll: C, orgId: string, id: string, change: object & { assetIds?: string[] }, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ record: Data[C][string]; releasedAssets: string[] } | 'conflict' | undefined> {
    const rec = this.#own(coll, orgId, id);
    if (!rec) return undefined;
    if (expectedVersion !== undefined && expectedVersion !== rec.version) return 'conflict';
    const released = change.assetIds ? this.#released(rec, change.assetIds) : [];
    const patch = { ...structuredClone(change), version: rec.version + 1, updatedAt: at };
    const durable = this.#commit(...newAssets.map((a) => ops.put('assets', { ...a })), ops.patch(coll, id, patch as Partial<Data[C][string]>), ...released.map((a) => ops.del('assets', a)));
    const copy = structuredClone(rec);
    await durable;
    return { record: copy, releasedAssets: released };
  }

  async #deleteVersioned(coll: 'documents' | 'templates', orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    const rec = this.#own(coll, orgId, id);
    if (!rec) return undefined;
    const released = this.#released(rec, []);
    await this.#commit(ops.del(coll, id), ...released.map((a) => ops.del('assets', a)));
    return { releasedAssets: released };
  }

  async createBlock(block: BlockRecord, newAssets: AssetRecord[]): Promise<void> {
    await this.#commit(...newAssets.map((a) => ops.put('assets', { ...a })), ops.put('blocks', structuredClone(block)));
  }

  async getBlock(orgId: string, id: string): Promise<BlockRecord | undefined> {
    const b = this.#own('blocks', orgId, id);
    return b && structuredClone(b);
  }

  async listBlocks(orgId: string): Promise<BlockRecord[]> {
    return Object.values(this.#data.blocks)
      .filter((b) => b.orgId === orgId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((b) => structuredClone(b));
  }

  async updateBlock(orgId: string, id: string, change: (current: BlockRecord) => BlockChange, at: string, newAssets: AssetRecord[] = []): Promise<BlockRecord | undefined> {
    const rec = this.#own('blocks', orgId, id);
    if (!rec) return undefined;
    const patch = { ...structuredClone(change(structuredClone(rec))), updatedAt: at };
    const durable = this.#commit(...newAssets.map((a) => ops.put('assets', { ...a })), ops.patch('blocks', id, patch));
    const copy = structuredClone(rec);
    await durable;
    return copy;
  }

  async deleteBlock(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    const rec = this.#own('blocks', orgId, id);
    if (!rec) return undefined;
    const released = this.#released(rec, []);
    await this.#commit(ops.del('blocks', id), ...released.map((a) => ops.del('assets', a)));
    return { releasedAssets: released };
  }

  async getAsset(orgId: string, id: string): Promise<AssetRecord | undefined> {
    const a = this.#own('assets', orgId, id);
    return a && { ...a };
  }

  async findAssetBySource(orgId: string, sourceImageId: string): Promise<AssetRecord | undefined> {
    const id = this.#state.assetIdBySource(orgId, sourceImageId);
    return id ? this.getAsset(orgId, id) : undefined;
  }

  async stageBulkJob(bulk: BulkJobRecord, jobs: JobRecord[], event?: WebhookEvent): Promise<{ durable: Promise<void> }> {
    const hooks = this.#webhooks.fanOut(bulk.orgId, event, { kind: 'bulk', id: bulk.id });
    return { durable: this.#commit(...jobs.map((j) => ops.put('jobs', storedJob(j))), ops.put('bulkJobs', structuredClone(bulk)), ...hooks) };
  }

  async admitBulkJob(bulk: BulkJobRecord, jobs: JobRecord[], check: CreditCheck): Promise<Admission> {
    return this.#refusal(bulk.orgId, check) ?? { admitted: true, ...(await this.stageBulkJob(bulk, jobs)) };
  }

  async getBulkJob(orgId: string, id: string): Promise<BulkJobRecord | undefined> {
    const b = this.#own('bulkJobs', orgId, id);
    return b && structuredClone(b);
  }

  async listUnfinishedBulkJobs(): Promise<BulkJobRecord[]> {
    return Object.values(this.#data.bulkJobs)
      .filter((b) => b.status === 'PENDING' || b.status === 'PROCESSING')
      .map((b) => structuredClone(b));
  }

  async finishBulkJob(id: string, patch: Partial<BulkJobRecord>, output?: FileRecord, event?: WebhookEvent): Promise<BulkJobRecord> {
    const b = Object.hasOwn(this.#data.bulkJobs, id) ? this.#data.bulkJobs[id] : undefined;
    if (!b) throw new Error(`Bulk job ${id} does not exist.`);
    if (b.status === 'COMPLETED' || b.status === 'FAILED') throw new Error(`Bulk job ${id} is already ${b.status}; a finished job never moves again.`);
    const hooks = this.#webhooks.fanOut(b.orgId, event, { kind: 'bulk', id });
    const durable = this.#commit(...(output ? [ops.put('files', { ...output })] : []), ops.patch('bulkJobs', id, structuredClone(patch)), ...hooks);
    const copy = structuredClone(b);
    await durable;
    return copy;
  }

  async beginIdempotency(orgId: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyBegin> {
    // Decided and applied with nothing in between; awaited until durable, so a key taken survives a crash.
    const { outcome, changes } = beginKey(this.#data, orgId, key, claim);
    if (changes.length) await this.#commit(...changes);
    return outcome;
  }

  renewIdempotency(orgId: string, key: string, owner: string, leaseUntil: string): Promise<boolean> {
    return this.#ownedKey(ownedKeyChange(this.#data, orgId, key, owner, { leaseUntil }));
  }

  completeIdempotency(orgId: string, key: string, owner: string, done: IdempotencyDone): Promise<boolean> {
    return this.#ownedKey(ownedKeyChange(this.#data, orgId, key, owner, done));
  }

  async releaseIdempotency(orgId: string, key: string, owner: string): Promise<void> {
    await this.#ownedKey(ownedKeyChange(this.#data, orgId, key, owner, 'release'));
  }

  async #ownedKey(change: StoreOp | null): Promise<boolean> {
    if (!change) return false;
    await this.#commit(change);
    return true;
  }

  async deleteIdempotencyExpiredBy(instant: string): Promise<number> {
    const gone = expiredKeyChanges(this.#data, instant);
    if (gone.length) await this.#commit(...gone);
    return gone.length;
  }

  async findJobByIdempotencyKey(orgId: string, key: string): Promise<IdempotentJob | undefined> {
    return jobByKey(this.#data, orgId, key);
  }

  // Webhook endpoints and deliveries: EmbeddedWebhooks (webhook-state.ts) over the same state and journal.

  createWebhookEndpoint(endpoint: WebhookEndpointRecord): Promise<void> {
    return this.#webhooks.createEndpoint(endpoint);
  }

  async getWebhookEndpoint(orgId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    return this.#webhooks.getEndpoint(orgId, id);
  }

  async listWebhookEndpoints(orgId: string, limit: number, after?: PageKey): Promise<WebhookEndpointRecord[]> {
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

  async getWebhookDelivery(orgId: string, id: string): Promise<WebhookDeliveryRecord | undefined> {
    return this.#webhooks.getDelivery(orgId, id);
  }

  async listWebhookDeliveries(orgId: string, endpointId: string, limit: number, after?: PageKey): Promise<WebhookDeliveryRecord[]> {
    return this.#webhooks.listDeliveries(orgId, endpointId, limit, after);
  }

  async claimWebhookDeliveries(now: string, lease: JobLease, limit: number): Promise<WebhookDeliveryRecord[]> {
    return this.#webhooks.claim(now, lease, limit);
  }

  recordWebhookAttempt(id: string, owner: string, outcome: WebhookAttemptOutcome): Promise<WebhookDeliveryRecord | undefined> {
    return this.#webhooks.recordAttempt(id, owner, outcome);
  }

  deleteWebhookDeliveriesBefore(instant: string): Promise<number> {
    return this.#webhooks.deleteDeliveriesBefore(instant);
  }

  // Forms and their records: EmbeddedForms (form-state.ts) over the same state and journal.

  createForm(form: FormRecord): Promise<void> {
    return this.#forms.createForm(form);
  }

  async getForm(orgId: string, id: string): Promise<FormRecord | undefined> {
    return this.#forms.getForm(orgId, id);
  }

  async getFormById(id: string): Promise<FormRecord | undefined> {
    return this.#forms.getFormById(id);
  }

  async listForms(orgId: string, filter: { documentId?: string }, limit: number, after?: PageKey): Promise<FormRecord[]> {
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

  async getFillout(orgId: string, id: string): Promise<FilloutRecord | undefined> {
    return this.#forms.getFillout(orgId, id);
  }

  async listFillouts(orgId: string, filter: { formId?: string; documentId?: string }, limit: number, after?: PageKey): Promise<FilloutRecord[]> {
    return this.#forms.listFillouts(orgId, filter, limit, after);
  }

  updateFillout(orgId: string, id: string, patch: FilloutPatch): Promise<FilloutRecord | undefined> {
    return this.#forms.updateFillout(orgId, id, patch);
  }

  deleteFillout(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return this.#forms.deleteFillout(orgId, id);
  }

  // Plugin overrides and the operators' audit log: EmbeddedOperatorLog (operator-state.ts).

  setPluginOverride(override: PluginOverride, entry: OperatorAuditEntry): Promise<void> {
    return this.#operators.setPluginOverride(override, entry);
  }

  async listPluginOverrides(): Promise<PluginOverride[]> {
    return this.#operators.listPluginOverrides();
  }

  async listOperatorAudit(limit: number, after?: PageKey): Promise<OperatorAuditEntry[]> {
    return this.#operators.listOperatorAudit(limit, after);
  }

  /** A record of the collection that belongs to the organization (own keys only: an id is never a prototype's). */
  #own<C extends 'documents' | 'assets' | 'bulkJobs' | 'templates' | 'blocks'>(coll: C, orgId: string, id: string): Data[C][string] | undefined {
    const rec = Object.hasOwn(this.#data[coll], id) ? (this.#data[coll][id] as Data[C][string]) : undefined;
    return rec && rec.orgId === orgId ? rec : undefined;
  }

  /** The assets of `doc` that no document, template, block or form record will use once `doc` uses only `keep`. */
  #released(doc: DocumentRecord | TemplateRecord | BlockRecord, keep: string[]): string[] {
    return (doc.assetIds ?? []).filter((a) => !keep.includes(a) && [...this.#state.assetUsers(a)].every((user) => user === doc.id));
  }

  /** Unsets the organization's other default presets (their version stays: only the flag moved away). */
  #clearDefaultOps(orgId: string, exceptId: string, at: string): StoreOp[] {
    const out: StoreOp[] = [];
    for (const p of Object.values(this.#data.stylePresets)) {
      if (p.orgId === orgId && p.isDefault && p.id !== exceptId) out.push(ops.patch('stylePresets', p.id, { isDefault: false, updatedAt: at }));
    }
    return out;
  }

  /** The new balance is written as a value, not a delta, so replaying it is exact. */
  #ledgerOps(entry: Omit<LedgerEntry, 'balanceAfter'>): StoreOp[] {
    const org = this.#data.organizations[entry.orgId];
    if (!org) throw new Error(`Organization ${entry.orgId} does not exist.`);
    const balance = org.balance + entry.amount;
    return [ops.patch('organizations', org.id, { balance }), ops.append('ledger', { ...entry, balanceAfter: balance })];
  }

  #requireJob(id: string): JobRecord {
    const job = Object.hasOwn(this.#data.jobs, id) ? this.#data.jobs[id] : undefined;
    if (!job) throw new Error(`Job ${id} does not exist.`);
    return job;
  }
}

// A job's `params` (for a render, the whole document) never change once the job is stored, and every status
// poll reads the job: the store freezes its own copy of `params` once and shares it with readers, copying only
// the small part of the record that changes. A patch never carries `params`.

/** The store's copy of a new job: everything copied, `params` frozen. */
function storedJob(job: JobRecord): JobRecord {
  const { params, ...rest } = job;
  return { ...structuredClone(rest), params: deepFreeze(structuredClone(params)) };
}

/** A reader's copy of a stored job: its own copy of everything but the shared, frozen `params`. */
function jobCopy(job: JobRecord): JobRecord {
  const { params, ...rest } = job;
  return { ...structuredClone(rest), params };
}

function jobPatch(patch: Partial<JobRecord>): Partial<JobRecord> {
  checkParamsPatch(patch);
  const copy = structuredClone(patch);
  if (copy.params) deepFreeze(copy.params); // shared with readers, as a new job's
  return copy;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The record stored under `id`, never an inherited property (`constructor`, `__proto__`): an id is data. */
function own<T>(records: Record<string, T>, id: string): T | undefined {
  return Object.hasOwn(records, id) ? records[id] : undefined;
}
