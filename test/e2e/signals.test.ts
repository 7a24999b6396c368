// Every helper process dies with the server, whatever signal reaches whom: SIGTERM, SIGINT and SIGKILL sent to the
// server alone and to its whole process group while LibreOffice and Chromium are in the middle of jobs. Afterwards no
// process the server started is alive, no temp folder of theirs is left, and the next start is clean.
// test-stores: once (signals and helper processes; the store keeps only the jobs, as restart-recovery.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, OWNER_KEY, cleanup, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';

const DOCX_ROUTE = '/api/v1/dev/tools/docx/replace-placeholders';
const HTML_ROUTE = '/api/v1/dev/tools/convert/html-to-pdf';
/** The temp folders of the helpers: LibreOffice's profiles and work files, Chromium's profiles, the reaper's registry. */
const HELPER_DIRS = /^quire-(libreoffice|chromium|reaper)-/;

/** A loopback server that never answers: a page that loads an image from it keeps Chromium busy. */
const hanging = http.createServer(() => undefined);
let hangingPort = 0;
/** A DOCX long enough that LibreOffice takes a while to convert it to PDF. */
let bigDocx: Buffer;
const work = tempDir('quire-test-signals-');

test.before(async () => {
  hanging.listen(0, '127.0.0.1');
  await new Promise((r) => hanging.once('listening', r));
  hangingPort = (hanging.address() as { port: number }).port;
  const make = (paragraphs: number, file: string) => {
    execFileSync('/usr/bin/python3', ['-c', `
import docx, sys
d = docx.Document()
d.add_paragraph('Report for {{company}}')
for i in range(${paragraphs}):
    d.add_paragraph('Paragraph %d of a long report: the quick brown fox jumps over the lazy dog, again and again.' % i)
d.save(sys.argv[1])
`, file]);
    return readFileSync(file);
  };
  bigDocx = make(4000, path.join(work, 'big.docx'));
});

test.after(() => {
  hanging.closeAllConnections();
  hanging.close();
  cleanup(work);
});

/** Live processes whose environment carries the marker (every process the server started inherits it). */
function marked(marker: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3))) continue;
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`QUIRE_SIGNAL_TEST=${marker}`)) continue;
      found.push(`${name} ${readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ').slice(0, 120)}`);
    } catch {
      /* ended while being read */
    }
  }
  return found;
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(100);
  }
}

interface Scenario {
  dataDir: string;
  tmp: string;
  marker: string;
}

function start(s: Scenario): Promise<RunningServer> {
  return startServer({
    dataDir: s.dataDir,
    detached: true,
    env: { TMPDIR: s.tmp, QUIRE_SIGNAL_TEST: s.marker, QUIRE_ALLOW_PRIVATE_NETWORK: 'true', QUIRE_SHUTDOWN_GRACE_SECONDS: '2' },
  });
}

/** A server with LibreOffice converting a long document and Chromium waiting on a page's image, both jobs PROCESSING. */
async function busyServer(s: Scenario): Promise<{ server: RunningServer; api: ApiClient; jobs: string[] }> {
  const server = await start(s);
  const api = new ApiClient(server.baseUrl, OWNER_KEY);
  const page = `<html><body><h1>Waiting</h1><img src="http://127.0.0.1:${hangingPort}/slow.png"></body></html>`;
  const html = await api.post(HTML_ROUTE, { fileId: await api.uploadId(new TextEncoder().encode(page), 'page.html') });
  const office = await api.post(DOCX_ROUTE, { fileId: await api.uploadId(bigDocx, 'big.docx'), variables: { company: 'ACME' }, outputFormat: 'pdf' });
  const jobs = [html.body.id as string, office.body.id as string];
  await until('both jobs PROCESSING', async () => {
    const states = await Promise.all(jobs.map(async (id) => (await api.get(`/api/v1/dev/tools/jobs/${id}`)).body.status));
    return states.every((st) => st === 'PROCESSING');
  }, 60_000);
  // Chromium opens the page (it then waits on the image) and soffice has the document: both helpers are running.
  await until('Chromium and LibreOffice running', () => {
    const running = marked(s.marker);
    // soffice.bin: LibreOffice itself, past its launcher (the conversion is under way, not the start).
    return running.some((p) => p.includes('chromium')) && running.some((p) => p.includes('soffice.bin'));
  }, 30_000);
  return { server, api, jobs };
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
  for (const target of ['the server alone', 'its whole process group'] as const) {
    test(`${signal} to ${target} mid-job leaves no helper process and no temp folder behind`, async () => {
      const s: Scenario = { dataDir: tempDir(), tmp: tempDir('quire-test-tmp-'), marker: randomUUID() };
      try {
        const { server } = await busyServer(s);
        const exited = new Promise<number | null>((r) => server.proc.once('exit', (code) => r(code)));
        process.kill(target === 'the server alone' ? server.proc.pid! : -server.proc.pid!, signal);
        const code = await exited;
        if (signal !== 'SIGKILL') {
          // Drained for the grace period (2 s), then out: the jobs still running resume on the next start.
          assert.is(code, 0, server.logs().slice(-2000));
          assert.match(server.logs(), /grace period over|all jobs finished; bye/);
        }
        await until('no helper process left', () => marked(s.marker).length === 0, 5_000).catch(() => {
          assert.equal(marked(s.marker), [], 'processes the server started are still running 5 s after it ended');
        });
        await until('no helper temp folder left', () => readdirSync(s.tmp).filter((n) => HELPER_DIRS.test(n)).length === 0, 5_000).catch(() => {
          assert.equal(readdirSync(s.tmp).filter((n) => HELPER_DIRS.test(n)), [], 'temp folders left');
        });
      } finally {
        for (const line of marked(s.marker)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
        cleanup(s.dataDir);
        cleanup(s.tmp);
      }
    });
  }
}

test('the start after a SIGKILL of the whole group is clean: the interrupted jobs run again and nothing is left after a stop', async () => {
  const s: Scenario = { dataDir: tempDir(), tmp: tempDir('quire-test-tmp-'), marker: randomUUID() };
  try {
    const { server, jobs } = await busyServer(s);
    const exited = new Promise((r) => server.proc.once('exit', r));
    process.kill(-server.proc.pid!, 'SIGKILL');
    await exited;
    await until('no helper process left', () => marked(s.marker).length === 0, 5_000);
    // The page's image now answers at once (the hanging server lets go of its connections): the retried job completes.
    hanging.closeAllConnections();
    const again = await start(s);
    const api = new ApiClient(again.baseUrl, OWNER_KEY);
    const ready = await api.get('/readyz');
    assert.is(ready.status, 200, JSON.stringify(ready.body));
    for (const id of jobs) {
      const job = await api.waitForJob(id, 180_000);
      assert.ok(job.status === 'COMPLETED' || job.status === 'FAILED', `${id}: ${job.status}`);
    }
    const office = await api.get(`/api/v1/dev/tools/jobs/${jobs[1]}`);
    assert.is(office.body.status, 'COMPLETED', office.body.error);
    assert.is(await again.stop(), 0);
    await until('no helper process left after the stop', () => marked(s.marker).length === 0, 5_000);
    assert.equal(readdirSync(s.tmp).filter((n) => HELPER_DIRS.test(n)), []);
  } finally {
    for (const line of marked(s.marker)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    cleanup(s.dataDir);
    cleanup(s.tmp);
  }
});

test.run();
