// Fair share of a plugin's threads: waiting jobs are started in turn across organizations, in order within each.
import 'reflect-metadata';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../kernel/config.js';
import { startQuire, type Quire } from '../../server/composition-root.js';
import { createLogger } from '../../kernel/logger.js';
import { TOKENS } from '../../kernel/tokens.js';
import type { Clock } from '../../kernel/clock.js';
import type { Store } from '../../kernel/store/store.js';
import type { EventBus } from '../../kernel/events.js';
import { createApiKey, createOrganization } from '../../kernel/bootstrap.js';
import { createServer, type QuireServer } from '../../server/app.js';
import { ApiClient } from '../helpers/api-client.js';
import { OWNER_KEY, tempDir, cleanup } from '../helpers/quire-server.js';
import { fixturePlugin } from '../helpers/fixture-plugins.js';
import { GATE_CHANNEL } from '../fixtures/plugins/queue-gate/contract.js';
import gatePlugin from '../fixtures/plugins/queue-gate/manifest.js';

/** Threads of the queue-gate pool: that many held jobs keep every slot busy while the others queue. */
const CAPACITY = gatePlugin.manifest.pool.maxThreads;

/**
 * The test's end of the queue-gate plugin's channel (the plugin's threads run in this process). Held jobs wait
 * until `open`; one that starts listening after that is answered when it asks.
 */
class Gate {
  #open = false;
  readonly #channel = new BroadcastChannel(GATE_CHANNEL);

  constructor() {
    this.#channel.onmessage = (event) => {
      if ((event as MessageEvent).data === 'waiting' && this.#open) this.#channel.postMessage('open');
    };
  }

  open(): void {
    this.#open = true;
    this.#channel.postMessage('open');
  }

  close(): void {
    this.#channel.close();
  }
}

const dataDir = tempDir();
const configPath = path.join(dataDir, '..', `${path.basename(dataDir)}-config.json`);
let quire: Quire;
let http: QuireServer;
let orgA: ApiClient;
const started: string[] = [];

/** A client with the owner key of a new organization. */
async function newOrganization(name: string): Promise<ApiClient> {
  const store = quire.container.resolve<Store>(TOKENS.Store);
  const clock = quire.container.resolve<Clock>(TOKENS.Clock);
  const orgId = await createOrganization(store, clock, name, 0);
  const { key } = await createApiKey(store, clock, orgId, 'owner', `${name} test key`);
  return orgA.withKey(key);
}

/** Creates `count` gate jobs one after the other (each is queued before the next is sent); returns their ids. */
async function submit(api: ApiClient, count: number, hold = false): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.post('/api/v1/dev/test/gate', { hold });
    assert.is(res.status, 202, JSON.stringify(res.body));
    ids.push(res.body.id);
  }
  return ids;
}

/** Lets the held jobs go and waits for every job; returns the order in which the given jobs started. */
async function release(gate: Gate, jobs: Array<{ api: ApiClient; ids: string[] }>): Promise<string[]> {
  gate.open();
  for (const { api, ids } of jobs) {
    for (const id of ids) {
      const done = await api.waitForJob(id);
      assert.is(done.status, 'COMPLETED', done.error);
    }
  }
  const ours = new Set(jobs.flatMap((j) => j.ids));
  return started.filter((id) => ours.has(id));
}

test.before(async () => {
  writeFileSync(configPath, JSON.stringify({ externalPlugins: [fixturePlugin('queue-gate')] }));
  const config = loadConfig({ QUIRE_DATA_DIR: dataDir, QUIRE_CONFIG: configPath, QUIRE_BOOTSTRAP_API_KEY: OWNER_KEY, QUIRE_RATE_LIMIT_PER_MINUTE: '0', QUIRE_SWEEP_INTERVAL_SECONDS: '3600' });
  quire = await startQuire(config, { logger: createLogger('silent') });
  http = createServer(quire);
  await new Promise<void>((r) => http.server.listen(0, '127.0.0.1', () => r()));
  const port = (http.server.address() as AddressInfo).port;
  quire.config.publicUrl = `http://127.0.0.1:${port}`;
  orgA = new ApiClient(quire.config.publicUrl, OWNER_KEY);
  quire.container.resolve<EventBus>(TOKENS.Events).on('job.started', (job) => started.push(job.id));
});

test.after(async () => {
  await http.shutdown();
  cleanup(dataDir);
  rmSync(configPath, { force: true });
});

test("starts another organization's single job after at most one of a 30-job backlog, and each organization's jobs in order", async () => {
  const gate = new Gate();
  try {
    const orgB = await newOrganization('Org B');
    // Every thread is held, so all that follows waits in the queue until the gate opens.
    const held = await submit(orgA, CAPACITY, true);
    const bulk = await submit(orgA, 30);
    const [single] = await submit(orgB, 1);
    const order = await release(gate, [
      { api: orgA, ids: [...held, ...bulk] },
      { api: orgB, ids: [single!] },
    ]);
    assert.equal(order.slice(0, CAPACITY).sort(), [...held].sort(), 'the held jobs started first');
    const afterHeld = order.slice(CAPACITY);
    const before = afterHeld.indexOf(single!);
    // First in, first out, B's job would start after all 30 of A's; in turn, after at most one of them.
    assert.ok(before >= 0 && before <= 1, `${before} of org A's queued jobs started before org B's single job`);
    assert.equal(afterHeld.filter((id) => id !== single), bulk, "org A's queued jobs started in the order they were created");
  } finally {
    gate.close();
  }
});

test('serves three organizations round-robin, each in creation order, until only the largest backlog is left', async () => {
  const gate = new Gate();
  try {
    const [orgB, orgC] = [await newOrganization('Org B2'), await newOrganization('Org C')];
    const held = await submit(orgA, CAPACITY, true);
    const a = await submit(orgA, 4);
    const b = await submit(orgB, 3);
    const c = await submit(orgC, 1);
    const order = await release(gate, [
      { api: orgA, ids: [...held, ...a] },
      { api: orgB, ids: b },
      { api: orgC, ids: c },
    ]);
    // The organizations take turns in the order their jobs arrived; one whose queue is empty drops out.
    assert.equal(order.slice(CAPACITY), [a[0], b[0], c[0], a[1], b[1], a[2], b[2], a[3]]);
  } finally {
    gate.close();
  }
});

test.run();
