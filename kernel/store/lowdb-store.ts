// The embedded metadata store: one JSON document under the data dir, written durably on every change.
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { Low } from 'lowdb';
import { DurableJsonFile } from './durable-json-file.js';
import type { Store } from './store.js';
import type { IntegrationClient, ResourceTokenRecord } from '../model.js';
import type { ApiKeyRecord, FileRecord, JobRecord, JobStatus, LedgerEntry, Organization } from '../model.js';

interface Data {
  schemaVersion: 1;
  organizations: Record<string, Organization>;
  apiKeys: Record<string, ApiKeyRecord>;
  integrationClients: Record<string, IntegrationClient>;
  resourceTokens: Record<string, ResourceTokenRecord>;
  files: Record<string, FileRecord>;
  jobs: Record<string, JobRecord>;
  ledger: LedgerEntry[];
}

const emptyData = (): Data => ({ schemaVersion: 1, organizations: {}, apiKeys: {}, integrationClients: {}, resourceTokens: {}, files: {}, jobs: {}, ledger: [] });

export class LowdbStore implements Store {
  #db: Low<Data>;
  #keyByHash = new Map<string, string>();

  constructor(dataDir: string) {
    this.#db = new Low<Data>(new DurableJsonFile<Data>(path.join(dataDir, 'quire.json')), emptyData());
    this.dataDir = dataDir;
  }

  private readonly dataDir: string;

  async init(): Promise<void> {
    await mkdir(this.dataDir, { recursive: true });
    await this.#db.read();
    this.#db.data = { ...emptyData(), ...this.#db.data };
    for (const key of Object.values(this.#db.data.apiKeys)) this.#keyByHash.set(key.hash, key.id);
  }

  async close(): Promise<void> {
    await this.#db.write();
  }

  get #data(): Data {
    return this.#db.data;
  }

  #save(): Promise<void> {
    return this.#db.write();
  }

  async createOrganization(org: Organization): Promise<void> {
    this.#data.organizations[org.id] = { ...org };
    await this.#save();
  }

  async getOrganization(id: string): Promise<Organization | undefined> {
    const org = this.#data.organizations[id];
    return org && { ...org };
  }

  async listOrganizations(): Promise<Organization[]> {
    return Object.values(this.#data.organizations).map((o) => ({ ...o }));
  }

  async createApiKey(key: ApiKeyRecord): Promise<void> {
    this.#data.apiKeys[key.id] = { ...key };
    this.#keyByHash.set(key.hash, key.id);
    await this.#save();
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = this.#keyByHash.get(hash);
    const key = id ? this.#data.apiKeys[id] : undefined;
    return key && { ...key };
  }

  async listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
    return Object.values(this.#data.apiKeys).filter((k) => k.orgId === orgId).map((k) => ({ ...k }));
  }

  async revokeApiKey(orgId: string, id: string, at: string): Promise<boolean> {
    const key = this.#data.apiKeys[id];
    if (!key || key.orgId !== orgId || key.revokedAt) return false;
    key.revokedAt = at;
    await this.#save();
    return true;
  }

  async createIntegrationClient(client: IntegrationClient): Promise<void> {
    this.#data.integrationClients[client.id] = { ...client };
    await this.#save();
  }

  async getIntegrationClient(id: string): Promise<IntegrationClient | undefined> {
    const c = this.#data.integrationClients[id];
    return c && { ...c };
  }

  async listIntegrationClients(): Promise<IntegrationClient[]> {
    return Object.values(this.#data.integrationClients).map((c) => ({ ...c }));
  }

  async createResourceToken(token: ResourceTokenRecord): Promise<void> {
    this.#data.resourceTokens[token.id] = { ...token };
    await this.#save();
  }

  async findResourceTokenByHash(hash: string): Promise<ResourceTokenRecord | undefined> {
    const t = Object.values(this.#data.resourceTokens).find((r) => r.hash === hash);
    return t && { ...t };
  }

  async getResourceToken(id: string): Promise<ResourceTokenRecord | undefined> {
    const t = this.#data.resourceTokens[id];
    return t && { ...t };
  }

  async listResourceTokens(orgId: string): Promise<ResourceTokenRecord[]> {
    return Object.values(this.#data.resourceTokens).filter((t) => t.orgId === orgId).map((t) => ({ ...t }));
  }

  async revokeResourceToken(orgId: string, id: string, at: string): Promise<boolean> {
    const t = this.#data.resourceTokens[id];
    if (!t || t.orgId !== orgId || t.revokedAt) return false;
    t.revokedAt = at;
    await this.#save();
    return true;
  }

  async createFile(file: FileRecord): Promise<void> {
    this.#data.files[file.id] = { ...file };
    await this.#save();
  }

  async getFile(orgId: string, id: string): Promise<FileRecord | undefined> {
    const file = this.#data.files[id];
    return file && file.orgId === orgId ? { ...file } : undefined;
  }

  async deleteFile(id: string): Promise<void> {
    if (!(id in this.#data.files)) return;
    delete this.#data.files[id];
    await this.#save();
  }

  async listFilesExpiredBy(instant: string): Promise<FileRecord[]> {
    return Object.values(this.#data.files).filter((f) => f.expiresAt <= instant).map((f) => ({ ...f }));
  }

  async createJob(job: JobRecord): Promise<void> {
    this.#data.jobs[job.id] = structuredClone(job);
    await this.#save();
  }

  async getJob(orgId: string, id: string): Promise<JobRecord | undefined> {
    const job = this.#data.jobs[id];
    return job && job.orgId === orgId ? structuredClone(job) : undefined;
  }

  async getJobById(id: string): Promise<JobRecord | undefined> {
    const job = this.#data.jobs[id];
    return job && structuredClone(job);
  }

  async updateJob(id: string, patch: Partial<JobRecord>): Promise<JobRecord> {
    const job = this.#requireJob(id);
    Object.assign(job, structuredClone(patch));
    await this.#save();
    return structuredClone(job);
  }

  async finishJob(id: string, patch: Partial<JobRecord>, charge: Omit<LedgerEntry, 'balanceAfter'> | null): Promise<JobRecord> {
    const job = this.#requireJob(id);
    if (job.status === 'COMPLETED' || job.status === 'FAILED') {
      throw new Error(`Job ${id} is already ${job.status}; a finished job never moves again.`);
    }
    Object.assign(job, structuredClone(patch));
    if (charge) this.#appendLedger(charge);
    await this.#save();
    return structuredClone(job);
  }

  async listJobsByStatus(statuses: JobStatus[]): Promise<JobRecord[]> {
    return Object.values(this.#data.jobs)
      .filter((j) => statuses.includes(j.status))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((j) => structuredClone(j));
  }

  async outstandingEstimate(orgId: string): Promise<number> {
    let sum = 0;
    for (const j of Object.values(this.#data.jobs)) {
      if (j.orgId === orgId && (j.status === 'PENDING' || j.status === 'PROCESSING')) sum += j.estimatedCredits;
    }
    return sum;
  }

  async deleteJobsFinishedBefore(instant: string): Promise<number> {
    let removed = 0;
    for (const [id, j] of Object.entries(this.#data.jobs)) {
      if (j.completedAt && j.completedAt < instant) {
        delete this.#data.jobs[id];
        removed++;
      }
    }
    if (removed) await this.#save();
    return removed;
  }

  async addLedgerEntry(entry: Omit<LedgerEntry, 'balanceAfter'>): Promise<LedgerEntry> {
    const written = this.#appendLedger(entry);
    await this.#save();
    return { ...written };
  }

  async listLedger(orgId: string, limit: number): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    for (let i = this.#data.ledger.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.#data.ledger[i]!;
      if (e.orgId === orgId) out.push({ ...e });
    }
    return out;
  }

  #appendLedger(entry: Omit<LedgerEntry, 'balanceAfter'>): LedgerEntry {
    const org = this.#data.organizations[entry.orgId];
    if (!org) throw new Error(`Organization ${entry.orgId} does not exist.`);
    org.balance += entry.amount;
    const written: LedgerEntry = { ...entry, balanceAfter: org.balance };
    this.#data.ledger.push(written);
    return written;
  }

  #requireJob(id: string): JobRecord {
    const job = this.#data.jobs[id];
    if (!job) throw new Error(`Job ${id} does not exist.`);
    return job;
  }
}
