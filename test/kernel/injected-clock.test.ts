// The kernel takes its clock and data dir by injection: expiry of files and download links without waiting.
import 'reflect-metadata';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../kernel/config.js';
import { startQuire, type Quire } from '../../server/composition-root.js';
import { createLogger } from '../../kernel/logger.js';
import { TOKENS } from '../../kernel/tokens.js';
import type { Clock } from '../../kernel/clock.js';
import { createServer, type QuireServer } from '../../server/app.js';
import { ApiClient } from '../helpers/api-client.js';
import { OWNER_KEY, tempDir, cleanup } from '../helpers/quire-server.js';
import { makePdf } from '../fixtures/pdfs.js';

class ManualClock implements Clock {
  constructor(private t: number) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

const dataDir = tempDir();
const clock = new ManualClock(Date.now());
let quire: Quire;
let http: QuireServer;
let api: ApiClient;

test.before(async () => {
  const config = loadConfig({ QUIRE_DATA_DIR: dataDir, QUIRE_BOOTSTRAP_API_KEY: OWNER_KEY, QUIRE_RATE_LIMIT_PER_MINUTE: '0', QUIRE_SWEEP_INTERVAL_SECONDS: '3600' });
  quire = await startQuire(config, { clock, logger: createLogger('silent') });
  http = createServer(quire);
  await new Promise<void>((r) => http.server.listen(0, '127.0.0.1', () => r()));
  const port = (http.server.address() as AddressInfo).port;
  quire.config.publicUrl = `http://127.0.0.1:${port}`;
  api = new ApiClient(quire.config.publicUrl, OWNER_KEY);
});

test.after(async () => {
  await http.shutdown();
  cleanup(dataDir);
});

test('resolves the injected clock and data dir from the container', () => {
  assert.is(quire.container.resolve<Clock>(TOKENS.Clock), clock);
  assert.is(quire.config.dataDir, dataDir);
});

test('refuses a download link once its 15 minutes have passed, while the API key still works', async () => {
  const id = await api.uploadId(await makePdf(2), 'a.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/split', { fileId: id, ranges: ['1'] })).body.id);
  assert.is(job.status, 'COMPLETED');
  assert.is((await api.withKey(null).download(job.downloadUrl)).status, 200);
  clock.advance(16 * 60_000);
  assert.is((await api.withKey(null).download(job.downloadUrl)).status, 401);
  const fresh = (await api.get(`/api/v1/dev/tools/jobs/${job.id}`)).body.downloadUrl;
  assert.is.not(fresh, job.downloadUrl);
  assert.is((await api.withKey(null).download(fresh)).status, 200);
});

test('expires files after 24 hours and the sweep deletes their bytes and finished jobs', async () => {
  const id = await api.uploadId(await makePdf(1), 'b.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 90 })).body.id);
  clock.advance(23 * 3600_000);
  assert.is((await api.get(`/api/v1/dev/tools/files/${id}`)).status, 200);
  clock.advance(2 * 3600_000);
  assert.is((await api.get(`/api/v1/dev/tools/files/${id}`)).status, 404);
  assert.is((await api.get(`/api/v1/dev/tools/files/${job.outputFileId}/download`)).status, 404);
  // Finished jobs are kept as long as their outputs: both are past 24 h now.
  const swept = await quire.kernel.sweep();
  assert.ok(swept.files >= 2 && swept.jobs >= 1, JSON.stringify(swept));
  assert.not.ok(existsSync(path.join(dataDir, 'blobs', id)));
  assert.not.ok(existsSync(path.join(dataDir, 'blobs', job.outputFileId)));
  assert.is((await api.get(`/api/v1/dev/tools/jobs/${job.id}`)).status, 404);
});

test.run();
