// The test runner (scripts/run-tests.mjs) on test files that die: each is reported with why, and nothing they started survives.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, cleanup, tempDir } from '../helpers/quire-server.js';

// Compiled as plain .js, so the normal run does not take them for test files; linked in as <name>.test.js below.
const FIXTURES = path.join(ROOT, 'dist/test/harness/fixtures');

interface Run {
  code: number | null;
  out: string;
  /** label → pid, as the fixtures wrote them down. */
  pids: Map<string, number>;
}

/** A folder laid out as the runner walks it (<root>/test/<name>.test.js), its files links to the named fixtures. */
function fixtureRoot(names: string[]): string {
  const dir = tempDir('quire-harness-');
  mkdirSync(path.join(dir, 'test'));
  // A link keeps the fixture's real path for module resolution: its imports of ../../helpers work as compiled.
  for (const name of names) symlinkSync(path.join(FIXTURES, `${name}.js`), path.join(dir, 'test', `${name}.test.js`));
  return dir;
}

function readPids(file: string): Map<string, number> {
  const pids = new Map<string, number>();
  if (!existsSync(file)) return pids;
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [label, pid] = line.split(' ');
    pids.set(label, Number(pid));
  }
  return pids;
}

/** Runs the runner over the fixtures; `during` is called with the runner's process while it runs. */
async function runRunner(names: string[], timeLimitMs: number, during?: (runner: ReturnType<typeof spawn>, pidFile: string) => Promise<void>): Promise<Run> {
  const dir = fixtureRoot(names);
  const pidFile = path.join(dir, 'pids');
  try {
    const runner = spawn(process.execPath, [path.join(ROOT, 'scripts/run-tests.mjs')], {
      cwd: ROOT,
      env: { ...process.env, QUIRE_TEST_ROOT: dir, QUIRE_TEST_TIMEOUT_MS: String(timeLimitMs), QUIRE_HARNESS_PIDS: pidFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    runner.stdout!.on('data', (d) => (out += d));
    runner.stderr!.on('data', (d) => (out += d));
    const exited = once(runner, 'close');
    if (during) await during(runner, pidFile);
    const [code] = (await exited) as [number | null];
    return { code, out, pids: readPids(pidFile) };
  } finally {
    cleanup(dir);
  }
}

/** A file's line in the runner's output and the indented lines under it. */
function report(out: string, name: string): string {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => /^(ok {2}|FAIL) /.test(l) && l.includes(`test/${name}.test.js (`));
  assert.ok(start >= 0, `no line for ${name} in:\n${out}`);
  let end = start + 1;
  while (end < lines.length && lines[end].startsWith('     ')) end++;
  return lines.slice(start, end).join('\n');
}

/** Whether the process runs (a zombie has ended; it only waits for its parent). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

async function assertEnded(pids: Map<string, number>, labels: string[]): Promise<void> {
  for (const label of labels) {
    const pid = pids.get(label);
    assert.ok(pid, `${label} wrote no pid`);
    // An orphan killed a moment ago is gone once init has collected it.
    for (let i = 0; i < 40 && alive(pid!); i++) await sleep(50);
    assert.not.ok(alive(pid!), `${label} (pid ${pid}) is still running`);
  }
}

test('reports each file that exits early, is killed, throws or leaves a process, and stops all they started', async () => {
  const run = await runRunner(['passes', 'exits-without-summary', 'killed', 'throws', 'leaves-a-process'], 120_000);
  assert.is(run.code, 1, run.out);

  assert.match(report(run.out, 'passes'), /^ok {3}test\/passes\.test\.js \(2\/2, [\d.]+ s\)$/);

  const exits = report(run.out, 'exits-without-summary');
  assert.match(exits, /^FAIL test\/exits-without-summary\.test\.js \(0\/0, [\d.]+ s\)\n/);
  assert.match(exits, 'died without a uvu summary (exit code 3)');
  assert.match(exits, '| exits-without-summary: leaving now, before any test ran');
  // One in its group, one detached as Chromium is: both found, listed and stopped.
  assert.match(exits, 'left 2 process(es) running after it ended; stopped them:');
  assert.match(exits, 'quire-harness-sleeper:exits-in-group');
  assert.match(exits, 'quire-harness-sleeper:exits-detached');

  const killed = report(run.out, 'killed');
  assert.match(killed, 'died without a uvu summary (killed by SIGKILL)');
  assert.match(killed, '| killed: about to receive SIGKILL');
  assert.match(killed, 'quire-harness-sleeper:killed-child');

  const throws = report(run.out, 'throws');
  assert.match(throws, 'died without a uvu summary (exit code 1)');
  assert.match(throws, 'Error: thrown on purpose while a server runs');
  // The server was ended by quire-server.ts's reaper as the file exited, before the runner looked.
  assert.not.match(throws, 'left ');

  const leaves = report(run.out, 'leaves-a-process');
  assert.match(leaves, /^FAIL test\/leaves-a-process\.test\.js \(1\/1, [\d.]+ s\)\n/);
  assert.match(leaves, 'left 1 process(es) running after it ended; stopped them:');
  assert.match(leaves, 'quire-harness-sleeper:left-behind');

  assert.match(run.out, '\n----- test/killed.test.js\ndied without a uvu summary (killed by SIGKILL)\n');
  assert.ok(run.out.endsWith('\n3 passed, 4 failed\n'), run.out);
  await assertEnded(run.pids, ['exits-in-group', 'exits-detached', 'killed-child', 'throws-server', 'left-behind']);
});

test('says that a file exceeded its time limit, with its last output, and ends it and its child', async () => {
  const run = await runRunner(['hangs'], 3_000);
  assert.is(run.code, 1, run.out);
  const hangs = report(run.out, 'hangs');
  assert.match(hangs, /^FAIL test\/hangs\.test\.js \(0\/0, [\d.]+ s\)\n/);
  assert.match(hangs, 'exceeded its time limit of 3 s and was stopped (killed by SIGTERM)');
  assert.match(hangs, '| • •');
  // The SIGTERM went to the file's whole process group: its child ended with it, and nothing was left to list.
  assert.not.match(hangs, 'left ');
  assert.ok(run.out.endsWith('\n0 passed, 1 failed\n'), run.out);
  await assertEnded(run.pids, ['hangs-file', 'hangs-child']);
});

test('ends the running files and what they started when the runner itself gets SIGTERM', async () => {
  const run = await runRunner(['hangs'], 120_000, async (runner, pidFile) => {
    for (let i = 0; i < 600 && !readPids(pidFile).has('hangs-child'); i++) await sleep(50);
    runner.kill('SIGTERM');
  });
  assert.is(run.code, 143, run.out);
  assert.match(run.out, 'stopped by SIGTERM: ending the 1 test file(s) still running');
  await assertEnded(run.pids, ['hangs-file', 'hangs-child']);
});

test.run();
