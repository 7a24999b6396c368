// Store conformance: changes made at once each see the one before (versions, balances, block changes, bootstraps), and a job finishes once.
import * as assert from 'uvu/assert';
import { area, at, block, document, job, ledgerEntry, org, preset, type OpenStore } from './store-conformance-records.js';

const N = 8;
const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

export function defineConcurrencyConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'concurrent changes', open, (it) => {
    it('ledger entries written at once each get their own balance, and the balance ends as their sum', async (store) => {
      const o = org({ balance: 100 });
      await store.createOrganization(o);
      const written = await Promise.all(range(N, 1).map((amount) => store.addLedgerEntry(ledgerEntry(o.id, -amount))));
      const total = range(N, 1).reduce((sum, n) => sum + n, 0);
      assert.is((await store.getOrganization(o.id))?.balance, 100 - total);
      // Whatever order they were applied in, each balanceAfter is the one before it plus its amount.
      const applied = [...written].sort((x, y) => y.balanceAfter - x.balanceAfter);
      let balance = 100;
      for (const e of applied) assert.is(e.balanceAfter, (balance += e.amount));
      assert.equal((await store.listLedger(o.id, N)).map((e) => e.id).sort(), written.map((e) => e.id).sort());
    });

    it('admissions made at once for one organization never pass together a check only some of them would', async (store) => {
      const o = org({ balance: 10 });
      await store.createOrganization(o);
      const outcomes = await Promise.all(range(N).map(() => store.admitJob(job(o.id, { estimatedCredits: 3 }), { cost: 3, held: 0 })));
      assert.is(outcomes.filter((a) => a.admitted).length, 3, 'three jobs of 3 credits fit in 10');
      assert.is(await store.outstandingEstimate(o.id), 9);
    });

    it('style preset updates made at once each add 1 to the version', async (store) => {
      const o = org();
      const p = preset(o.id);
      await store.createStylePreset(p);
      const updated = await Promise.all(range(N).map((i) => store.updateStylePreset(o.id, p.id, { name: `Name ${i}` }, at(i))));
      assert.equal(updated.map((u) => u?.version).sort((x, y) => x! - y!), range(N, 2));
      assert.is((await store.getStylePreset(o.id, p.id))?.version, N + 1);
    });

    it('document updates made at once with the same expectedVersion: exactly one succeeds', async (store) => {
      const o = org();
      const d = document(o.id);
      await store.createDocument(d, []);
      const outcomes = await Promise.all(range(N).map((i) => store.updateDocument(o.id, d.id, { name: `Name ${i}` }, [], at(i), 1)));
      const won = outcomes.filter((x) => typeof x === 'object');
      assert.is(won.length, 1);
      assert.is(outcomes.filter((x) => x === 'conflict').length, N - 1);
      assert.is((await store.getDocument(o.id, d.id))?.version, 2);
    });

    it('block changes made at once each see the one before, so no version number is used twice', async (store) => {
      const o = org();
      const blk = block(o.id);
      await store.createBlock(blk, []);
      await Promise.all(range(N).map((i) => store.updateBlock(o.id, blk.id, (current) => ({
        currentVersion: current.currentVersion + 1,
        versions: [...current.versions, { ...current.versions[0]!, id: `v-${i}`, version: current.currentVersion + 1 }],
      }), at(i))));
      const stored = await store.getBlock(o.id, blk.id);
      assert.is(stored?.currentVersion, N + 1);
      assert.equal(stored?.versions.map((v) => v.version), range(N + 1, 1));
    });

    it('a job finished twice at once is finished and charged once', async (store) => {
      const o = org({ balance: 10 });
      await store.createOrganization(o);
      const j = job(o.id, { status: 'PROCESSING' });
      await store.createJob(j);
      const outcomes = await Promise.allSettled(range(2).map((i) => store.finishJob(j.id, { status: 'COMPLETED', completedAt: at(i) }, ledgerEntry(o.id, -3, j.id))));
      assert.equal(outcomes.map((x) => x.status).sort(), ['fulfilled', 'rejected']);
      assert.is((await store.getOrganization(o.id))?.balance, 7);
      assert.is((await store.listLedger(o.id, 10)).length, 1);
    });

    it('bootstraps started at once take turns, so only the first finds no organization and creates one', async (store) => {
      const inside: number[] = [];
      const created = await Promise.all(range(N).map(() => store.bootstrapOnce(async () => {
        inside.push(1);
        assert.is(inside.length, 1, 'no other bootstrap runs meanwhile');
        try {
          if ((await store.listOrganizations()).length > 0) return false;
          // A pause between the check and the write: a caller not kept out would see no organization either.
          await new Promise((r) => setTimeout(r, 20));
          await store.createOrganization(org());
          return true;
        } finally {
          inside.pop();
        }
      })));
      assert.equal(created.filter(Boolean).length, 1);
      assert.is((await store.listOrganizations()).length, 1);
    });

    it('a bootstrap that throws rejects with its error and lets the next one run', async (store) => {
      const failed = await store.bootstrapOnce(async () => {
        throw new Error('disk on fire');
      }).then(() => null, (err: Error) => err.message);
      assert.is(failed, 'disk on fire');
      assert.is(await store.bootstrapOnce(async () => 'ran'), 'ran');
    });
  });
}
