// The embedded store keeps each organization's newest ledger entries in memory and moves older ones to ledger-archive.jsonl.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LowdbStore } from '../../kernel/store/lowdb-store.js';
import type { LedgerEntry, Organization } from '../../kernel/model.js';
import { tempDir, cleanup } from '../helpers/quire-server.js';

const dirs: string[] = [];
const NOW = '2030-01-01T00:00:00.000Z';
/** A small number kept in memory, and a compaction every few changes, so that the archive is used at once. */
const OPTIONS = { ledgerKeptPerOrg: 3, compactAfterLines: 4 };

async function open(dataDir: string): Promise<LowdbStore> {
  const store = new LowdbStore(dataDir, OPTIONS);
  await store.init();
  return store;
}

const org = (): Organization => ({ id: randomUUID(), name: 'Acme', plan: 'Team', balance: 0, createdAt: NOW });
const grant = (orgId: string, amount: number): Omit<LedgerEntry, 'balanceAfter'> => ({ id: randomUUID(), orgId, amount, kind: 'grant', jobId: null, action: null, note: `grant ${amount}`, createdAt: NOW });
const snapshotLedger = (d: string): LedgerEntry[] => JSON.parse(readFileSync(path.join(d, 'quire.json'), 'utf8')).ledger;
const archiveLines = (d: string): LedgerEntry[] => readFileSync(path.join(d, 'ledger-archive.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerEntry);

test.after(() => {
  for (const d of dirs) cleanup(d);
});

test('older entries leave memory and the snapshot for the archive; the newest are listed, the whole ledger is exported in order', async () => {
  const d = tempDir('quire-ledger-');
  dirs.push(d);
  const [a, b] = [org(), org()];
  let store = await open(d);
  await store.createOrganization(a);
  await store.createOrganization(b);
  const written: LedgerEntry[] = [];
  for (let i = 1; i <= 10; i++) written.push(await store.addLedgerEntry(grant(a.id, i)));
  for (let i = 1; i <= 2; i++) written.push(await store.addLedgerEntry(grant(b.id, 100 * i)));
  // Two more compactions (each close snapshots): the first archives, the second leaves the archived entries out.
  await store.close();
  store = await open(d);
  await store.close();
  store = await open(d);

  const inSnapshot = snapshotLedger(d);
  assert.equal(inSnapshot.filter((e) => e.orgId === a.id).map((e) => e.amount), [8, 9, 10], "a's newest three stay in the snapshot");
  assert.equal(inSnapshot.filter((e) => e.orgId === b.id).map((e) => e.amount), [100, 200], 'b has fewer than three: all stay');
  assert.equal(archiveLines(d).map((e) => e.amount), [1, 2, 3, 4, 5, 6, 7], "a's older entries are in the archive, oldest first");

  assert.equal((await store.listLedger(a.id, 3)).map((e) => e.balanceAfter), [55, 45, 36], 'the newest, newest first');
  assert.is((await store.getOrganization(a.id))?.balance, 55, 'the balance is the sum of every entry');
  assert.equal(store.exportData().ledger.map((e) => e.id), written.map((e) => e.id), 'exported: every entry once, in the order written');

  // A crash after an append but before the snapshot that leaves those entries out writes them twice; one also leaves
  // an unterminated line. Readers keep each id once and skip the broken end.
  appendFileSync(path.join(d, 'ledger-archive.jsonl'), `${JSON.stringify(written[0])}\n{"id":"trunc`);
  assert.equal(store.exportData().ledger.map((e) => e.id), written.map((e) => e.id));

  // New entries after the restart: the archive grows, memory keeps three.
  await store.addLedgerEntry(grant(a.id, 11));
  await store.close();
  store = await open(d);
  await store.close();
  assert.equal(snapshotLedger(d).filter((e) => e.orgId === a.id).map((e) => e.amount), [9, 10, 11]);
  // The broken end was cut before the next append; a restart does not append the last batch again.
  assert.equal(archiveLines(d).map((e) => e.amount), [1, 2, 3, 4, 5, 6, 7, 1, 8]);
  store = await open(d);
  assert.equal(store.exportData().ledger.map((e) => e.amount), [...written.map((e) => e.amount), 11]);
  await store.close();
});

test.run();
