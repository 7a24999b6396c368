// Benchmarks run what `npm start` runs: node through scripts/with-allocator.sh (jemalloc when installed).
import { spawn } from 'node:child_process';
import { nodeWithAllocator } from '../kernel/allocator.js';

/**
 * Runs this benchmark script again under scripts/with-allocator.sh, so that its in-process figures (and the
 * child processes that inherit its environment) use the allocator the server uses; resolves false in that
 * second run, which does the work. QUIRE_ALLOCATOR=system measures with the C library's malloc instead.
 */
export async function rerunWithAllocator(script: string): Promise<boolean> {
  if (process.env.QUIRE_BENCH_ALLOCATOR === '1') return false;
  const [cmd, args] = nodeWithAllocator([script, ...process.argv.slice(2)]);
  const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, QUIRE_BENCH_ALLOCATOR: '1' } });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  process.exitCode = code ?? 1;
  return true;
}
