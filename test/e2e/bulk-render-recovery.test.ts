// A bulk render survives kill -9: restarted on the same data dir, it finishes every item, charges each once and
// zips them all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, OWNER_KEY, startServer, tempDir } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { BULK, downloadBulkZip, ledger, pdfText, saveLetter, waitForBulk } from '../helpers/bulk-jobs.js';

const ITEMS = 40;
/** Some pages of text per item, so that the bulk job is still running when its first item has completed. */
const CONTENT = `Dear {{name}},\n\n${Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} of a long letter, written to fill a few pages with text to lay out.`).join('\n\n')}\n`;

test('finishes a bulk render after kill -9 mid-way, charging every item once and zipping all of them', async () => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir });
  try {
    let api = new ApiClient(server.baseUrl, OWNER_KEY);
    const letter = await saveLetter(api, CONTENT);
    const before = await ledger(api);
    const created = await api.post(BULK, { documentId: letter, items: Array.from({ length: ITEMS }, (_, i) => ({ name: `Person ${i + 1}` })) });
    assert.is(created.status, 202, created.bytes.toString());
    const id = created.body.bulkJobId;
    // Killed as soon as one item has completed, while the others are queued or running.
    let completed = 0;
    const end = Date.now() + 60_000;
    while (completed === 0) {
      if (Date.now() > end) throw new Error('no item completed in time');
      completed = (await api.get(`${BULK}/${id}`)).body.completedItems;
    }
    await server.kill();
    assert.ok(completed < ITEMS, `the bulk job had ${completed} of ${ITEMS} items completed when killed`);

    server = await startServer({ dataDir });
    api = new ApiClient(server.baseUrl, OWNER_KEY);
    assert.match(server.logs(), 'recovered unfinished jobs');
    const bulk = await waitForBulk(api, id, 120_000);
    assert.is(bulk.status, 'COMPLETED', bulk.error);
    assert.is(bulk.completedItems, ITEMS);
    assert.is(bulk.failedItems, 0);
    const jobIds: string[] = bulk.items.map((i: { jobId: string }) => i.jobId);
    assert.is(new Set(jobIds).size, ITEMS);

    const after = await ledger(api);
    const added = after.charges.filter((c) => !before.charges.some((b) => b.jobId === c.jobId));
    assert.is(added.length, ITEMS, 'one charge per item, none twice');
    assert.equal(added.map((c) => c.jobId).sort(), [...jobIds].sort());
    assert.is(after.balance, before.balance - ITEMS);

    const zip = await downloadBulkZip(api, bulk);
    assert.equal([...zip.keys()].sort(), Array.from({ length: ITEMS }, (_, i) => `letter-${String(i + 1).padStart(3, '0')}.pdf`));
    for (const i of [0, ITEMS - 1]) assert.match(await pdfText(zip.get(bulk.items[i].filename)!), `Dear Person ${i + 1},`);
  } finally {
    await server.stop();
    cleanup(dataDir);
  }
});

test.run();
