// The embedded store journals each change durably, replays it after a crash, and compacts into its snapshot safely.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LowdbStore, type LowdbStoreOptions } from '../../kernel/store/lowdb-store.js';
import type { JobRecord, LedgerEntry, Organization } from '../../kernel/model.js';
import { tempDir, cleanup } from '../helpers/quire-server.js';

const dirs: string[] = [];
/** Stores a test stops using without closing (a simulated crash) stay referenced, so none is closed by GC meanwhile. */
const opened: LowdbStore[] = [];
const NOW = '2030-01-01T00:00:00.000Z';

function dir(): string {
  const d = tempDir('quire-journal-');
  dirs.push(d);
  return d;
}

async function open(dataDir: string, options?: LowdbStoreOptions): Promise<LowdbStore> {
  const store = new LowdbStore(dataDir, options);
  await store.init();
  opened.push(store);
  return store;
}

function org(balance = 0): Organization {
  return { id: randomUUID(), name: 'Acme', plan: 'Team', balance, createdAt: NOW };
}

function job(orgId: string, over: Partial<JobRecord> = {}): JobRecord {
  return {
    id: randomUUID(), orgId, pluginId: 'render-pdf', action: 'render.pdf', status: 'PENDING', params: { doc: { title: 'T' } },
    inputFileIds: [], outputFileId: null, error: null, errorCode: null, result: null, webhook: null, estimatedCredits: 3,
    chargedCredits: 0, attempts: 0, progress: 0, createdAt: NOW, startedAt: null, completedAt: null, ...over,
  };
}

function charge(orgId: string, jobId: string | null, amount: number): Omit<LedgerEntry, 'balanceAfter'> {
  return { id: randomUUID(), orgId, amount, kind: amount < 0 ? 'charge' : 'grant', jobId, action: jobId ? 'render.pdf' : null, note: null, createdAt: NOW };
}

const journalLines = (d: string): string[] => {
  const text = existsSync(path.join(d, 'quire.journal')) ? readFileSync(path.join(d, 'quire.journal'), 'utf8') : '';
  return text.split('\n').filter(Boolean);
};
const snapshot = (d: string) => JSON.parse(readFileSync(path.join(d, 'quire.json'), 'utf8'));

test.after(() => {
  for (const d of dirs) cleanup(d);
});

test('keeps every kind of record across close and reopen, and close leaves an empty journal', async () => {
  const d = dir();
  const s = await open(d);
  const o = org();
  await s.createOrganization(o);
  await s.addLedgerEntry(charge(o.id, null, 50));
  await s.createApiKey({ id: 'k1', orgId: o.id, name: 'ci', role: 'owner', hash: 'h-key', prefix: 'ak_x', createdAt: NOW, revokedAt: null });
  await s.createIntegrationClient({ id: 'c1', name: 'mcp', secretHash: 'h-secret', createdAt: NOW, revokedAt: null });
  await s.createResourceToken({ id: 't1', orgId: o.id, clientId: 'c1', role: 'member', name: 'rt', hash: 'h-token', prefix: 'mcp_rt_x', createdAt: NOW, revokedAt: null });
  await s.revokeResourceToken(o.id, 't1', NOW);
  await s.createFile({ id: 'f1', orgId: o.id, filename: 'a.pdf', mimeType: 'application/pdf', sizeBytes: 10, kind: 'INPUT', sourceAction: null, pageCount: 1, expiresAt: NOW, createdAt: NOW });
  const j = job(o.id);
  await s.createJob(j);
  await s.close();
  assert.equal(journalLines(d), []);
  assert.ok(snapshot(d).journalSeq >= 8);

  const again = await open(d);
  assert.is((await again.getOrganization(o.id))?.balance, 50);
  assert.is((await again.findApiKeyByHash('h-key'))?.id, 'k1');
  assert.is((await again.getIntegrationClient('c1'))?.name, 'mcp');
  assert.is((await again.findResourceTokenByHash('h-token'))?.revokedAt, NOW);
  assert.is((await again.getFile(o.id, 'f1'))?.filename, 'a.pdf');
  assert.equal(await again.getJob(o.id, j.id), j);
  assert.is((await again.listLedger(o.id, 10)).length, 1);
  await again.close();
});

test('replays acknowledged changes after a crash (a second store on the dir, the first never closed)', async () => {
  const d = dir();
  const s = await open(d);
  const o = org();
  await s.createOrganization(o);
  const j = job(o.id);
  await s.createJob(j);
  await s.updateJob(j.id, { status: 'PROCESSING', attempts: 1 });
  await s.createFile({ id: 'gone', orgId: o.id, filename: 'x', mimeType: 'text/plain', sizeBytes: 1, kind: 'INPUT', sourceAction: null, pageCount: null, expiresAt: NOW, createdAt: NOW });
  await s.deleteFile('gone');
  assert.not.ok(existsSync(path.join(d, 'quire.json')), 'nothing was compacted yet');

  const crashed = await open(d);
  const back = await crashed.getJobById(j.id);
  assert.is(back?.status, 'PROCESSING');
  assert.is(back?.attempts, 1);
  assert.is(await crashed.getFile(o.id, 'gone'), undefined);
  assert.is(await crashed.outstandingEstimate(o.id), 3);
});

test('skips a torn last line, cuts it off, and appends after it cleanly', async () => {
  const d = dir();
  const s = await open(d);
  const o = org(5);
  await s.createOrganization(o);
  appendFileSync(path.join(d, 'quire.journal'), '{"seq":2,"ops":[{"op":"put","coll":"jobs","id":"x","value":{"id":"x","orgId":');

  const after = await open(d);
  assert.is((await after.getOrganization(o.id))?.balance, 5);
  assert.is(await after.getJobById('x'), undefined);
  await after.addLedgerEntry(charge(o.id, null, 10));
  assert.is(journalLines(d).length, 2, 'the torn tail is gone and the new change has a line of its own');

  const third = await open(d);
  assert.is((await third.getOrganization(o.id))?.balance, 15);
});

test('refuses a journal with a corrupt line in the middle, naming the line', async () => {
  const d = dir();
  const s = await open(d);
  const o = org();
  await s.createOrganization(o);
  await s.createJob(job(o.id));
  const lines = journalLines(d);
  writeFileSync(path.join(d, 'quire.journal'), `${lines[0]}\n{"seq":2,"ops":[garbage\n${lines[1]}\n`);
  try {
    await open(d);
    assert.unreachable('opened a corrupt journal');
  } catch (err) {
    assert.match((err as Error).message, 'Line 2 of the journal');
    assert.match((err as Error).message, 'is corrupt');
  }
});

test('refuses a journal that does not continue the snapshot (files restored from different moments)', async () => {
  const d = dir();
  const s = await open(d);
  await s.createOrganization(org());
  await s.close();
  writeFileSync(path.join(d, 'quire.journal'), '{"seq":40,"ops":[]}\n');
  try {
    await open(d);
    assert.unreachable('opened a journal with a gap');
  } catch (err) {
    assert.match((err as Error).message, 'Line 1 of the journal');
    assert.match((err as Error).message, 'different moments');
  }
});

test('replaying lines a snapshot already holds (crash between snapshot and truncate) changes nothing', async () => {
  const d = dir();
  const s = await open(d);
  const o = org();
  await s.createOrganization(o);
  await s.addLedgerEntry(charge(o.id, null, 100));
  const j = job(o.id);
  await s.createJob(j);
  await s.finishJob(j.id, { status: 'COMPLETED', completedAt: NOW, chargedCredits: 3 }, charge(o.id, j.id, -3));
  const before = readFileSync(path.join(d, 'quire.journal'));
  await s.close(); // compacts: snapshot, then empty journal
  writeFileSync(path.join(d, 'quire.journal'), before); // as if the truncate never happened

  const after = await open(d);
  assert.is((await after.getOrganization(o.id))?.balance, 97);
  assert.is((await after.listLedger(o.id, 10)).length, 2, 'no ledger entry replayed twice');
  await after.addLedgerEntry(charge(o.id, null, 1)); // appended after the stale lines

  const third = await open(d);
  assert.is((await third.getOrganization(o.id))?.balance, 98);
  assert.equal((await third.listLedger(o.id, 10)).map((e) => e.balanceAfter), [98, 97, 100]);
});

test('compacts once the journal passes its threshold, without losing or doubling changes made meanwhile', async () => {
  const d = dir();
  const s = await open(d, { compactAfterLines: 7 });
  const o = org();
  await s.createOrganization(o);
  await Promise.all(Array.from({ length: 200 }, () => s.addLedgerEntry(charge(o.id, null, 1))));
  for (let i = 0; i < 30; i++) await s.addLedgerEntry(charge(o.id, null, 1));
  await s.flush(); // a compaction may still be under way; a real crash would stop it, a second store must not race it
  assert.ok(snapshot(d).journalSeq > 0, 'a snapshot was written');
  assert.ok(journalLines(d).length < 7 + 200, 'the journal was emptied along the way');

  const crashed = await open(d);
  const ledger = await crashed.listLedger(o.id, 1000);
  assert.is(ledger.length, 230);
  assert.is(new Set(ledger.map((e) => e.id)).size, 230);
  assert.is((await crashed.getOrganization(o.id))?.balance, 230);
  assert.equal(ledger.map((e) => e.balanceAfter), Array.from({ length: 230 }, (_, i) => 230 - i));
});

test('writes a job\'s completion and its charge on one journal line, so both survive together', async () => {
  const d = dir();
  const s = await open(d);
  const o = org(20);
  await s.createOrganization(o);
  const j = job(o.id, { estimatedCredits: 7 });
  await s.createJob(j);
  await s.updateJob(j.id, { status: 'PROCESSING' });
  assert.is(await s.outstandingEstimate(o.id), 7);
  await s.finishJob(j.id, { status: 'COMPLETED', completedAt: NOW, chargedCredits: 7 }, charge(o.id, j.id, -7));
  assert.is(await s.outstandingEstimate(o.id), 0);
  const last = JSON.parse(journalLines(d).at(-1)!) as { ops: Array<{ op: string; coll: string }> };
  assert.equal(last.ops.map((op) => `${op.op} ${op.coll}`), ['patch jobs', 'patch organizations', 'append ledger']);
  try {
    await s.finishJob(j.id, { status: 'FAILED' }, null);
    assert.unreachable();
  } catch (err) {
    assert.match((err as Error).message, 'already COMPLETED');
  }

  const crashed = await open(d);
  assert.is((await crashed.getJobById(j.id))?.status, 'COMPLETED');
  assert.is((await crashed.getOrganization(o.id))?.balance, 13);
  const [entry] = await crashed.listLedger(o.id, 10);
  assert.is(entry?.jobId, j.id);
  assert.is(entry?.balanceAfter, 13);
  assert.is(await crashed.outstandingEstimate(o.id), 0);
});

test('makes 1000 concurrent changes durable, keeping their order for the same record', async () => {
  const d = dir();
  const s = await open(d);
  const o = org();
  await s.createOrganization(o);
  const jobs = Array.from({ length: 500 }, () => job(o.id));
  const target = jobs[0]!;
  await s.createJob(target);
  const writes: Array<Promise<unknown>> = [];
  for (const j of jobs.slice(1)) writes.push(s.createJob(j));
  for (let p = 1; p <= 501; p++) writes.push(s.updateJob(target.id, { progress: p % 101, attempts: p }));
  await Promise.all(writes);
  assert.ok(journalLines(d).length === 1001 + 1, 'one line per change');

  const crashed = await open(d);
  for (const j of jobs) assert.ok(await crashed.getJobById(j.id), j.id);
  const t = await crashed.getJobById(target.id);
  assert.is(t?.attempts, 501);
  assert.is(t?.progress, 501 % 101);
  assert.is(await crashed.outstandingEstimate(o.id), 500 * 3);
});

test('hands out copies: changing what goes in or comes out does not change the store', async () => {
  const d = dir();
  const s = await open(d);
  const o = org();
  await s.createOrganization(o);
  const j = job(o.id);
  await s.createJob(j);
  (j.params as { doc: { title: string } }).doc.title = 'changed by the caller';
  const got = (await s.getJobById(j.id))!;
  assert.is((got.params as { doc: { title: string } }).doc.title, 'T');
  got.status = 'FAILED';
  const patch: Partial<JobRecord> = { result: { pages: 1 } };
  const updated = await s.updateJob(j.id, patch);
  (patch.result as { pages: number }).pages = 99;
  updated.progress = 77;
  const now = (await s.getJobById(j.id))!;
  assert.is(now.status, 'PENDING');
  assert.equal(now.result, { pages: 1 });
  assert.is(now.progress, 0);
});

test('keeps the unfinished-job reserve and the token hash index right through every change', async () => {
  const d = dir();
  const s = await open(d);
  const a = org();
  const b = org();
  await s.createOrganization(a);
  await s.createOrganization(b);
  const [j1, j2, j3] = [job(a.id, { estimatedCredits: 2 }), job(a.id, { estimatedCredits: 5 }), job(b.id, { estimatedCredits: 11 })];
  for (const j of [j1!, j2!, j3!]) await s.createJob(j);
  assert.is(await s.outstandingEstimate(a.id), 7);
  assert.is(await s.outstandingEstimate(b.id), 11);
  await s.updateJob(j1!.id, { status: 'PROCESSING' });
  await s.finishJob(j2!.id, { status: 'FAILED', completedAt: '2029-01-01T00:00:00.000Z' }, null);
  assert.is(await s.outstandingEstimate(a.id), 2);
  assert.is(await s.deleteJobsFinishedBefore(NOW), 1);
  assert.is(await s.getJobById(j2!.id), undefined);
  await s.createResourceToken({ id: 'rt', orgId: a.id, clientId: 'c', role: 'member', name: 'n', hash: 'hh', prefix: 'p', createdAt: NOW, revokedAt: null });
  assert.is((await s.findResourceTokenByHash('hh'))?.id, 'rt');
  assert.is(await s.findResourceTokenByHash('nope'), undefined);
  await s.close();
  const again = await open(d);
  assert.is(await again.outstandingEstimate(a.id), 2);
  assert.is(await again.outstandingEstimate(b.id), 11);
  assert.is((await again.listJobsByStatus(['PROCESSING']))[0]?.id, j1!.id);
  assert.is((await again.findResourceTokenByHash('hh'))?.id, 'rt');
});

test('every change a process acknowledged before kill -9 is there after reopening', async () => {
  const d = dir();
  const setup = await open(d);
  const o = org(1_000_000);
  await setup.createOrganization(o);
  await setup.close();

  const writer = path.join(path.dirname(fileURLToPath(import.meta.url)), 'journal-store-writer.js');
  const child = spawn(process.execPath, [writer, d, o.id], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise((r) => child.on('close', r));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the writer did not get far enough:\n${out.slice(-500)}\n${err}`)), 30_000);
    child.stdout.on('data', (c) => {
      out += c;
      // Kill at a moment when changes are certainly in flight.
      if ((out.match(/^completed /gm)?.length ?? 0) >= 400) {
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await exited;
  const acked = out.split('\n').slice(0, -1).filter((l) => l !== 'ready').map((l) => l.split(' ') as [string, string]);
  assert.ok(acked.length >= 1200);

  const after = await open(d);
  const rank = { PENDING: 0, PROCESSING: 1, COMPLETED: 2, FAILED: 3 } as const;
  const need = { created: 0, processing: 1, completed: 2 } as const;
  for (const [step, id] of acked) {
    const j = await after.getJob(o.id, id);
    assert.ok(j, `acknowledged job ${id} is missing`);
    assert.ok(rank[j!.status] >= need[step as keyof typeof need], `job ${id} acknowledged as ${step} but is ${j!.status}`);
  }
  // A change that was durable but not yet acknowledged may be there too; a charge never without its completion.
  const charges = (await after.listLedger(o.id, 1_000_000)).filter((e) => e.kind === 'charge');
  for (const c of charges) assert.is((await after.getJobById(c.jobId!))?.status, 'COMPLETED');
  const completed = (await after.listJobsByStatus(['COMPLETED'])).length;
  assert.is(charges.length, completed);
  assert.is((await after.getOrganization(o.id))?.balance, 1_000_000 - completed);
});

test.run();
