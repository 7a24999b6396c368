// Interactive forms and their records on PostgreSQL: migration 0009, and a record's images released with the last
// document, template, block or record that uses them (asset_users, as pg-workspace.ts keeps it for documents).
import type pg from 'pg';
import { copy, page, put, readAll, readOne, readOwn, transaction } from './pg-rows.js';
import { assetsOnlyUsedBy, createAssetUser, deleteAssets, deleteAssetUser } from './pg-asset-users.js';
import type { FilloutPatch, FormChange, PageKey } from '../store.js';
import type { AssetRecord, FilloutRecord, FormRecord } from '../../model.js';

/** Migration 0009. Both tables list newest first (ids by code point, as documents): by organization, form or document. */
export const FORMS_SQL = `
CREATE TABLE forms (
  id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, document_id text NOT NULL, created_at timestamptz NOT NULL, data json NOT NULL
);
CREATE INDEX forms_org_created ON forms (org_id, created_at DESC, id COLLATE "C" DESC);
CREATE INDEX forms_document ON forms (document_id, created_at DESC, id COLLATE "C" DESC);
CREATE TABLE fillouts (
  id text PRIMARY KEY, seq bigserial NOT NULL, org_id text NOT NULL, form_id text NOT NULL, document_id text NOT NULL,
  created_at timestamptz NOT NULL, data json NOT NULL
);
CREATE INDEX fillouts_org_created ON fillouts (org_id, created_at DESC, id COLLATE "C" DESC);
CREATE INDEX fillouts_form ON fillouts (form_id, created_at DESC, id COLLATE "C" DESC);
CREATE INDEX fillouts_document ON fillouts (document_id, created_at DESC, id COLLATE "C" DESC);
`;

export class PgForms {
  constructor(private readonly pool: pg.Pool) {}

  async createForm(form: FormRecord): Promise<void> {
    await put(this.pool, 'forms', copy(form));
  }

  getForm(orgId: string, id: string): Promise<FormRecord | undefined> {
    return readOwn(this.pool, 'forms', orgId, id);
  }

  getFormById(id: string): Promise<FormRecord | undefined> {
    return readOne(this.pool, 'forms', id);
  }

  listForms(orgId: string, filter: { documentId?: string }, limit: number, after?: PageKey): Promise<FormRecord[]> {
    if (filter.documentId === undefined) return page(this.pool, 'forms', 'org_id = $1', [orgId], limit, after);
    return page(this.pool, 'forms', 'org_id = $1 AND document_id = $2', [orgId, filter.documentId], limit, after);
  }

  updateForm(orgId: string, id: string, change: (current: FormRecord) => FormChange, at: string, expectedVersion?: number): Promise<FormRecord | 'conflict' | undefined> {
    return transaction(this.pool, async (tx) => {
      // Locked from the read to the write: `change` sees the form its result replaces (a throw rolls back).
      const form = await readOwn(tx, 'forms', orgId, id, true);
      if (!form) return undefined;
      if (expectedVersion !== undefined && expectedVersion !== form.version) return 'conflict';
      const updated: FormRecord = { ...form, ...copy(change(copy(form))), version: form.version + 1, updatedAt: at };
      await put(tx, 'forms', updated);
      return updated;
    });
  }

  /** The form, its records, their asset_users rows and the assets only they used, in one transaction. */
  deleteForm(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return transaction(this.pool, async (tx) => {
      // The form's row first: a record being added to it meanwhile (createFillout shares that lock) is deleted with it.
      const form = await readOwn(tx, 'forms', orgId, id, true);
      if (!form) return undefined;
      const records = await readAll<FilloutRecord>(tx, 'SELECT data FROM fillouts WHERE form_id = $1 ORDER BY id FOR UPDATE', [id]);
      const going = records.map((r) => r.id);
      const released = await assetsOnlyUsedBy(tx, going, [...new Set(records.flatMap((r) => r.assetIds))]);
      await tx.query('DELETE FROM fillouts WHERE form_id = $1', [id]);
      if (going.length) await tx.query('DELETE FROM asset_users WHERE user_id = ANY($1::text[])', [going]);
      await tx.query('DELETE FROM forms WHERE id = $1', [id]);
      await deleteAssets(tx, released);
      return { releasedAssets: released };
    });
  }

  async createFillout(record: FilloutRecord, newAssets: AssetRecord[]): Promise<void> {
    // Under a share lock of its form's row, so that a deleteForm starting meanwhile waits for it and deletes it too.
    await createAssetUser(this.pool, 'fillouts', record, newAssets, (tx) => tx.query('SELECT 1 FROM forms WHERE id = $1 FOR SHARE', [record.formId]));
  }

  getFillout(orgId: string, id: string): Promise<FilloutRecord | undefined> {
    return readOwn(this.pool, 'fillouts', orgId, id);
  }

  listFillouts(orgId: string, filter: { formId?: string; documentId?: string }, limit: number, after?: PageKey): Promise<FilloutRecord[]> {
    const where = ['org_id = $1'];
    const params: unknown[] = [orgId];
    if (filter.formId !== undefined) where.push(`form_id = $${params.push(filter.formId)}`);
    if (filter.documentId !== undefined) where.push(`document_id = $${params.push(filter.documentId)}`);
    return page(this.pool, 'fillouts', where.join(' AND '), params, limit, after);
  }

  updateFillout(orgId: string, id: string, patch: FilloutPatch): Promise<FilloutRecord | undefined> {
    return transaction(this.pool, async (tx) => {
      const record = await readOwn(tx, 'fillouts', orgId, id, true);
      if (!record) return undefined;
      const updated: FilloutRecord = { ...record, ...copy(patch) };
      await put(tx, 'fillouts', updated);
      return updated;
    });
  }

  deleteFillout(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return deleteAssetUser(this.pool, 'fillouts', orgId, id);
  }
}
