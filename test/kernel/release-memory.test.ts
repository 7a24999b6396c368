// releaseFreedMemory under each allocator `npm start` can give the server (scripts/with-allocator.sh): the memory
// freed by native code goes back to the system, as the process's resident size (from /proc) shows.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeWithAllocator } from '../../kernel/allocator.js';

const RELEASE = fileURLToPath(new URL('../../kernel/release-memory.js', import.meta.url));
const ALLOCATOR = fileURLToPath(new URL('../../kernel/allocator.js', import.meta.url));

/** Fills 200 MB of native (malloc'd) buffers, frees them, then releases; reports the RSS before and after the release. */
const CHILD = `
const { releaseFreedMemory } = await import(${JSON.stringify(RELEASE)});
const { allocatorInUse } = await import(${JSON.stringify(ALLOCATOR)});
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
let keep = [];
for (let i = 0; i < 3200; i++) keep.push(Buffer.allocUnsafeSlow(64 * 1024).fill(i));
keep = null;
for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
const before = rss();
const released = await releaseFreedMemory();
console.log(JSON.stringify({ allocator: allocatorInUse(), released, before, after: rss() }));
`;

async function runChild(allocator: 'jemalloc' | 'system'): Promise<{ allocator: string; released: boolean | null; before: number; after: number }> {
  const [cmd, args] = nodeWithAllocator(['--expose-gc', '--input-type=commonjs', '-e', `(async () => {${CHILD}})()`]);
  const { stdout } = await promisify(execFile)(cmd, args, {
    env: { PATH: process.env.PATH, QUIRE_ALLOCATOR: allocator },
  });
  return JSON.parse(stdout);
}

for (const allocator of ['jemalloc', 'system'] as const) {
  test(`gives freed native memory back to the system (${allocator})`, async () => {
    const r = await runChild(allocator);
    assert.is(r.allocator, allocator);
    assert.is(r.released, true);
    assert.ok(r.before - r.after > 50, `RSS ${r.before.toFixed(0)} MB before the release, ${r.after.toFixed(0)} MB after`);
  });
}

test.run();
