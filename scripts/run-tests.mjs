// Runs every compiled test file (dist/**/test/**/*.test.js) in its own process and prints one summary line.
//
// A run leaves no process behind, whatever its files do. Each file runs as the leader of its own process group
// (`detached`), and everything it starts without detaching stays in that group: servers (test/helpers/quire-server.ts
// keeps them there on purpose), their UNO bridges, pdftotext and the like. Chromium (puppeteer) and LibreOffice
// detach into groups of their own, so a group kill cannot reach them; they are found by their environment instead:
// every file gets QUIRE_TEST_RUN naming this run and the file, children inherit it (quire-server.ts passes it to
// servers, which pass their environment on), and /proc/<pid>/environ shows it even after the process was orphaned.
// When a file's process ends (pass, fail, crash, SIGKILL, time limit), whatever is left of its group and of its
// marked processes is listed as a failure of that file and stopped: SIGTERM, a short grace, then SIGKILL. The runner
// does the same for everything still running when it is interrupted or exits, and checks for marked processes once
// more after the last file. Without /proc (not Linux) only the group kills remain.
//
// Environment: QUIRE_TEST_ROOT (the directory walked, default dist), QUIRE_TEST_CONCURRENCY (default 2),
// QUIRE_TEST_TIMEOUT_MS (one file's time limit, default 10 minutes). The argument is a substring of the paths to run,
// relative to the root (e2e/render.test).
//
// A whole run (no argument) runs the e2e files a second time against PostgreSQL: QUIRE_TEST_STORE=postgres makes
// test/helpers/quire-server.ts give each data dir a database of a throw-away cluster. Files that start PostgreSQL
// themselves, or test the embedded store's own files, say so with a line `// test-stores: once (why)` and run once.
// QUIRE_TEST_POSTGRES_PASS=0 leaves the second pass out, =1 adds it to a run with an argument.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = path.resolve(process.env.QUIRE_TEST_ROOT ?? 'dist');
const filter = process.argv[2] ?? '';
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    // Matched within the root, so that the checkout's own path (a worktree named after a test) selects nothing.
    const rel = `${path.sep}${path.relative(root, p)}`;
    if (name === 'node_modules') continue;
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js') && rel.includes(`${path.sep}test${path.sep}`) && rel.includes(filter)) files.push(p);
  }
})(root);
files.sort();

/** The runs of the files: each once as it is, and the e2e files again against PostgreSQL (see the top). */
const runs = files.map((file) => ({ file, env: {}, label: '' }));
const postgresPass = process.env.QUIRE_TEST_POSTGRES_PASS ?? (filter === '' ? '1' : '0');
if (postgresPass === '1' && process.env.QUIRE_TEST_STORE !== 'postgres') {
  for (const file of files) {
    if (!file.includes(`${path.sep}test${path.sep}e2e${path.sep}`)) continue;
    if (/^\/\/ test-stores: once\b/m.test(readFileSync(file, 'utf8'))) continue;
    runs.push({ file, env: { QUIRE_TEST_STORE: 'postgres' }, label: ' [postgresql]' });
  }
}

const concurrency = Number(process.env.QUIRE_TEST_CONCURRENCY ?? 2);
const timeLimitMs = Number(process.env.QUIRE_TEST_TIMEOUT_MS ?? 10 * 60_000);
/** How long a file's processes may take to end on their own after it ended (a server finishing its shutdown). */
const SETTLE_MS = 3_000;
/** Between SIGTERM and SIGKILL. */
const GRACE_MS = 2_000;
const MARK = 'QUIRE_TEST_RUN';
const runId = `${process.pid}.${Date.now()}`;
/** A run started by a test of this runner marks its files with its own token after the outer run's. */
const inheritedMark = process.env[MARK] ? `${process.env[MARK]} ` : '';

let passed = 0;
let failed = 0;
const failures = [];
/** Group leader pid → the file's mark, for every file process not yet cleaned up after. */
const running = new Map();

/** Live processes (zombies are dead) for which `match({ pid, pgid, marks })` holds, with their command lines. */
function processes(match) {
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' || fields[0] === 'X') continue;
      let marks = [];
      try {
        const entry = readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').find((e) => e.startsWith(`${MARK}=`));
        if (entry) marks = entry.slice(MARK.length + 1).split(' ');
      } catch {
        /* another user's process: not ours */
      }
      const proc = { pid: Number(name), pgid: Number(fields[2]), marks };
      if (!match(proc)) continue;
      proc.cmd = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ').trim() || `(${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))})`;
      found.push(proc);
    } catch {
      /* ended while being read */
    }
  }
  return found;
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

/** A file's leftovers: its process group, and whatever carries its mark (detached Chromium, LibreOffice). */
const leftOf = (pgid, mark) => processes((p) => p.pgid === pgid || p.marks.includes(mark));

/** SIGTERM to the group and to each process, SIGKILL after the grace; resolves once they are gone (or 2 s later). */
async function stop(pgid, mark) {
  for (const sig of ['SIGTERM', 'SIGKILL']) {
    signal(-pgid, sig);
    for (const p of leftOf(pgid, mark)) signal(p.pid, sig);
    const until = Date.now() + GRACE_MS;
    while (Date.now() < until && leftOf(pgid, mark).length) await sleep(50);
  }
}

/** The runner's last act, also on an uncaught error: nothing it started survives it. Synchronous (an 'exit' handler). */
function killEverything() {
  for (const pgid of running.keys()) signal(-pgid, 'SIGKILL');
  for (const p of processes((q) => q.marks.some((m) => m.startsWith(`${runId}/`)))) signal(p.pid, 'SIGKILL');
}
process.on('exit', killEverything);
const queue = runs.map((run, index) => [run, index]);
/** Set when the runner is interrupted: no file starts after it, and the signal's exit code, not the summary's, ends the run. */
let interrupted = null;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, async () => {
    interrupted = sig;
    queue.length = 0;
    process.stdout.write(`\nstopped by ${sig}: ending the ${running.size} test file(s) still running\n`);
    await Promise.all([...running].map(([pgid, mark]) => stop(pgid, mark)));
    process.exit(128 + constants.signals[sig]);
  });
}

const indent = (lines) => lines.map((l) => `     | ${l}`).join('\n');
const lastLines = (out, n) => out.replace(/\s+$/, '').split('\n').slice(-n);

async function runFile({ file, env, label }, index) {
  const started = Date.now();
  const rel = path.relative(root, file) + label;
  const mark = `${runId}/${index}`;
  const child = spawn(process.execPath, [file], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, FORCE_COLOR: '0', [MARK]: inheritedMark + mark },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  // The streams close when the last holder of the pipes ends, which may be a leftover process: awaited after stop().
  const closed = once(child, 'close').catch(() => undefined);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // SIGTERM first: quire-server.ts stops its servers on it before the file ends.
    signal(-child.pid, 'SIGTERM');
    setTimeout(() => signal(-child.pid, 'SIGKILL'), GRACE_MS).unref();
  }, timeLimitMs);
  let code = null;
  let sig = null;
  let spawnError = null;
  if (child.pid !== undefined) running.set(child.pid, mark);
  try {
    [code, sig] = await once(child, 'exit');
  } catch (err) {
    spawnError = err;
  }
  clearTimeout(timer);

  let left = [];
  if (child.pid !== undefined) {
    // What is still there once its own shutdown has had a moment (a server stopped by the file's last `after`).
    // A file that was killed stopped nothing: no point waiting.
    left = leftOf(child.pid, mark);
    const settle = sig === null ? SETTLE_MS : 0;
    for (const until = Date.now() + settle; left.length && Date.now() < until; left = leftOf(child.pid, mark)) await sleep(100);
    await stop(child.pid, mark);
    running.delete(child.pid);
  }
  await Promise.race([closed, sleep(GRACE_MS)]);
  child.stdout.destroy();
  child.stderr.destroy();

  const total = /Total:\s+(\d+)/.exec(out);
  const ok = /Passed:\s+(\d+)/.exec(out);
  const t = total ? Number(total[1]) : 0;
  const p = ok ? Number(ok[1]) : 0;
  const bad = code !== 0 || t === 0 || p < t || left.length > 0;
  passed += p;
  failed += bad ? Math.max(1, t - p) : 0;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const how = spawnError ? `could not be started: ${spawnError.message}` : sig ? `killed by ${sig}` : `exit code ${code}`;
  // Why, beyond failed tests (whose details uvu prints): under the file's line, and again above its output at the end.
  const death = timedOut ? `exceeded its time limit of ${timeLimitMs / 1000} s and was stopped (${how})` : total ? null : `died without a uvu summary (${how})`;
  const leftover = left.length ? `left ${left.length} process(es) running after it ended; stopped them` : null;
  const under = [];
  if (death) under.push(death, `last lines of its output:\n${indent(lastLines(out, 10))}`);
  if (leftover) under.push(`${leftover}:\n${indent(left.map((l) => `${l.pid} ${l.cmd}`))}`);
  const reasons = [death, leftover].filter(Boolean);
  process.stdout.write(`${bad ? 'FAIL' : 'ok  '} ${rel} (${p}/${t}, ${seconds} s)\n${under.map((r) => `     ${r}\n`).join('')}`);
  if (bad) failures.push({ rel, out, reasons });
}

await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (queue.length) await runFile(...queue.shift());
  }),
);
// Interrupted: the signal handler is stopping what still runs and ends the process with the signal's code.
if (interrupted) await new Promise(() => {});
for (const f of failures) process.stdout.write(`\n----- ${f.rel}\n${f.reasons.map((r) => `${r}\n`).join('')}${f.out}\n`);

// Every file's leftovers were stopped as it ended; anything marked now escaped that (started after the sweep).
const stray = processes((p) => p.marks.some((m) => m.startsWith(`${runId}/`)));
if (stray.length) {
  failed += 1;
  process.stdout.write(`\nprocesses started by this run were still running after its last file (one more failure); stopping them:\n${indent(stray.map((s) => `${s.pid} ${s.cmd}`))}\n`);
  for (const s of stray) signal(s.pid, 'SIGKILL');
}
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed || files.length === 0 ? 1 : 0);
