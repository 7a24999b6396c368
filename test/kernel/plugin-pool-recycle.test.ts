// Thread recycling (recycleAfter): the threads are replaced every N tasks, and no task is lost or aborted when it happens,
// whether tasks come one at a time or many at once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PluginPool } from '../../kernel/plugin-pool.js';
import probe from '../fixtures/plugins/kernel-probe/manifest.js';

const input = (ms: number) => ({ params: { ms }, files: [], settings: {} });

test('runs every task to its result across many recycles, one task at a time', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 100, recycleAfter: 2 });
  try {
    for (let i = 0; i < 20; i++) assert.equal(await pool.run('sleepFor', input(i % 3)), { result: { slept: i % 3 } });
    assert.ok(pool.recycled >= 4, `recycled ${pool.recycled} times`);
  } finally {
    await pool.close();
  }
});

test('runs every task to its result across recycles while tasks are in flight', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 100, recycleAfter: 3 });
  try {
    // Two at a time, like the job runner (one task per thread).
    for (let round = 0; round < 12; round++) {
      const results = await Promise.all([pool.run('sleepFor', input(5)), pool.run('sleepFor', input(1))]);
      assert.equal(results, [{ result: { slept: 5 } }, { result: { slept: 1 } }], `round ${round}`);
    }
    // And a burst of more tasks than threads, queued in the pool.
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => pool.run('sleepFor', input(i % 4))));
    burst.forEach((r, i) => assert.equal(r, { result: { slept: i % 4 } }, `task ${i}`));
    assert.ok(pool.recycled >= 8, `recycled ${pool.recycled} times`);
  } finally {
    await pool.close();
  }
});

test.run();
