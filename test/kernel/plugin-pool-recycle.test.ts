// Thread recycling (recycleAfter): each thread is replaced after N tasks by a warmed-up one, one thread at a time, and no task is lost or aborted when it happens,
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

test('replaces one thread at a time, and hands it tasks only once its warmUp has finished', async () => {
  const pool = PluginPool.forPlugin(probe, { ...probe.manifest.pool, maxThreads: 2, maxQueue: 100, recycleAfter: 3 });
  try {
    const seen: Array<{ warmed: boolean; threadId: number; pausedMs: number | null; generation: number }> = [];
    // A recycle takes ~0.25 s here (a thread warmed with pauses); instant tasks run meanwhile.
    for (const giveUpAt = Date.now() + 60_000; pool.recycled < 4 && Date.now() < giveUpAt; ) {
      const generation = pool.recycled;
      const [a, b] = await Promise.all([pool.run('threadState', input(0)), pool.run('threadState', input(0))]);
      for (const r of [a, b]) seen.push({ ...(r.result as { warmed: boolean; threadId: number; pausedMs: number | null }), generation });
    }
    assert.ok(pool.recycled >= 4, `recycled ${pool.recycled} times`);
    const first = new Set(seen.filter((s) => s.generation === 0).map((s) => s.threadId));
    assert.is(first.size, 2, 'the first tasks ran on both threads');
    // Every thread a recycle started was warmed before its first task, with paced pauses (100 ms; a timer may fire 1 ms early).
    const fresh = seen.filter((s) => !first.has(s.threadId));
    assert.ok(fresh.length > 0);
    fresh.forEach((s) => assert.ok(s.warmed && s.pausedMs !== null && s.pausedMs >= 95, `thread ${s.threadId} (generation ${s.generation}): warmed ${s.warmed}, paused ${s.pausedMs} ms`));
    // The first threads warm up in their spare time, unpaced.
    seen.filter((s) => first.has(s.threadId) && s.pausedMs !== null).forEach((s) => assert.ok(s.pausedMs! < 95, `first thread ${s.threadId} paused ${s.pausedMs} ms`));
    // Each recycle replaced one thread: a generation brings at most one thread not seen before, and
    // after the first recycle the other first thread still took tasks.
    const known = new Set(first);
    for (let g = 1; g <= pool.recycled; g++) {
      const added = new Set(seen.filter((s) => s.generation === g && !known.has(s.threadId)).map((s) => s.threadId));
      assert.ok(added.size <= 1, `generation ${g} brought ${added.size} new threads`);
      added.forEach((t) => known.add(t));
    }
    assert.ok(seen.some((s) => s.generation === 1 && first.has(s.threadId)), 'a first thread still worked after the first recycle');
    assert.ok(known.size >= 5, `${known.size - 2} threads started by recycles`);
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
