// Child process for the kill -9 test: runs job lifecycles on a LowdbStore and prints each step once it is durable.
import { randomUUID } from 'node:crypto';
import { LowdbStore } from '../../kernel/store/lowdb-store.js';
import type { JobRecord } from '../../kernel/model.js';

const [dataDir, orgId] = process.argv.slice(2) as [string, string];
const store = new LowdbStore(dataDir, { compactAfterLines: 150 });
await store.init();

function newJob(): JobRecord {
  return {
    id: randomUUID(), orgId, pluginId: 'render-pdf', action: 'render.pdf', status: 'PENDING', params: { title: 'x'.repeat(200) },
    inputFileIds: [], outputFileId: null, error: null, errorCode: null, result: null, webhook: null, estimatedCredits: 1,
    chargedCredits: 0, attempts: 0, progress: 0, createdAt: new Date().toISOString(), startedAt: null, completedAt: null,
  };
}

async function lifecycle(): Promise<void> {
  const job = newJob();
  await store.createJob(job);
  process.stdout.write(`created ${job.id}\n`);
  await store.updateJob(job.id, { status: 'PROCESSING', progress: 10, attempts: 1 });
  process.stdout.write(`processing ${job.id}\n`);
  const now = new Date().toISOString();
  await store.finishJob(job.id, { status: 'COMPLETED', progress: 100, completedAt: now, chargedCredits: 1 }, { id: randomUUID(), orgId, amount: -1, kind: 'charge', jobId: job.id, action: job.action, note: null, createdAt: now });
  process.stdout.write(`completed ${job.id}\n`);
}

process.stdout.write('ready\n');
// Eight loops at once, so that changes share writes; the parent kills the process at some point.
await Promise.all(Array.from({ length: 8 }, async () => {
  for (;;) await lifecycle();
}));
