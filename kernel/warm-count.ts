// The count of a recycle's new threads that are warm, shared (a SharedArrayBuffer) by the pool and those threads.
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a wait on the count lasts at most: a thread that died while warming never counts itself. */
const WARM_WAIT_MS = 30_000;

/** Resolves once `count` reaches `n`, `wanted()` turns false or WARM_WAIT_MS have passed, looking every `everyMs`. */
export async function untilWarm(count: Int32Array, n: number, everyMs: number, wanted: () => boolean = () => true): Promise<void> {
  for (const giveUpAt = Date.now() + WARM_WAIT_MS; wanted() && Atomics.load(count, 0) < n && Date.now() < giveUpAt; ) await sleep(everyMs);
}
