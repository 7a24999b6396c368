// Plugin overrides and the operators' audit log on PostgreSQL: migration 0010, one override row per plugin, the log paged newest first.
import type pg from 'pg';
import { copy, page, put, readAll, transaction } from './pg-rows.js';
import type { PageKey } from '../store.js';
import type { OperatorAuditEntry, PluginOverride } from '../../model.js';

/** Migration 0010. Every node reads all of plugin_overrides every few seconds (services/plugin-switch.ts): one row a plugin. */
export const OPERATORS_SQL = `
CREATE TABLE plugin_overrides (plugin_id text PRIMARY KEY, data json NOT NULL);
CREATE TABLE operator_audit (id text PRIMARY KEY, seq bigserial NOT NULL, created_at timestamptz NOT NULL, data json NOT NULL);
CREATE INDEX operator_audit_created ON operator_audit (created_at DESC, id COLLATE "C" DESC);
`;

export class PgOperators {
  constructor(private readonly pool: pg.Pool) {}

  async setPluginOverride(override: PluginOverride, entry: OperatorAuditEntry): Promise<void> {
    await transaction(this.pool, async (tx) => {
      await tx.query('INSERT INTO plugin_overrides (plugin_id, data) VALUES ($1, $2) ON CONFLICT (plugin_id) DO UPDATE SET data = EXCLUDED.data', [override.pluginId, JSON.stringify(override)]);
      await put(tx, 'operator_audit', copy(entry));
    });
  }

  listPluginOverrides(): Promise<PluginOverride[]> {
    return readAll(this.pool, 'SELECT data FROM plugin_overrides ORDER BY plugin_id');
  }

  listOperatorAudit(limit: number, after?: PageKey): Promise<OperatorAuditEntry[]> {
    return page(this.pool, 'operator_audit', 'true', [], limit, after);
  }
}
