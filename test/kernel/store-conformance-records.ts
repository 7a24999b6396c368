// The Store conformance suite's harness type, its per-test store wrapper, and small factories of kernel/model.ts records.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import type { Store } from '../../kernel/store/store.js';
import type { AssetRecord, BlockRecord, BulkJobRecord, DocumentRecord, StylePresetRecord, TemplateRecord } from '../../kernel/model.js';
import type { ApiKeyRecord, FileRecord, IntegrationClient, JobRecord, LedgerEntry, Organization, ResourceTokenRecord } from '../../kernel/model.js';

/** One fresh, empty, initialised store for one test. */
export interface OpenedStore {
  store: Store;
  /** Closes `store` and opens a new store over the same data (absent when the implementation keeps nothing). */
  reopen?: () => Promise<Store>;
  /** Closes whatever store is open and removes its data. */
  cleanup: () => Promise<void>;
}

export type OpenStore = () => Promise<OpenedStore>;

/** Registers the area's tests as one uvu suite; `define` gets `it(title, body)`, whose body gets a fresh store. */
export function area(suiteName: string, name: string, open: OpenStore, define: (it: (title: string, body: (store: Store, opened: OpenedStore) => Promise<void>) => void) => void): void {
  const s = suite(`${suiteName}: ${name}`);
  define((title, body) => {
    s(title, async () => {
      const opened = await open();
      try {
        await body(opened.store, opened);
      } finally {
        await opened.cleanup();
      }
    });
  });
  s.run();
}

export const NOW = '2030-01-01T00:00:00.000Z';
/** An ISO instant `minutes` after 2030-01-01T00:00Z, in the format the services write. */
export const at = (minutes: number): string => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();
export const id = (): string => randomUUID();

export const org = (over: Partial<Organization> = {}): Organization => ({ id: id(), name: 'Acme', plan: 'Team', balance: 0, createdAt: NOW, ...over });

/** Two organizations, stored (the second is the "another organization" of scoping checks). */
export async function twoOrgs(store: Store): Promise<[Organization, Organization]> {
  const pair: [Organization, Organization] = [org(), org({ name: 'Globex' })];
  for (const o of pair) await store.createOrganization(o);
  return pair;
}

export const apiKey = (orgId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: id(), orgId, name: 'ci', role: 'owner', hash: `hash-${id()}`, prefix: 'ak_test', createdAt: NOW, revokedAt: null, ...over,
});

export const client = (over: Partial<IntegrationClient> = {}): IntegrationClient => ({ id: id(), name: 'mcp', secretHash: `secret-${id()}`, createdAt: NOW, revokedAt: null, ...over });

export const resourceToken = (orgId: string, clientId: string, over: Partial<ResourceTokenRecord> = {}): ResourceTokenRecord => ({
  id: id(), orgId, clientId, role: 'member', name: 'rt', hash: `hash-${id()}`, prefix: 'mcp_rt_test', createdAt: NOW, revokedAt: null, ...over,
});

export const file = (orgId: string, over: Partial<FileRecord> = {}): FileRecord => ({
  id: id(), orgId, filename: 'a.pdf', mimeType: 'application/pdf', sizeBytes: 10, kind: 'INPUT', sourceAction: null, pageCount: 1, expiresAt: at(60), createdAt: NOW, ...over,
});

export const job = (orgId: string, over: Partial<JobRecord> = {}): JobRecord => ({
  id: id(), kind: 'render', orgId, pluginId: 'render-pdf', action: 'render.pdf', status: 'PENDING', params: { doc: { title: 'T', blocks: [{ text: 'x' }] } },
  inputFileIds: [], outputFileId: null, error: null, errorCode: null, result: null, webhook: null, estimatedCredits: 3,
  chargedCredits: 0, attempts: 0, progress: 0, createdAt: NOW, startedAt: null, completedAt: null, ...over,
});

export const ledgerEntry = (orgId: string, amount: number, jobId: string | null = null): Omit<LedgerEntry, 'balanceAfter'> => ({
  id: id(), orgId, amount, kind: amount < 0 ? 'charge' : 'grant', jobId, action: jobId ? 'render.pdf' : null, note: null, createdAt: NOW,
});

export const preset = (orgId: string, over: Partial<StylePresetRecord> = {}): StylePresetRecord => ({
  id: id(), orgId, name: 'House', description: null, category: null, tags: ['serif'], isDefault: false,
  definition: { colors: { primary: 'red' } }, version: 1, createdAt: NOW, updatedAt: NOW, ...over,
});

export const asset = (orgId: string, over: Partial<AssetRecord> = {}): AssetRecord => ({
  id: id(), orgId, mimeType: 'image/png', sizeBytes: 10, sourceImageId: id(), createdAt: NOW, ...over,
});

export const document = (orgId: string, over: Partial<DocumentRecord> = {}): DocumentRecord => ({
  id: id(), orgId, name: 'Doc', config: { doc: { title: 'T' } }, stylePresetId: null, assetIds: [], version: 1, createdAt: NOW, updatedAt: NOW, ...over,
});

export const template = (orgId: string, over: Partial<TemplateRecord> = {}): TemplateRecord => ({
  id: id(), orgId, name: 'Letter', slug: `letter-${id()}`, category: null, description: null, productive: true, stylePresetId: null,
  config: { doc: { title: 'T' } }, markdown: '# T\n', warning: null, assetIds: [], version: 1, createdAt: NOW, updatedAt: NOW, ...over,
});

export const block = (orgId: string, over: Partial<BlockRecord> = {}): BlockRecord => ({
  id: id(), orgId, name: 'Block', slug: `block-${id()}`, category: null, tags: [], description: null, status: 'DRAFT', currentVersion: 1,
  versions: [{ id: id(), version: 1, title: 'v1', markdown: 'Text.\n', schema: {}, variables: {}, createdAt: NOW, changeNote: null, restoredFromVersion: null, createdBy: null }],
  assetIds: [], createdBy: null, createdAt: NOW, updatedAt: NOW, ...over,
});

export const bulkJob = (orgId: string, jobs: JobRecord[], over: Partial<BulkJobRecord> = {}): BulkJobRecord => ({
  id: id(), orgId, documentId: id(), format: 'PDF', status: 'PENDING',
  items: jobs.map((j, index) => ({ index, jobId: j.id, error: null, filename: `item-${index + 1}.pdf` })),
  webhook: null, outputFileId: null, estimatedCredits: jobs.reduce((sum, j) => sum + j.estimatedCredits, 0),
  completedItems: 0, failedItems: 0, error: null, createdAt: NOW, completedAt: null, ...over,
});

/** Ids sorted, to compare lists whose order the interface leaves open. */
export const ids = (records: Array<{ id: string }>): string[] => records.map((r) => r.id).sort();

/** Passes when `call` rejects (uvu's `throws` does not wait for a promise). */
export async function rejects(call: () => Promise<unknown>, message = 'expected the call to reject'): Promise<void> {
  try {
    await call();
  } catch {
    return;
  }
  assert.unreachable(message);
}
