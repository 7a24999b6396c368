// Runs every compiled test file (dist/**/test/**/*.test.js) in its own process and prints one summary line.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve('dist');
const filter = process.argv[2] ?? '';
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js') && p.includes(`${path.sep}test${path.sep}`) && p.includes(filter)) files.push(p);
  }
})(root);
files.sort();

const concurrency = Number(process.env.QUIRE_TEST_CONCURRENCY ?? 2);
let passed = 0;
let failed = 0;
const failures = [];

async function runFile(file) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const total = /Total:\s+(\d+)/.exec(out);
      const ok = /Passed:\s+(\d+)/.exec(out);
      const t = total ? Number(total[1]) : 0;
      const p = ok ? Number(ok[1]) : 0;
      const rel = path.relative(root, file);
      const bad = code !== 0 || t === 0 || p < t;
      passed += p;
      failed += bad ? Math.max(1, t - p) : 0;
      process.stdout.write(`${bad ? 'FAIL' : 'ok  '} ${rel} (${p}/${t}, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      if (bad) failures.push({ rel, out });
      resolve();
    });
  });
}

const queue = [...files];
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (queue.length) await runFile(queue.shift());
}));
for (const f of failures) process.stdout.write(`\n----- ${f.rel}\n${f.out}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed || files.length === 0 ? 1 : 0);
