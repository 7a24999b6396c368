// Two servers on one PostgreSQL database: a plugin an operator disables through one node answers 404 PLUGIN_DISABLED on
// the other within seconds (each node reads the stored switches every 2 s), and enabling it serves it on both again.
// test-stores: once (its servers use a PostgreSQL cluster of its own).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres.js';
import { assertDisabled, createOperatorKey, mergeAndCheck, MERGE, OPERATOR } from '../helpers/operator-api.js';

/** Far beyond the 2 s between two reads of the stored switches: how long a node may take to follow another. */
const FOLLOW_MS = 15_000;

let cluster: ThrowawayPostgres;
const dirs = [tempDir('quire-operator-a-'), tempDir('quire-operator-b-')];
let nodes: RunningServer[] = [];
let opsA: ApiClient;
let ownerB: ApiClient;
let operatorId: string;

test.before(async () => {
  cluster = await startPostgres();
  const env = { QUIRE_DATABASE_URL: cluster.url, QUIRE_SIGNING_SECRET: 'operator-nodes-share-this-signing-secret-0123' };
  nodes = await Promise.all(dirs.map((dataDir) => startServer({ dataDir, env })));
  // Made while both nodes run: on a database the admin CLI needs no stopped server.
  const key = await createOperatorKey(dirs[0]!, 'Night shift', env);
  operatorId = key.id;
  opsA = new ApiClient(nodes[0]!.baseUrl, key.key);
  ownerB = new ApiClient(nodes[1]!.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await cluster?.stop();
  dirs.forEach(cleanup);
});

/** Asks `ask` again until `done` says yes or FOLLOW_MS pass; the last answer. */
async function until(ask: () => Promise<ApiResponse>, done: (r: ApiResponse) => boolean): Promise<ApiResponse> {
  const deadline = Date.now() + FOLLOW_MS;
  for (;;) {
    const r = await ask();
    if (done(r) || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a plugin disabled through node A answers 404 PLUGIN_DISABLED on node B within seconds, and leaves B\'s OpenAPI document', async () => {
  assert.is((await ownerB.post(MERGE, { fileIds: [] })).status, 400, 'served on B before the switch (an empty body fails its contract)');
  const r = await opsA.post(`${OPERATOR}/plugins/pdf-merge/disable`, { reason: 'rolling upgrade' });
  assert.is(r.status, 200, r.bytes.toString());
  assertDisabled(await until(() => ownerB.post(MERGE, { fileIds: [] }), (x) => x.status === 404), 'pdf-merge');
  assert.not.ok(MERGE in (await ownerB.withKey(null).get('/api/v1/dev/openapi.json')).body.paths);
  const onB = (await ownerB.get('/api/v1/dev/plugins')).body.items.find((p: { id: string }) => p.id === 'pdf-merge');
  assert.is(onB.state, 'disabled');
  assert.match(onB.reason, 'rolling upgrade');
});

test('the audit log is one for both nodes: B lists the switch A made, with the key\'s name', async () => {
  const opsB = new ApiClient(nodes[1]!.baseUrl, opsA.key);
  const [entry] = (await opsB.get(`${OPERATOR}/audit`)).body.items;
  assert.equal([entry.action, entry.pluginId, entry.keyId, entry.keyName, entry.reason], ['plugin.disable', 'pdf-merge', operatorId, 'Night shift', 'rolling upgrade']);
});

test('enabled again through node A, pdf-merge serves on node B: a real merge there, read back with qpdf', async () => {
  assert.is((await opsA.post(`${OPERATOR}/plugins/pdf-merge/enable`, {})).status, 200);
  const served = await until(() => ownerB.post(MERGE, { fileIds: [] }), (x) => x.status !== 404);
  assert.is(served.status, 400, served.bytes.toString());
  await mergeAndCheck(ownerB);
});

test.run();
