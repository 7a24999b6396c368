// The thread budget shared by the plugin pools: live threads never exceed it, a waiting task runs on a thread another pool gives up, idle pools shrink to none, grown threads are replaced, and a fresh server holds only the warm render thread.
import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PluginPool } from '../../kernel/plugin-pool.js';
import { ThreadBudget, threadLimit } from '../../kernel/thread-budget.js';
import { loadConfig } from '../../kernel/config.js';
import { startQuire } from '../../server/composition-root.js';
import { createLogger } from '../../kernel/logger.js';
import { TOKENS } from '../../kernel/tokens.js';
import type { PluginRegistry } from '../../kernel/plugin-registry.js';
import { cleanup, OWNER_KEY, tempDir } from '../helpers/quire-server.js';
import { until } from '../helpers/webhook-receiver.js';
import probe from '../fixtures/plugins/kernel-probe/manifest.js';

const sleepFor = (ms: number) => ({ params: { ms }, files: [], settings: {} });
const threads = (pool: PluginPool) => {
  const { busy, idle } = pool.threadStates();
  return busy + idle;
};

test('derives the thread limit from the memory budget, at least one thread per core and never below two', () => {
  assert.is(threadLimit(800, 2), 4, 'what the budget leaves after the base, 128 MB a thread');
  assert.is(threadLimit(2000, 2), 13);
  assert.is(threadLimit(800, 16), 16, 'one per core when the budget allows fewer');
  assert.is(threadLimit(100, 1), 2);
});

test('two pools sharing a budget of two threads never hold more than two; a waiting task runs once the other pool gives a thread up', async () => {
  const budget = new ThreadBudget(2);
  const limits = { ...probe.manifest.pool, maxThreads: 2, maxQueue: 10, idleTimeoutMs: 60_000 };
  const a = PluginPool.forPlugin(probe, limits, budget);
  const b = PluginPool.forPlugin(probe, limits, budget);
  let most = 0;
  let sawWaiting = false;
  const watch = setInterval(() => {
    most = Math.max(most, budget.liveThreads());
    sawWaiting ||= budget.waiting > 0;
  }, 2);
  try {
    const first = [a.run('sleepFor', sleepFor(300)), a.run('sleepFor', sleepFor(50))];
    const later = b.run('sleepFor', sleepFor(1));
    assert.equal(await Promise.all([...first, later]), [{ result: { slept: 300 } }, { result: { slept: 50 } }, { result: { slept: 1 } }]);
    assert.ok(sawWaiting, "b's task waited for a slot");
    assert.ok(most <= 2, `at most two live threads (saw ${most})`);
    // b's thread started once a's idle thread was ended for it: one each now.
    assert.is(threads(a), 1);
    assert.is(threads(b), 1);
  } finally {
    clearInterval(watch);
    await Promise.all([a.close(), b.close()]);
  }
});

test('a pool whose threads hold more memory takes more slots: two of its tasks never run together in a budget of four, and light tasks fill what is left', async () => {
  const budget = new ThreadBudget(4);
  const heavy = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 10, idleTimeoutMs: 60_000, threadMemoryMb: 384 }, budget);
  const light = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 10, idleTimeoutMs: 60_000 }, budget);
  assert.is(heavy.slots, 3, '384 MB is three 128 MB shares');
  assert.is(light.slots, 1);
  let most = 0;
  let mostHeavyBusy = 0;
  const watch = setInterval(() => {
    most = Math.max(most, budget.liveSlots(), budget.running);
    mostHeavyBusy = Math.max(mostHeavyBusy, heavy.threadStates().busy);
  }, 2);
  try {
    const results = await Promise.all([heavy.run('sleepFor', sleepFor(150)), heavy.run('sleepFor', sleepFor(150)), light.run('sleepFor', sleepFor(100)), light.run('sleepFor', sleepFor(100))]);
    assert.equal(results.map((r) => (r.result as { slept: number }).slept), [150, 150, 100, 100]);
    assert.is(mostHeavyBusy, 1, 'the two heavy tasks ran one after the other');
    assert.ok(most <= 4, `never more than four slots live or held (saw ${most})`);
  } finally {
    clearInterval(watch);
    await Promise.all([heavy.close(), light.close()]);
  }
});

test('an idle pool shrinks to no thread after its idle timeout', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, idleTimeoutMs: 1000 });
  try {
    await Promise.all([pool.run('sleepFor', sleepFor(20)), pool.run('sleepFor', sleepFor(20))]);
    assert.is(threads(pool), 2);
    await until(() => threads(pool) === 0, 30_000);
    // And it starts threads again on demand.
    assert.equal(await pool.run('sleepFor', sleepFor(1)), { result: { slept: 1 } });
  } finally {
    await pool.close();
  }
});

test('replaces a thread whose heap has grown past recycleHeapMb, and the next task runs on a fresh thread', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, memoryMb: 256, recycleHeapMb: 32 });
  try {
    const small = (await pool.run('growHeap', { params: { mb: 1 }, files: [], settings: {} })).result as { threadId: number };
    assert.is(pool.recycled, 0, 'a small heap keeps its thread');
    const grown = (await pool.run('growHeap', { params: { mb: 64 }, files: [], settings: {} })).result as { threadId: number };
    assert.is(grown.threadId, small.threadId);
    await until(() => pool.recycled === 1, 30_000);
    const next = (await pool.run('growHeap', { params: { mb: 1 }, files: [], settings: {} })).result as { threadId: number };
    assert.is.not(next.threadId, small.threadId);
  } finally {
    await pool.close();
  }
});

test('a started server holds no plugin thread but the render pool that warms at boot, and publishes its thread limit', async () => {
  const dataDir = tempDir();
  const config = loadConfig({ QUIRE_DATA_DIR: dataDir, QUIRE_BOOTSTRAP_API_KEY: OWNER_KEY, QUIRE_MEMORY_BUDGET_MB: '300', QUIRE_SWEEP_INTERVAL_SECONDS: '3600' });
  const quire = await startQuire(config, { logger: createLogger('silent') });
  try {
    const registry = quire.container.resolve<PluginRegistry>(TOKENS.Registry);
    assert.is(registry.threadBudget.limit, Math.max(2, availableParallelism()));
    for (const [id, loaded] of registry.plugins) {
      if (!loaded.pool) continue;
      const held = threads(loaded.pool);
      if (loaded.pool.limits.warmAtBoot) assert.ok(held <= 1, `${id} holds ${held}`);
      else assert.is(held, 0, id);
    }
    assert.ok(registry.threadBudget.liveThreads() <= 1);
  } finally {
    await quire.stop();
    cleanup(dataDir);
  }
});

test.run();
