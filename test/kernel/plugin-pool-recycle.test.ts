// Thread recycling (recycleAfter): the threads are replaced every N tasks by warmed-up ones, and no task is lost or aborted when it happens,
// whether tasks come one at a time or many at once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PluginPool } from '../../kernel/plugin-pool.js';
import probe from '../fixtures/plugins/kernel-probe/manifest.js';

const input = (ms: number) => ({ params: { ms }, files: [], settings: {} });

test('runs every task to its result across many recycles, one task at a time', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 100, recycleAfter: 2 });
  try {
    // A recycle completes once the new threads have warmed up (~0.5 s here); tasks run on the old ones meanwhile.
    for (let i = 0; pool.recycled < 4 && i < 5000; i++) assert.equal(await pool.run('sleepFor', input(i % 3)), { result: { slept: i % 3 } });
    assert.ok(pool.recycled >= 4, `recycled ${pool.recycled} times`);
    // Once old threads have exited, their freed memory was handed back to the system: this machine's C
    // library is glibc, so malloc_trim ran (true or false: whether there was memory to give back).
    for (const giveUpAt = Date.now() + 30_000; pool.memoryReleases.length < 3 && Date.now() < giveUpAt; ) await new Promise((r) => setTimeout(r, 20));
    assert.ok(pool.memoryReleases.length >= 3, `${pool.memoryReleases.length} releases`);
    pool.memoryReleases.forEach((r, i) => assert.type(r, 'boolean', `release ${i}`));
  } finally {
    await pool.close();
  }
});

test('runs every task to its result across recycles while tasks are in flight', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 100, recycleAfter: 3 });
  try {
    // Two at a time, like the job runner (one task per thread).
    for (let round = 0; pool.recycled < 4 && round < 3000; round++) {
      const results = await Promise.all([pool.run('sleepFor', input(5)), pool.run('sleepFor', input(1))]);
      assert.equal(results, [{ result: { slept: 5 } }, { result: { slept: 1 } }], `round ${round}`);
    }
    // And a burst of more tasks than threads, queued in the pool.
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => pool.run('sleepFor', input(i % 4))));
    burst.forEach((r, i) => assert.equal(r, { result: { slept: i % 4 } }, `task ${i}`));
    assert.ok(pool.recycled >= 4, `recycled ${pool.recycled} times`);
  } finally {
    await pool.close();
  }
});

test('hands tasks to new threads only once their warmUp has finished', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 100, recycleAfter: 3 });
  try {
    const seen: Array<{ warmed: boolean; threadId: number; pausedMs: number | null; generation: number }> = [];
    // A recycle takes ~0.5 s here (threads warmed one after another, with pauses); instant tasks run meanwhile.
    for (const giveUpAt = Date.now() + 60_000; pool.recycled < 3 && Date.now() < giveUpAt; ) {
      const generation = pool.recycled;
      const [a, b] = await Promise.all([pool.run('threadState', input(0)), pool.run('threadState', input(0))]);
      for (const r of [a, b]) seen.push({ ...(r.result as { warmed: boolean; threadId: number; pausedMs: number | null }), generation });
    }
    assert.ok(pool.recycled >= 3, `recycled ${pool.recycled} times`);
    const replaced = seen.filter((s) => s.generation > 0);
    assert.ok(replaced.length > 0);
    replaced.forEach((s) => assert.ok(s.warmed, `thread ${s.threadId} (generation ${s.generation}) took a task before its warmUp ended`));
    // Both threads of every new generation were warmed (each its own warm task), with paced pauses (100 ms; a timer may fire 1 ms early).
    for (let g = 1; g < pool.recycled; g++) {
      const threads = new Map(replaced.filter((s) => s.generation === g).map((s) => [s.threadId, s]));
      assert.is(threads.size, 2, `generation ${g} ran on ${threads.size} threads`);
      for (const s of threads.values()) assert.ok(s.pausedMs !== null && s.pausedMs >= 95, `thread ${s.threadId} paused ${s.pausedMs} ms`);
    }
    // The first threads warm up in their spare time, unpaced.
    seen.filter((s) => s.generation === 0 && s.pausedMs !== null).forEach((s) => assert.ok(s.pausedMs! < 95, `first thread ${s.threadId} paused ${s.pausedMs} ms`));
    // The threads really were replaced: later generations ran on other threads than the first.
    const first = new Set(seen.filter((s) => s.generation === 0).map((s) => s.threadId));
    assert.ok(replaced.some((s) => !first.has(s.threadId)));
  } finally {
    await pool.close();
  }
});

test('closes cleanly while new threads are still warming up', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 100, recycleAfter: 1 });
  await Promise.all([pool.run('sleepFor', input(0)), pool.run('sleepFor', input(0))]);
  // The threshold was reached: a successor is warming (40 ms); closing now must not wait on or leak it.
  await pool.close();
  assert.equal(pool.recycled, 0);
});

test.run();
