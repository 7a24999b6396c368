// Every hostile-PDF case (cases/<name>/case.ts) against every plugin action that accepts PDF, on one real server: each answers as
// its case declares, a failed job costs nothing, and the server keeps serving. Adding a case is adding a folder.
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JobError } from '../../contracts/errors.js';
import { PluginPool } from '../../kernel/plugin-pool.js';
import { useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf } from '../fixtures/pdfs.js';
import { pdfPageTexts } from '../fixtures/pdf-readers.js';
import { outcomeFor, type HostilePdfCase, type Outcome } from './hostile-case.js';
import { pdfActions, type PdfAction } from './pdf-actions.js';

/** A hostile file must be refused on inspection, well before this deadline (a declared `gap` aside). */
const DEADLINE_MS = 20_000;
/** Jobs of one case in flight at once: enough to overlap, few enough that two cores finish each well inside the deadline. */
const PARALLEL = 4;

const actions = await pdfActions();
const caseNames = readdirSync(fileURLToPath(new URL('./cases/', import.meta.url))).sort();
const cases: Array<[string, HostilePdfCase]> = await Promise.all(
  caseNames.map(async (name) => [name, ((await import(`./cases/${name}/case.js`)) as { default: HostilePdfCase }).default] as [string, HostilePdfCase]),
);

let api: ApiClient;
let goodId: string;
let goodPdf: Uint8Array;
const pools = new Map<string, PluginPool>();

const pluginIds = [...new Set(actions.map((a) => a.pluginId))];
useServer(test, (started) => ({ api } = started), { config: { plugins: Object.fromEntries(pluginIds.map((id) => [id, { pool: { timeoutMs: DEADLINE_MS } }])) } });

test.before(async () => {
  goodPdf = await makePdf(1, { label: 'Good' });
  goodId = await api.uploadId(goodPdf, 'good.pdf');
});

test.after(async () => {
  await Promise.all([...pools.values()].map((pool) => pool.close()));
});

/** What an action answered: a refused request (status and problem code), or the finished job. */
interface Answer {
  status: number;
  code?: string;
  job?: { id?: string; status: string; errorCode: string | null; error: string | null; outputFileId: string | null; creditCost?: number };
}

const show = (a: Answer) => (a.job ? `${a.job.status} ${a.job.errorCode ?? ''} ${a.job.error ?? ''}`.trim() : `HTTP ${a.status} ${a.code ?? ''}`);

/** Why `answer` is not `expected`, or null when it is. */
function mismatch(expected: Outcome, answer: Answer, action: PdfAction): string | null {
  if ('anyOf' in expected) {
    const misses = expected.anyOf.map((o) => mismatch(o, answer, action));
    return misses.every(Boolean) ? misses.join('; or ') : null;
  }
  if ('refused' in expected) return answer.status === expected.refused && answer.code === expected.code ? null : `expected HTTP ${expected.refused} ${expected.code}, got ${show(answer)}`;
  const job = answer.job;
  if (!job) return `expected a job, got ${show(answer)}`;
  if ('completed' in expected) return job.status === 'COMPLETED' ? null : `expected COMPLETED, got ${show(answer)}`;
  if (job.status !== 'FAILED') return `expected FAILED ${expected.failed}, got ${show(answer)}`;
  const code = job.errorCode ?? '';
  if (typeof expected.failed === 'string' ? code !== expected.failed : !expected.failed.test(code)) return `expected ${expected.failed}, got ${show(answer)}`;
  const pattern = expected.error?.(action.label);
  if (pattern && !pattern.test(job.error ?? '')) return `expected the message to match ${pattern}, got ${show(answer)}`;
  if (job.outputFileId !== null) return `a failed job has an output file: ${show(answer)}`;
  if (!expected.gap) {
    // Refused on inspection, with a code its plugin declares: not stopped by the deadline, not an undeclared crash.
    if (!action.declared.has(code)) return `${code} is not declared by ${action.pluginId}: ${show(answer)}`;
    if (/deadline/i.test(job.error ?? '')) return `failed at the deadline, not on inspection: ${show(answer)}`;
  }
  return null;
}

/** Posts `action` for the uploaded file `fileId` and waits for its job (bounded well past the deadline). */
async function answerOver(action: PdfAction, fileId: string): Promise<Answer> {
  const created = await api.post(action.path, action.body(fileId, goodId));
  if (created.status !== 202) return { status: created.status, code: created.body?.code };
  return { status: 202, job: await api.waitForJob(created.body.id, 3 * DEADLINE_MS) };
}

/** Runs `action`'s worker on `bytes` through the kernel's run API, as the server would after its own checks. */
async function answerThroughKernel(action: PdfAction, bytes: Uint8Array): Promise<Answer> {
  let pool = pools.get(action.pluginId);
  if (!pool) pools.set(action.pluginId, (pool = PluginPool.forPlugin(action.plugin)));
  const [file, good] = [randomUUID(), randomUUID()];
  const params = action.body(file, good);
  const field = action.action.files!.find((f) => f.accept.includes('application/pdf'))!.field;
  const entry = (fileId: string, data: Uint8Array) => ({ field, fileId, filename: `${fileId}.pdf`, mimeType: 'application/pdf', bytes: new Uint8Array(data) });
  const files = Array.isArray(params[field]) ? [entry(good, goodPdf), entry(file, bytes)] : [entry(file, bytes)];
  try {
    await pool.run(action.action.export, { params, files, settings: {} }, DEADLINE_MS);
    return { status: 202, job: { status: 'COMPLETED', errorCode: null, error: null, outputFileId: 'written' } };
  } catch (err) {
    assert.instance(err, JobError);
    const { code, message } = err as JobError;
    return { status: 202, job: { status: 'FAILED', errorCode: code, error: message, outputFileId: null } };
  }
}

/**
 * Runs `work` for every run, at most `PARALLEL` at a time and no more per plugin than its pool has threads: a run waiting
 * in one plugin's queue (lens running into its deadline) would otherwise hold a slot another plugin could use.
 */
async function inParallel<T extends { action: PdfAction }>(runs: T[], work: (run: T) => Promise<void>): Promise<void> {
  const waiting = [...runs];
  const busy = new Map<string, number>();
  const free = (r: T) => (busy.get(r.action.pluginId) ?? 0) < r.action.plugin.manifest.pool.maxThreads;
  await new Promise<void>((resolve, reject) => {
    let running = 0;
    const next = (): void => {
      if (!waiting.length && !running) return resolve();
      while (running < PARALLEL) {
        const at = waiting.findIndex(free);
        if (at < 0) return;
        const [run] = waiting.splice(at, 1) as [T];
        running++;
        busy.set(run.action.pluginId, (busy.get(run.action.pluginId) ?? 0) + 1);
        work(run).then(() => {
          running--;
          busy.set(run.action.pluginId, busy.get(run.action.pluginId)! - 1);
          next();
        }, reject);
      }
    };
    next();
  });
}

test('finds the PDF actions in the plugin manifests, each with a request body', () => {
  // The PDF tools and lens today; a new plugin whose action accepts PDF joins here (or the load above fails naming it).
  for (const name of ['pdf.merge', 'pdf.split', 'pdf.rotate', 'pdf.fill-form', 'pdf.unlock', 'pdf.watermark', 'pdf.metadata', 'lens.ocr']) {
    assert.ok(actions.some((a) => a.name === name), `${name} is not among ${actions.map((a) => a.name).join(', ')}`);
  }
  assert.ok(cases.length >= 13, `${cases.length} cases`);
});

for (const [name, hostile] of cases) {
  test(`every PDF action answers as cases/${name} declares for ${hostile.title}, charges only what completed and the server keeps serving`, async () => {
    const made = await hostile.make();
    const inputs = Array.isArray(made) ? made : [made];
    const targets = actions.filter((a) => hostile.appliesTo?.(a) ?? true);
    const ids = await Promise.all(inputs.map((bytes, i) => api.uploadId(bytes, `${name}-${i}.pdf`)));
    const problems: string[] = [];
    const failedJobs: string[] = [];
    const chargedJobs: string[] = [];
    const runs = ids.flatMap((id, i) => targets.map((action) => ({ id, i, action })));
    await inParallel(runs, async ({ id, i, action }) => {
      const answer = await answerOver(action, id);
      const miss = mismatch(outcomeFor(hostile, action), answer, action);
      if (miss) problems.push(`${action.name}${inputs.length > 1 ? ` (input ${i})` : ''}: ${miss}`);
      if (answer.job?.status === 'FAILED') failedJobs.push(answer.job.id!);
      if (answer.job?.status === 'COMPLETED' && answer.job.creditCost! > 0) chargedJobs.push(answer.job.id!);
    });
    for (const [actionName, expected] of Object.entries(hostile.kernel ?? {})) {
      const action = actions.find((a) => a.name === actionName);
      if (!action) {
        problems.push(`kernel: no PDF action ${actionName}`);
        continue;
      }
      for (const [i, bytes] of inputs.entries()) {
        const miss = mismatch(expected, await answerThroughKernel(action, bytes), action);
        if (miss) problems.push(`${actionName} through the kernel (input ${i}): ${miss}`);
      }
    }
    assert.equal(problems.sort(), [], problems.join('\n'));
    const ledger = (await api.get('/api/v1/dev/credits?limit=500')).body.entries as Array<{ kind: string; jobId: string | null }>;
    const charged = new Set(ledger.filter((e) => e.kind === 'charge').map((e) => e.jobId));
    assert.equal(failedJobs.filter((id) => charged.has(id)), [], 'failed jobs were charged');
    assert.equal(chargedJobs.filter((id) => !charged.has(id)), [], 'completed jobs were not charged');
    assert.is((await api.get('/readyz')).status, 200);
  });
}

test('every PDF action still serves an ordinary PDF after all the hostile ones', async () => {
  const id = await api.uploadId(await makePdf(2, { label: 'After' }), 'after.pdf');
  await inParallel(actions.map((action) => ({ action })), async ({ action }) => {
    const { job } = await answerOver(action, id);
    assert.ok(job, action.name);
    // Fill-form has no form to fill here: a declared refusal is an answer too; a deadline or an undeclared code is not.
    if (job.status === 'FAILED') {
      assert.ok(action.declared.has(job.errorCode!), `${action.name}: ${job.errorCode} ${job.error}`);
      return;
    }
    assert.is(job.status, 'COMPLETED', action.name);
    const download = (job as { downloadUrl?: string }).downloadUrl;
    if (!download) return;
    const bytes = (await api.download(download)).bytes;
    if (bytes.subarray(0, 5).toString() !== '%PDF-') return;
    const texts = (await pdfPageTexts(bytes)).join('\n');
    assert.match(texts, 'After page 1', action.name);
    if (action.name === 'pdf.watermark') assert.match(texts, 'HOSTILE');
  });
});

test.run();
