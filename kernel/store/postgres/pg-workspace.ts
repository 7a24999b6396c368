// The workspace part of the PostgreSQL store: style presets, documents, templates, reusable blocks and the assets they share (pg-asset-users.ts).
import type pg from 'pg';
import type { BlockChange, DocumentChange, PageKey, StylePresetPatch, TemplateChange } from '../store.js';
import type { AssetRecord, BlockRecord, DocumentRecord, StylePresetRecord, TemplateRecord } from '../../model.js';
import { copy, listOwn, put, readAll, readOwn, setAssetUsers, transaction, type Db, type RecordOf } from './pg-rows.js';
import { assetsReleasedBy, createAssetUser, deleteAssetUser, deleteAssets } from './pg-asset-users.js';

/** Oldest first, ties by id: the embedded store's order of presets, templates and blocks. */
const oldestFirst = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

export class PgWorkspace {
  constructor(private readonly pool: pg.Pool) {}

  async createStylePreset(preset: StylePresetRecord): Promise<void> {
    await transaction(this.pool, async (tx) => {
      if (preset.isDefault) await this.#clearDefault(tx, preset.orgId, preset.id, preset.createdAt);
      await put(tx, 'style_presets', copy(preset));
    });
  }

  getStylePreset(orgId: string, id: string): Promise<StylePresetRecord | undefined> {
    return readOwn(this.pool, 'style_presets', orgId, id);
  }

  async listStylePresets(orgId: string): Promise<StylePresetRecord[]> {
    return (await listOwn(this.pool, 'style_presets', orgId)).sort(oldestFirst);
  }

  updateStylePreset(orgId: string, id: string, patch: StylePresetPatch, at: string): Promise<StylePresetRecord | undefined> {
    return transaction(this.pool, async (tx) => {
      if (patch.isDefault) await this.#lockDefault(tx, orgId);
      const p = await readOwn(tx, 'style_presets', orgId, id, true);
      if (!p) return undefined;
      // The version is computed from the locked row, so concurrent updates each get their own number.
      const updated: StylePresetRecord = { ...p, ...copy(patch), version: p.version + 1, updatedAt: at };
      if (patch.isDefault) await this.#clearDefault(tx, orgId, id, at);
      await put(tx, 'style_presets', updated);
      return updated;
    });
  }

  async deleteStylePreset(orgId: string, id: string): Promise<boolean> {
    const r = await this.pool.query('DELETE FROM style_presets WHERE id = $1 AND org_id = $2', [id, orgId]);
    return (r.rowCount ?? 0) > 0;
  }

  /** Two presets made default at once must not both stay default: the organization's default moves under a lock. */
  async #lockDefault(tx: Db, orgId: string): Promise<void> {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('quire:default-preset:' || $1))", [orgId]);
  }

  /** Unsets the organization's other default presets (their version stays: only the flag moved away). */
  async #clearDefault(tx: Db, orgId: string, exceptId: string, at: string): Promise<void> {
    await this.#lockDefault(tx, orgId);
    const presets = await readAll<StylePresetRecord>(tx, 'SELECT data FROM style_presets WHERE org_id = $1 AND id <> $2 ORDER BY seq FOR UPDATE', [orgId, exceptId]);
    for (const p of presets) if (p.isDefault) await put(tx, 'style_presets', { ...p, isDefault: false, updatedAt: at });
  }

  createDocument(doc: DocumentRecord, newAssets: AssetRecord[]): Promise<void> {
    return createAssetUser(this.pool, 'documents', doc, newAssets);
  }

  getDocument(orgId: string, id: string): Promise<DocumentRecord | undefined> {
    return readOwn(this.pool, 'documents', orgId, id);
  }

  async countDocuments(orgId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM documents WHERE org_id = $1', [orgId]);
    return Number(rows[0]!.n);
  }

  listDocuments(orgId: string, limit: number, after?: PageKey): Promise<DocumentRecord[]> {
    // Ids compare by code point (COLLATE "C"), as JavaScript compares the embedded store's ids.
    const order = 'ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $2';
    if (!after) return readAll(this.pool, `SELECT data FROM documents WHERE org_id = $1 ${order}`, [orgId, limit]);
    return readAll(this.pool, `SELECT data FROM documents WHERE org_id = $1 AND (created_at < $3 OR (created_at = $3 AND id COLLATE "C" < $4)) ${order}`, [orgId, limit, after.createdAt, after.id]);
  }

  async updateDocument(orgId: string, id: string, change: DocumentChange, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ document: DocumentRecord; releasedAssets: string[] } | 'conflict' | undefined> {
    const outcome = await this.#updateVersioned('documents', orgId, id, change, newAssets, at, expectedVersion);
    return typeof outcome === 'object' ? { document: outcome.record, releasedAssets: outcome.releasedAssets } : outcome;
  }

  deleteDocument(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return deleteAssetUser(this.pool, 'documents', orgId, id);
  }

  createTemplate(template: TemplateRecord, newAssets: AssetRecord[]): Promise<void> {
    return createAssetUser(this.pool, 'templates', template, newAssets);
  }

  getTemplate(orgId: string, id: string): Promise<TemplateRecord | undefined> {
    return readOwn(this.pool, 'templates', orgId, id);
  }

  async listTemplates(orgId: string): Promise<TemplateRecord[]> {
    return (await listOwn(this.pool, 'templates', orgId)).sort(oldestFirst);
  }

  async updateTemplate(orgId: string, id: string, change: TemplateChange, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ template: TemplateRecord; releasedAssets: string[] } | 'conflict' | undefined> {
    const outcome = await this.#updateVersioned('templates', orgId, id, change, newAssets, at, expectedVersion);
    return typeof outcome === 'object' ? { template: outcome.record, releasedAssets: outcome.releasedAssets } : outcome;
  }

  deleteTemplate(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return deleteAssetUser(this.pool, 'templates', orgId, id);
  }

  createBlock(block: BlockRecord, newAssets: AssetRecord[]): Promise<void> {
    return createAssetUser(this.pool, 'blocks', block, newAssets);
  }

  getBlock(orgId: string, id: string): Promise<BlockRecord | undefined> {
    return readOwn(this.pool, 'blocks', orgId, id);
  }

  async listBlocks(orgId: string): Promise<BlockRecord[]> {
    return (await listOwn(this.pool, 'blocks', orgId)).sort(oldestFirst);
  }

  updateBlock(orgId: string, id: string, change: (current: BlockRecord) => BlockChange, at: string, newAssets: AssetRecord[] = []): Promise<BlockRecord | undefined> {
    return transaction(this.pool, async (tx) => {
      // Locked from the read to the write: `change` sees the state its result replaces (a throw rolls back).
      const rec = await readOwn(tx, 'blocks', orgId, id, true);
      if (!rec) return undefined;
      const updated: BlockRecord = { ...rec, ...copy(change(copy(rec))), updatedAt: at };
      for (const a of newAssets) await put(tx, 'assets', copy(a));
      await put(tx, 'blocks', updated);
      await setAssetUsers(tx, id, updated.assetIds);
      return updated;
    });
  }

  deleteBlock(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return deleteAssetUser(this.pool, 'blocks', orgId, id);
  }

  getAsset(orgId: string, id: string): Promise<AssetRecord | undefined> {
    return readOwn(this.pool, 'assets', orgId, id);
  }

  async findAssetBySource(orgId: string, sourceImageId: string): Promise<AssetRecord | undefined> {
    const [asset] = await readAll<AssetRecord>(this.pool, 'SELECT data FROM assets WHERE org_id = $1 AND source_image_id = $2 ORDER BY seq DESC LIMIT 1', [orgId, sourceImageId]);
    return asset;
  }

  /** A change of a document or template: version + 1, new assets and released assets in one transaction. */
  #updateVersioned<T extends 'documents' | 'templates'>(table: T, orgId: string, id: string, change: object & { assetIds?: string[] }, newAssets: AssetRecord[], at: string, expectedVersion?: number): Promise<{ record: RecordOf<T>; releasedAssets: string[] } | 'conflict' | undefined> {
    return transaction(this.pool, async (tx) => {
      const rec = (await readOwn(tx, table, orgId, id, true)) as (RecordOf<T> & { id: string; version: number; assetIds: string[] }) | undefined;
      if (!rec) return undefined;
      if (expectedVersion !== undefined && expectedVersion !== rec.version) return 'conflict' as const;
      const released = change.assetIds ? await assetsReleasedBy(tx, rec, change.assetIds) : [];
      const updated = { ...rec, ...copy(change), version: rec.version + 1, updatedAt: at };
      for (const a of newAssets) await put(tx, 'assets', copy(a));
      await put(tx, table, updated);
      await setAssetUsers(tx, id, updated.assetIds);
      await deleteAssets(tx, released);
      return { record: updated, releasedAssets: released };
    });
  }
}
