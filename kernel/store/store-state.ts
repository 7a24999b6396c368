// The embedded store's in-memory state: its collections, the operations that change them, and lookup indexes.
import type { AssetRecord, BulkJobRecord, DocumentRecord, IntegrationClient, ResourceTokenRecord, StylePresetRecord, TemplateRecord } from '../model.js';
import type { BlockRecord } from '../model.js';
import type { ApiKeyRecord, FileRecord, JobRecord, LedgerEntry, Organization } from '../model.js';
import type { IdempotencyRecord } from './store.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../model.js';
import type { FilloutRecord, FormRecord } from '../model.js';
import type { OperatorAuditEntry, PluginOverride } from '../model.js';

/** The snapshot document (`quire.json`). A new collection is one line here and one in `emptyData`. */
export interface Data {
  schemaVersion: 1;
  /** Last journal change this snapshot holds; journal lines up to it are skipped on replay. */
  journalSeq: number;
  organizations: Record<string, Organization>;
  apiKeys: Record<string, ApiKeyRecord>;
  integrationClients: Record<string, IntegrationClient>;
  resourceTokens: Record<string, ResourceTokenRecord>;
  files: Record<string, FileRecord>;
  jobs: Record<string, JobRecord>;
  ledger: LedgerEntry[];
  stylePresets: Record<string, StylePresetRecord>;
  documents: Record<string, DocumentRecord>;
  assets: Record<string, AssetRecord>;
  bulkJobs: Record<string, BulkJobRecord>;
  templates: Record<string, TemplateRecord>;
  blocks: Record<string, BlockRecord>;
  idempotencyKeys: Record<string, IdempotencyRecord>;
  webhookEndpoints: Record<string, WebhookEndpointRecord>;
  webhookDeliveries: Record<string, WebhookDeliveryRecord>;
  forms: Record<string, FormRecord>;
  fillouts: Record<string, FilloutRecord>;
  /** Keyed by plugin id; `id` is the plugin id too (collections are keyed by their records' `id`). */
  pluginOverrides: Record<string, PluginOverride & { id: string }>;
  operatorAudit: Record<string, OperatorAuditEntry>;
}

export const emptyData = (): Data => ({ schemaVersion: 1, journalSeq: 0, organizations: {}, apiKeys: {}, integrationClients: {}, resourceTokens: {}, files: {}, jobs: {}, ledger: [], stylePresets: {}, documents: {}, assets: {}, bulkJobs: {}, templates: {}, blocks: {}, webhookEndpoints: {}, webhookDeliveries: {}, idempotencyKeys: {}, forms: {}, fillouts: {}, pluginOverrides: {}, operatorAudit: {} });

/** Collections keyed by id, and append-only lists; derived from `Data` so the two never drift. */
export type RecordCollection = { [K in keyof Data]: Data[K] extends unknown[] ? never : Data[K] extends Record<string, { id: string }> ? K : never }[keyof Data];
export type ListCollection = { [K in keyof Data]: Data[K] extends unknown[] ? K : never }[keyof Data];
type RecordOf<C extends RecordCollection> = Data[C][string];
type ItemOf<C extends ListCollection> = Data[C][number];

/** One change to one record, as written to the journal. */
export type StoreOp =
  | { op: 'put'; coll: RecordCollection; id: string; value: object }
  | { op: 'patch'; coll: RecordCollection; id: string; value: object }
  | { op: 'del'; coll: RecordCollection; id: string }
  | { op: 'append'; coll: ListCollection; value: object };

/** Typed constructors: the value given becomes the stored record, so pass a copy the caller no longer holds. */
export const ops = {
  put: <C extends RecordCollection>(coll: C, value: RecordOf<C>): StoreOp => ({ op: 'put', coll, id: value.id, value }),
  patch: <C extends RecordCollection>(coll: C, id: string, value: Partial<RecordOf<C>>): StoreOp => ({ op: 'patch', coll, id, value }),
  del: (coll: RecordCollection, id: string): StoreOp => ({ op: 'del', coll, id }),
  append: <C extends ListCollection>(coll: C, value: ItemOf<C>): StoreOp => ({ op: 'append', coll, value }),
};

const isUnfinished = (j: JobRecord) => j.status === 'PENDING' || j.status === 'PROCESSING';

export class StoreState {
  readonly data: Data;
  #apiKeyByHash = new Map<string, string>();
  #resourceTokenByHash = new Map<string, string>();
  /** orgId → (jobId → estimated credits) of the organization's PENDING and PROCESSING jobs. */
  #unfinished = new Map<string, Map<string, number>>();
  /** assetId → the documents, templates, reusable blocks and form records that use it: an asset goes with the last of them. */
  #assetUsers = new Map<string, Set<string>>();
  /** `${orgId}/${sourceImageId}` → asset id. */
  #assetBySource = new Map<string, string>();

  constructor(snapshot: Partial<Data> | null) {
    this.data = { ...emptyData(), ...snapshot };
    for (const coll of Object.keys(this.data) as Array<keyof Data>) {
      const c = this.data[coll];
      if (c && typeof c === 'object' && !Array.isArray(c)) {
        for (const rec of Object.values(c)) this.#index(coll as RecordCollection, rec as object, true);
      }
    }
  }

  /** Applies one operation; throws (before changing anything) on one that does not fit the state. */
  apply(op: StoreOp): void {
    if (op.op === 'append') {
      const list = this.data[op.coll] as unknown;
      if (!Array.isArray(list)) throw new Error(`unknown list "${String(op.coll)}"`);
      list.push(op.value);
      return;
    }
    const coll = this.#records(op.coll);
    const old = Object.hasOwn(coll, op.id) ? coll[op.id] : undefined;
    switch (op.op) {
      case 'put':
        if (old) this.#index(op.coll, old, false);
        coll[op.id] = op.value;
        this.#index(op.coll, op.value, true);
        return;
      case 'patch':
        if (!old) throw new Error(`${op.coll}/${op.id} does not exist, so it cannot be patched`);
        this.#index(op.coll, old, false);
        Object.assign(old, op.value);
        this.#index(op.coll, old, true);
        return;
      case 'del':
        if (!old) return;
        this.#index(op.coll, old, false);
        delete coll[op.id];
        return;
      default:
        throw new Error(`unknown operation "${(op as { op: unknown }).op}"`);
    }
  }

  apiKeyIdByHash(hash: string): string | undefined {
    return this.#apiKeyByHash.get(hash);
  }

  resourceTokenIdByHash(hash: string): string | undefined {
    return this.#resourceTokenByHash.get(hash);
  }

  /** The documents, templates, blocks and form records that use the asset. */
  assetUsers(assetId: string): ReadonlySet<string> {
    return this.#assetUsers.get(assetId) ?? new Set();
  }

  assetIdBySource(orgId: string, sourceImageId: string): string | undefined {
    return this.#assetBySource.get(`${orgId}/${sourceImageId}`);
  }

  outstandingEstimate(orgId: string): number {
    let sum = 0;
    for (const credits of this.#unfinished.get(orgId)?.values() ?? []) sum += credits;
    return sum;
  }

  #records(name: RecordCollection): Record<string, object> {
    const coll = Object.hasOwn(this.data, name) ? (this.data[name] as unknown) : undefined;
    if (!coll || typeof coll !== 'object' || Array.isArray(coll)) throw new Error(`unknown collection "${String(name)}"`);
    return coll as Record<string, object>;
  }

  #index(coll: RecordCollection, rec: object, add: boolean): void {
    switch (coll) {
      case 'apiKeys':
        return this.#indexHash(this.#apiKeyByHash, rec as ApiKeyRecord, add);
      case 'resourceTokens':
        return this.#indexHash(this.#resourceTokenByHash, rec as ResourceTokenRecord, add);
      case 'documents':
      case 'templates':
      case 'blocks':
      case 'fillouts': {
        // A block stored before blocks kept assets has no `assetIds`.
        const doc = rec as DocumentRecord | TemplateRecord | BlockRecord | FilloutRecord;
        for (const assetId of doc.assetIds ?? []) {
          const users = this.#assetUsers.get(assetId);
          if (add) {
            if (users) users.add(doc.id);
            else this.#assetUsers.set(assetId, new Set([doc.id]));
          } else if (users?.delete(doc.id) && users.size === 0) {
            this.#assetUsers.delete(assetId);
          }
        }
        return;
      }
      case 'assets': {
        const asset = rec as AssetRecord;
        if (!asset.sourceImageId) return;
        const key = `${asset.orgId}/${asset.sourceImageId}`;
        if (add) this.#assetBySource.set(key, asset.id);
        else if (this.#assetBySource.get(key) === asset.id) this.#assetBySource.delete(key);
        return;
      }
      case 'jobs': {
        const job = rec as JobRecord;
        const org = this.#unfinished.get(job.orgId);
        if (add && isUnfinished(job)) {
          if (org) org.set(job.id, job.estimatedCredits);
          else this.#unfinished.set(job.orgId, new Map([[job.id, job.estimatedCredits]]));
        } else if (!add && org?.delete(job.id) && org.size === 0) {
          this.#unfinished.delete(job.orgId);
        }
        return;
      }
      default:
        return;
    }
  }

  #indexHash(index: Map<string, string>, rec: { id: string; hash: string }, add: boolean): void {
    if (add) index.set(rec.hash, rec.id);
    else if (index.get(rec.hash) === rec.id) index.delete(rec.hash);
  }
}
