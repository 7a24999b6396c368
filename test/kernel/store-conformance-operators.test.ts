// Store conformance for the operators' plugin overrides and audit log (issue 27), run against the embedded store and PostgreSQL.
import * as assert from 'uvu/assert';
import type { OperatorAuditEntry, PluginOverride } from '../../kernel/model.js';
import { startPostgres } from '../helpers/postgres.js';
import { area, at, id, type OpenStore } from './store-conformance-records.js';
import { lowdbStores, pgStores } from './store-openers.js';

const override = (pluginId: string, enabled: boolean, minutes: number, over: Partial<PluginOverride> = {}): PluginOverride => ({
  pluginId, enabled, reason: enabled ? null : 'maintenance', byKeyId: 'key-1', at: at(minutes), ...over,
});

/** The audit entry of an override, as the operator API writes them together. */
const entryOf = (o: PluginOverride, over: Partial<OperatorAuditEntry> = {}): OperatorAuditEntry => ({
  id: id(), action: o.enabled ? 'plugin.enable' : 'plugin.disable', pluginId: o.pluginId, reason: o.reason, keyId: o.byKeyId, keyName: 'Ops on call', createdAt: o.at, ...over,
});

const byPlugin = (list: PluginOverride[]) => [...list].sort((a, b) => a.pluginId.localeCompare(b.pluginId));
const key = (e: OperatorAuditEntry) => ({ createdAt: e.createdAt, id: e.id });

function defineOperatorConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'operators', open, (it) => {
    it('a fresh store has no overrides and an empty audit log', async (store) => {
      assert.equal(await store.listPluginOverrides(), []);
      assert.equal(await store.listOperatorAudit(10), []);
    });

    it('keeps one override per plugin, the last set, and an audit entry for every switch', async (store) => {
      const merge1 = override('pdf-merge', false, 1);
      const merge2 = override('pdf-merge', true, 2, { byKeyId: 'key-2', reason: 'back' });
      const lens = override('lens', false, 3);
      const entries = [entryOf(merge1), entryOf(merge2), entryOf(lens)];
      await store.setPluginOverride(merge1, entries[0]!);
      await store.setPluginOverride(merge2, entries[1]!);
      await store.setPluginOverride(lens, entries[2]!);
      assert.equal(byPlugin(await store.listPluginOverrides()), [lens, merge2]);
      assert.equal(await store.listOperatorAudit(10), [...entries].reverse());
    });

    it('lists the audit log newest first, ties by id, in pages after a cursor', async (store) => {
      const o = override('pdf-merge', false, 5);
      const first = entryOf(override('pdf-merge', true, 1));
      const tieLow = entryOf(o, { id: `a-${id()}` });
      const tieHigh = entryOf(o, { id: `b-${id()}` });
      for (const e of [tieLow, first, tieHigh]) await store.setPluginOverride(o, e);
      const page = await store.listOperatorAudit(2);
      assert.equal(page, [tieHigh, tieLow]);
      assert.equal(await store.listOperatorAudit(2, key(page[1]!)), [first]);
      assert.equal(await store.listOperatorAudit(2, key(first)), []);
    });

    it('overrides and the audit log survive a reopen', async (store, opened) => {
      const o = override('pdf-split', false, 1);
      const e = entryOf(o);
      await store.setPluginOverride(o, e);
      const reopened = await opened.reopen!();
      assert.equal(await reopened.listPluginOverrides(), [o]);
      assert.equal(await reopened.listOperatorAudit(10), [e]);
    });

    it('switches written at once all land: one override per plugin, every entry logged', async (store) => {
      const switches = ['a', 'b', 'c', 'd'].flatMap((p, i) => [override(`plugin-${p}`, false, i), override(`plugin-${p}`, true, i + 10)]);
      await Promise.all(switches.map((o) => store.setPluginOverride(o, entryOf(o))));
      const overrides = await store.listPluginOverrides();
      assert.equal(overrides.map((o) => o.pluginId).sort(), ['plugin-a', 'plugin-b', 'plugin-c', 'plugin-d']);
      assert.is((await store.listOperatorAudit(100)).length, switches.length);
    });

    it('reads are copies: changing what a read returned changes nothing stored', async (store) => {
      const o = override('pdf-merge', false, 1);
      await store.setPluginOverride(o, entryOf(o));
      const [read] = await store.listPluginOverrides();
      read!.enabled = true;
      const [entry] = await store.listOperatorAudit(1);
      entry!.keyName = 'changed';
      assert.equal(await store.listPluginOverrides(), [o]);
      assert.is((await store.listOperatorAudit(1))[0]!.keyName, 'Ops on call');
    });
  });
}

// Started before any suite is registered (uvu runs the registered suites at the first pause); the harness reaps it
// when the process exits, after the last suite.
const cluster = await startPostgres();

defineOperatorConformance('LowdbStore', lowdbStores('quire-store-operators-'));
defineOperatorConformance('PgStore', pgStores(cluster, 'operators_'));
