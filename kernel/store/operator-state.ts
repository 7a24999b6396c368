// The embedded store's plugin overrides and operators' audit log: reads of its in-memory state, changes as journal operations.
import { ops, type Data, type StoreOp } from './store-state.js';
import { before, newestFirst } from './newest-first.js';
import type { PageKey } from './store.js';
import type { OperatorAuditEntry, PluginOverride } from '../model.js';

type Commit = (...changes: StoreOp[]) => Promise<void>;

export class EmbeddedOperatorLog {
  constructor(
    private readonly data: () => Data,
    private readonly commit: Commit,
  ) {}

  async setPluginOverride(override: PluginOverride, entry: OperatorAuditEntry): Promise<void> {
    await this.commit(ops.put('pluginOverrides', { id: override.pluginId, ...structuredClone(override) }), ops.put('operatorAudit', structuredClone(entry)));
  }

  listPluginOverrides(): PluginOverride[] {
    return Object.values(this.data().pluginOverrides).map(({ id: _id, ...override }) => structuredClone(override));
  }

  listOperatorAudit(limit: number, after?: PageKey): OperatorAuditEntry[] {
    return Object.values(this.data().operatorAudit)
      .filter((e) => before(e, after))
      .sort(newestFirst)
      .slice(0, limit)
      .map((e) => structuredClone(e));
  }
}
