// The forms part of the PostgreSQL store: interactive forms of documents and their records (not yet implemented).
import type pg from 'pg';
import type { FilloutPatch, FormChange, PageKey } from '../store.js';
import type { AssetRecord, FilloutRecord, FormRecord } from '../../model.js';

const notYet = (): never => {
  throw new Error('forms on PostgreSQL: not yet');
};

export class PgForms {
  constructor(private readonly pool: pg.Pool) {}

  async createForm(_form: FormRecord): Promise<void> {
    notYet();
  }

  async getForm(_orgId: string, _id: string): Promise<FormRecord | undefined> {
    return notYet();
  }

  async getFormById(_id: string): Promise<FormRecord | undefined> {
    return notYet();
  }

  async listForms(_orgId: string, _filter: { documentId?: string }, _limit: number, _after?: PageKey): Promise<FormRecord[]> {
    return notYet();
  }

  async updateForm(_orgId: string, _id: string, _change: (current: FormRecord) => FormChange, _at: string, _expectedVersion?: number): Promise<FormRecord | 'conflict' | undefined> {
    return notYet();
  }

  async deleteForm(_orgId: string, _id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return notYet();
  }

  async createFillout(_record: FilloutRecord, _newAssets: AssetRecord[]): Promise<void> {
    notYet();
  }

  async getFillout(_orgId: string, _id: string): Promise<FilloutRecord | undefined> {
    return notYet();
  }

  async listFillouts(_orgId: string, _filter: { formId?: string; documentId?: string }, _limit: number, _after?: PageKey): Promise<FilloutRecord[]> {
    return notYet();
  }

  async updateFillout(_orgId: string, _id: string, _patch: FilloutPatch): Promise<FilloutRecord | undefined> {
    return notYet();
  }

  async deleteFillout(_orgId: string, _id: string): Promise<{ releasedAssets: string[] } | undefined> {
    return notYet();
  }
}
