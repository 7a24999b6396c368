// runBetweenTasks: whether a pool's idle thread keeps running what its worker started (timers, I/O) until the next task.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { PluginPool } from '../../kernel/plugin-pool.js';
import plugin from '../fixtures/plugins/background-work/manifest.js';

const input = { params: {}, files: [], settings: {} };

/** Ticks of the worker's 10 ms timer counted while the thread waited 600 ms between two tasks. */
async function ticksWhileIdle(runBetweenTasks: boolean): Promise<number> {
  const pool = PluginPool.forPlugin(plugin, { ...plugin.manifest.pool, runBetweenTasks });
  try {
    const first = (await pool.run('ticks', input)).result as { ticks: number };
    await sleep(600);
    const second = (await pool.run('ticks', input)).result as { ticks: number };
    return second.ticks - first.ticks;
  } finally {
    await pool.close();
  }
}

test('by default an idle thread is parked: a timer its worker started does not fire until the next task', async () => {
  const ticks = await ticksWhileIdle(false);
  assert.ok(ticks <= 2, `${ticks} ticks while parked`);
});

test('with runBetweenTasks the idle thread keeps its event loop running: the timer fires while it waits', async () => {
  const ticks = await ticksWhileIdle(true);
  // 60 at 10 ms; a loaded machine delays timers, but not to a handful.
  assert.ok(ticks >= 10, `${ticks} ticks while waiting`);
});

test.run();
