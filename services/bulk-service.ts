// Bulk renders (DESIGN §8): one saved document, 1 to 100 variable sets, one render job per set admitted together
// (credits for all of them, or none), run through the same fair queues as single renders, and one ZIP of every
// output once the last item ends. The bulk job and its item jobs are written in one write, so a restart finds them
// together; the finishing step runs again after a restart for a bulk job whose items all ended.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { inject, injectable } from 'tsyringe';
import yazl from 'yazl';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError } from '../contracts/errors.js';
import { KeyedMutex } from '../kernel/keyed-mutex.js';
import { currentIdempotencyKey } from '../kernel/idempotency-scope.js';
import { JobService } from '../kernel/job-service.js';
import { JobNotifier } from '../kernel/job-notifier.js';
import { JobWaiter } from '../kernel/job-waiter.js';
import { RenderService, type PlannedRender } from './render-service.js';
import { DownloadLinks } from './download-links.js';
import { savedDocument } from './document-check.js';
import { MAX_BULK_DOCUMENT_BYTES, type BulkFormat, type BulkJob } from '../contracts/documents.js';
import type { QuireConfig } from '../kernel/config.js';
import type { Clock } from '../kernel/clock.js';
import type { Store } from '../kernel/store/store.js';
import type { BlobStore } from '../kernel/store/blob-store.js';
import type { EventBus } from '../kernel/events.js';
import type { Logger } from '../kernel/logger.js';
import type { BulkItemRecord, BulkJobRecord, FileRecord, JobRecord, JobStatus, WebhookConfig } from '../kernel/model.js';

/** One item of a bulk request: a variable set, or (from a file) a row that could not be read. */
export interface BulkItemInput {
  variables?: Record<string, unknown>;
  /** The file's row (POST /bulk-render/file). */
  row?: number;
  /** Why the row could not be read; the item fails without a job. */
  error?: string;
}

export interface BulkRequest {
  documentId: string;
  format?: BulkFormat;
  items: BulkItemInput[];
  webhook?: WebhookConfig;
}

const EXTENSIONS: Record<BulkFormat, string> = { PDF: 'pdf', DOCX: 'docx', ODT: 'odt' };
const FILENAME = /^[A-Za-z0-9_-]{1,100}$/;

@injectable()
export class BulkService {
  readonly #settling = new KeyedMutex();

  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Blobs) private readonly blobs: BlobStore,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(RenderService) private readonly renders: RenderService,
    @inject(JobService) private readonly jobs: JobService,
    @inject(JobNotifier) private readonly notifier: JobNotifier,
    @inject(JobWaiter) private readonly waiter: JobWaiter,
    @inject(DownloadLinks) private readonly links: DownloadLinks,
    @inject(TOKENS.Events) private readonly events: EventBus,
  ) {
    events.on('job.finished', (job) => {
      if (job.bulk) void this.#settle(job.orgId, job.bulk.id);
    });
  }

  /**
   * A bulk job: every item is checked as its own render (an item that fails the checks fails alone, with why), the
   * credits of those that can run must be available (402), and they are queued together. With none that can run,
   * the bulk job is FAILED at once.
   */
  async create(orgId: string, request: BulkRequest, endpoint: string): Promise<BulkJobRecord> {
    if (request.webhook) this.jobs.checkWebhook(request.webhook);
    const doc = await savedDocument(this.store, orgId, request.documentId);
    const docType = String((doc.config.document as { type?: string } | undefined)?.type ?? 'pdf').toUpperCase() as BulkFormat;
    const format = request.format ?? docType;
    const docBytes = Buffer.byteLength(JSON.stringify(doc.config));
    if (docBytes * request.items.length > MAX_BULK_DOCUMENT_BYTES) {
      const most = Math.max(1, Math.floor(MAX_BULK_DOCUMENT_BYTES / docBytes));
      throw new HttpError('VALIDATION_FAILED', `Document ${doc.id} is ${(docBytes / 1048576).toFixed(1)} MiB of JSON; a bulk render queues a copy per item and takes at most ${MAX_BULK_DOCUMENT_BYTES / 1048576} MiB in all, so send at most ${most} items per request.`, [
        { path: 'items', message: `at most ${most} items for a document of this size`, code: 'LIMIT_EXCEEDED' },
      ]);
    }
    const id = randomUUID();
    const names = itemFilenames(request.items, (doc.config.document as { filename?: string } | undefined)?.filename ?? 'document', EXTENSIONS[format]);
    const items: BulkItemRecord[] = [];
    const planned: Array<PlannedRender & { index: number }> = [];
    for (const [index, item] of request.items.entries()) {
      const base = { index, ...(item.row !== undefined ? { row: item.row } : {}), filename: names[index]! };
      if (item.error !== undefined || !item.variables) {
        items.push({ ...base, jobId: null, error: item.error ?? 'the item has no variables', status: 'FAILED' });
        continue;
      }
      try {
        const plan = await this.renders.planDocument(orgId, doc, { variables: item.variables, format }, false, endpoint, { id, index });
        planned.push({ ...plan, index });
        items.push({ ...base, jobId: null, error: null });
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        items.push({ ...base, jobId: null, error: itemError(item.row, err), status: 'FAILED' });
      }
    }
    const createdAt = this.clock.now().toISOString();
    const record: BulkJobRecord = {
      id,
      orgId,
      documentId: doc.id,
      format,
      status: 'PENDING',
      items,
      webhook: request.webhook ?? null,
      outputFileId: null,
      estimatedCredits: 0,
      completedItems: 0,
      failedItems: 0,
      error: null,
      createdAt,
      completedAt: null,
    };
    if (!planned.length) {
      // Written with the request's Idempotency-Key, as an admission writes it (JobService.admitMany).
      const key = currentIdempotencyKey(orgId);
      const failed: BulkJobRecord = { ...record, ...(key !== undefined ? { idempotencyKey: key } : {}), status: 'FAILED', failedItems: items.length, completedAt: createdAt, error: `No item could be rendered; the first says: ${items[0]?.error ?? 'no items'}.` };
      await (await this.store.stageBulkJob(failed, [], { id: randomUUID(), event: 'job.failed', createdAt })).durable;
      this.events.emit('webhooks.queued');
      this.#notify(failed);
      return failed;
    }
    return this.jobs.admitMany(orgId, planned, `${endpoint} (${planned.length} items)`, (jobs) => {
      planned.forEach((p, i) => (items[p.index]!.jobId = jobs[i]!.id));
      record.estimatedCredits = jobs.reduce((sum, j) => sum + j.estimatedCredits, 0);
      return record;
    });
  }

  async get(orgId: string, id: string): Promise<BulkJobRecord> {
    const bulk = /^[0-9a-f-]{36}$/.test(id) ? await this.store.getBulkJob(orgId, id) : undefined;
    if (!bulk) throw new HttpError('NOT_FOUND', `Bulk render job ${id} was not found (unknown, expired, or another organization's).`);
    return bulk;
  }

  /** The API's view: while it runs, each item's state is its render job's. */
  async view(bulk: BulkJobRecord): Promise<BulkJob> {
    const finished = bulk.status === 'COMPLETED' || bulk.status === 'FAILED';
    const items = await Promise.all(
      bulk.items.map(async (item) => {
        const job = !finished && item.jobId ? await this.store.getJobById(item.jobId) : undefined;
        const status: JobStatus = item.status ?? job?.status ?? 'PENDING';
        return { index: item.index, ...(item.row !== undefined ? { row: item.row } : {}), status, jobId: item.jobId, filename: item.filename, error: item.error ?? job?.error ?? null };
      }),
    );
    const started = items.some((i) => i.jobId !== null && i.status !== 'PENDING');
    return {
      bulkJobId: bulk.id,
      documentId: bulk.documentId,
      status: finished ? bulk.status : started ? 'PROCESSING' : 'PENDING',
      format: bulk.format,
      totalItems: bulk.items.length,
      completedItems: items.filter((i) => i.status === 'COMPLETED').length,
      failedItems: items.filter((i) => i.status === 'FAILED').length,
      creditCost: bulk.estimatedCredits,
      createdAt: bulk.createdAt,
      completedAt: bulk.completedAt,
      ...(bulk.webhook ? { webhookUrl: bulk.webhook.webhookUrl } : {}),
      downloadUrl: this.links.bulkDownloadUrl(bulk),
      filename: bulkFilename(bulk),
      error: bulk.error,
      items,
    };
  }

  /** After a restart: bulk jobs whose items all ended while the server was down (or while it finished them) finish now. */
  async recover(): Promise<number> {
    const open = await this.store.listUnfinishedBulkJobs();
    for (const bulk of open) await this.#settle(bulk.orgId, bulk.id);
    return open.length;
  }

  /** Finishes the bulk job if every item has ended: the ZIP of the outputs, the final counts, the event. */
  async #settle(orgId: string, id: string): Promise<void> {
    try {
      await this.#settling.run(id, async () => {
        const bulk = await this.store.getBulkJob(orgId, id);
        if (!bulk || bulk.status === 'COMPLETED' || bulk.status === 'FAILED') return;
        const jobs = new Map<string, JobRecord | undefined>();
        // Called as each item ends: from the last item, which the queue runs last, most calls stop at the first
        // read instead of reading every item's job each time (100 items made 10,000 reads).
        for (const item of [...bulk.items].reverse()) {
          if (!item.jobId) continue;
          const job = await this.store.getJobById(item.jobId);
          if (job && (job.status === 'PENDING' || job.status === 'PROCESSING')) return;
          jobs.set(item.jobId, job);
        }
        await this.#finish(bulk, jobs);
      });
    } catch (err) {
      this.log.error({ err, bulkJobId: id }, 'bulk render could not be finished; it is retried on the next start');
    }
  }

  async #finish(bulk: BulkJobRecord, jobs: Map<string, JobRecord | undefined>): Promise<void> {
    const items = bulk.items.map((item): BulkItemRecord => {
      if (!item.jobId) return { ...item, status: 'FAILED' };
      const job = jobs.get(item.jobId);
      if (!job) return { ...item, status: 'FAILED', error: 'its render job expired before the bulk job finished' };
      return { ...item, status: job.status, error: job.status === 'FAILED' ? job.error : null };
    });
    const done = items.filter((i) => i.status === 'COMPLETED');
    const zip = done.length ? await this.#zip(bulk, done.map((i) => ({ name: i.filename, fileId: jobs.get(i.jobId!)!.outputFileId! }))) : undefined;
    const now = this.clock.now().toISOString();
    let finished: BulkJobRecord;
    try {
      finished = await this.store.finishBulkJob(
        bulk.id,
        {
          status: done.length ? 'COMPLETED' : 'FAILED',
          items,
          completedItems: done.length,
          failedItems: items.length - done.length,
          outputFileId: zip?.id ?? null,
          completedAt: now,
          error: done.length ? null : `No item rendered; the first failure: ${items.find((i) => i.error)?.error ?? 'unknown'}`,
        },
        zip,
        // The organization's webhook endpoints get the bulk job's event (not one per item), queued in this write.
        { id: randomUUID(), event: done.length ? 'job.completed' : 'job.failed', createdAt: now },
      );
    } catch (err) {
      // Nodes sharing a database may both see the last item end: the one that wrote second keeps nothing of its own.
      const stored = await this.store.getBulkJob(bulk.orgId, bulk.id).catch(() => undefined);
      const settledElsewhere = (stored?.status === 'COMPLETED' || stored?.status === 'FAILED') && (stored.outputFileId !== (zip?.id ?? null) || stored.completedAt !== now);
      if (!settledElsewhere) throw err;
      if (zip) await this.blobs.delete(zip.id).catch(() => undefined);
      return;
    }
    this.log.info({ bulkJobId: bulk.id, completed: finished.completedItems, failed: finished.failedItems }, 'bulk render finished');
    this.waiter.wake(bulk.id);
    this.events.emit('webhooks.queued');
    this.#notify(finished);
  }

  /** One stored ZIP of the outputs, streamed from their files (no output is held in memory whole). */
  async #zip(bulk: BulkJobRecord, entries: Array<{ name: string; fileId: string }>): Promise<FileRecord> {
    const zip = new yazl.ZipFile();
    const mtime = this.clock.now();
    // Each output is opened when the ZIP reaches it: one open file at a time.
    for (const e of entries) {
      zip.addReadStreamLazy(e.name, { compress: false, mtime }, (done) => {
        this.blobs.openRead(e.fileId).then((stream) => done(null, stream), (err: Error) => done(err, undefined as never));
      });
    }
    zip.end();
    const temp = this.blobs.tempPath();
    await pipeline(zip.outputStream, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
    const { size } = await stat(temp);
    const id = randomUUID();
    await this.blobs.adopt(temp, id);
    const now = this.clock.now();
    return {
      id,
      orgId: bulk.orgId,
      filename: bulkFilename(bulk),
      mimeType: 'application/zip',
      sizeBytes: size,
      kind: 'OUTPUT',
      sourceAction: 'bulk-render',
      pageCount: null,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.config.fileTtlSeconds * 1000).toISOString(),
    };
  }

  #notify(bulk: BulkJobRecord): void {
    if (!bulk.webhook) return;
    this.notifier.send(bulk.webhook, bulkEvent(bulk, this.links.bulkDownloadUrl(bulk)), bulk.id);
  }
}

/** Spec "Events": job.completed, jobType bulk-render, with the counts in `metadata` (job.failed when no item rendered). */
export function bulkEvent(bulk: BulkJobRecord, downloadUrl: string | null): Record<string, unknown> {
  const metadata = { totalItems: bulk.items.length, completedItems: bulk.completedItems, failedItems: bulk.failedItems };
  return bulk.status === 'COMPLETED'
    ? { event: 'job.completed', jobType: 'bulk-render', jobId: bulk.id, status: bulk.status, metadata, ...(downloadUrl ? { downloadUrl } : {}), completedAt: bulk.completedAt }
    : { event: 'job.failed', jobType: 'bulk-render', jobId: bulk.id, status: bulk.status, metadata, error: bulk.error, completedAt: bulk.completedAt };
}

export function bulkFilename(bulk: Pick<BulkJobRecord, 'id'>): string {
  return `bulk-${bulk.id.slice(0, 8)}.zip`;
}

/**
 * The name of each item's output in the ZIP: its `filename` variable when that is a valid file name (letters,
 * digits, `_` and `-`, as `document.filename`), else the document's filename and the item's number from 1
 * (`invoice-001.pdf`); a name taken twice gets `-2`, `-3`, ....
 */
function itemFilenames(items: BulkItemInput[], base: string, ext: string): string[] {
  const width = Math.max(3, String(items.length).length);
  const taken = new Set<string>();
  return items.map((item, i) => {
    const own = item.variables?.filename;
    const stem = typeof own === 'string' && FILENAME.test(own) ? own : `${base}-${String(i + 1).padStart(width, '0')}`;
    let name = `${stem}.${ext}`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem}-${n}.${ext}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/**
 * A row of a variables file as document variables. A file's row is typed and nested (docs/bulk-file-format.md: dotted
 * column names nest, XLSX cells keep their type), but a document variable is text, a number, or an object with a
 * `type` (image, list, table): so an object without `type` and a list give each leaf under its dotted name
 * (`customer.name`, `items.0.name`, as `{{customer.name}}` names it), a boolean gives its text, and null is left out.
 */
export function rowVariables(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (name: string, value: unknown): void => {
    if (value === null || value === undefined) return;
    if (typeof value === 'boolean') out[name] = String(value);
    else if (Array.isArray(value)) value.forEach((v, i) => put(`${name}.${i}`, v));
    else if (typeof value === 'object' && !('type' in value)) for (const [k, v] of Object.entries(value)) put(`${name}.${k}`, v);
    else out[name] = value;
  };
  for (const [name, value] of Object.entries(values)) put(name, value);
  return out;
}

function itemError(row: number | undefined, err: HttpError): string {
  const where = row !== undefined ? `row ${row}: ` : '';
  const paths = err.errors?.slice(0, 3).map((e) => `${e.path} ${e.message}`).join('; ');
  return `${where}${paths || err.message}`;
}
