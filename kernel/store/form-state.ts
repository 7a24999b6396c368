// The embedded store's interactive forms and their records: reads of its in-memory state, changes as journal operations,
// each record's images released with the last document, template, block or record that uses them.
import { ops, type Data, type StoreOp, type StoreState } from './store-state.js';
import { before, newestFirst } from './newest-first.js';
import type { FilloutPatch, FormChange, PageKey } from './store.js';
import type { AssetRecord, FilloutRecord, FormRecord } from '../model.js';

type Commit = (...changes: StoreOp[]) => Promise<void>;

export class EmbeddedForms {
  constructor(
    private readonly state: () => StoreState,
    private readonly commit: Commit,
  ) {}

  get #data(): Data {
    return this.state().data;
  }

  async createForm(form: FormRecord): Promise<void> {
    await this.commit(ops.put('forms', structuredClone(form)));
  }

  getForm(orgId: string, id: string): FormRecord | undefined {
    const form = this.#form(id);
    return form && form.orgId === orgId ? structuredClone(form) : undefined;
  }

  getFormById(id: string): FormRecord | undefined {
    const form = this.#form(id);
    return form && structuredClone(form);
  }

  listForms(orgId: string, filter: { documentId?: string }, limit: number, after?: PageKey): FormRecord[] {
    return Object.values(this.#data.forms)
      .filter((f) => f.orgId === orgId && (filter.documentId === undefined || f.documentId === filter.documentId) && before(f, after))
      .sort(newestFirst)
      .slice(0, limit)
      .map((f) => structuredClone(f));
  }

  async updateForm(orgId: string, id: string, change: (current: FormRecord) => FormChange, at: string, expectedVersion?: number): Promise<FormRecord | 'conflict' | undefined> {
    const form = this.#form(id);
    if (!form || form.orgId !== orgId) return undefined;
    if (expectedVersion !== undefined && expectedVersion !== form.version) return 'conflict';
    const patch = { ...structuredClone(change(structuredClone(form))), version: form.version + 1, updatedAt: at };
    const durable = this.commit(ops.patch('forms', id, patch));
    const copy = structuredClone(form);
    await durable;
    return copy;
  }

  /** The form, its records and the assets only they used, in one write. */
  async deleteForm(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    const form = this.#form(id);
    if (!form || form.orgId !== orgId) return undefined;
    const records = Object.values(this.#data.fillouts).filter((r) => r.formId === id);
    const released = this.#released(records);
    await this.commit(...records.map((r) => ops.del('fillouts', r.id)), ops.del('forms', id), ...released.map((a) => ops.del('assets', a)));
    return { releasedAssets: released };
  }

  async createFillout(record: FilloutRecord, newAssets: AssetRecord[]): Promise<void> {
    await this.commit(...newAssets.map((a) => ops.put('assets', { ...a })), ops.put('fillouts', structuredClone(record)));
  }

  getFillout(orgId: string, id: string): FilloutRecord | undefined {
    const record = this.#fillout(orgId, id);
    return record && structuredClone(record);
  }

  listFillouts(orgId: string, filter: { formId?: string; documentId?: string }, limit: number, after?: PageKey): FilloutRecord[] {
    return Object.values(this.#data.fillouts)
      .filter((r) => r.orgId === orgId && (filter.formId === undefined || r.formId === filter.formId) && (filter.documentId === undefined || r.documentId === filter.documentId) && before(r, after))
      .sort(newestFirst)
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }

  async updateFillout(orgId: string, id: string, patch: FilloutPatch): Promise<FilloutRecord | undefined> {
    const record = this.#fillout(orgId, id);
    if (!record) return undefined;
    const durable = this.commit(ops.patch('fillouts', id, structuredClone(patch)));
    const copy = structuredClone(record);
    await durable;
    return copy;
  }

  async deleteFillout(orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
    const record = this.#fillout(orgId, id);
    if (!record) return undefined;
    const released = this.#released([record]);
    await this.commit(ops.del('fillouts', id), ...released.map((a) => ops.del('assets', a)));
    return { releasedAssets: released };
  }

  /** The assets of `records` that nothing else (no document, template, block or other record) uses. */
  #released(records: FilloutRecord[]): string[] {
    const going = new Set(records.map((r) => r.id));
    const candidates = new Set(records.flatMap((r) => r.assetIds));
    return [...candidates].filter((a) => [...this.state().assetUsers(a)].every((user) => going.has(user)));
  }

  #form(id: string): FormRecord | undefined {
    const forms = this.#data.forms;
    return Object.hasOwn(forms, id) ? forms[id] : undefined;
  }

  #fillout(orgId: string, id: string): FilloutRecord | undefined {
    const all = this.#data.fillouts;
    const record = Object.hasOwn(all, id) ? all[id] : undefined;
    return record && record.orgId === orgId ? record : undefined;
  }
}
