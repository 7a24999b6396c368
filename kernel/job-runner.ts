// Runs persisted jobs on their plugin's pool: PENDING → PROCESSING → COMPLETED | FAILED, charging once.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from './tokens.js';
import { JobError, KERNEL_JOB_ERRORS } from '../contracts/errors.js';
import { compileSchema, formatAjvErrors } from '../contracts/schema.js';
import type { QuireConfig } from './config.js';
import type { Clock } from './clock.js';
import type { Store } from './store/store.js';
import type { BlobStore } from './store/blob-store.js';
import type { PluginRegistry, RegisteredAction } from './plugin-registry.js';
import type { EventBus } from './events.js';
import type { Logger } from './logger.js';
import type { FileRecord, JobRecord, WebhookEvent } from './model.js';
import type { WorkerFile, WorkerLogEntry } from '../sdk/plugin-api.js';
import type { FileInspector } from './file-inspector.js';
import type { ValidateFunction } from 'ajv';
import type { UrlPolicy } from '../sdk/url-policy.js';
import { FairQueue } from './fair-queue.js';
import { loadRenderImage, type RenderImageSources } from './render-images.js';
import type { JobQueue } from './job-queue.js';
import { Metrics } from './metrics.js';

/** Remote images of a render: fetched through the URL policy with these bounds. */
const REMOTE_IMAGE_TIMEOUT_MS = 15_000;

/**
 * The input files of a job, in the order the worker receives them: `field` is the declared field, or for a
 * path with `*` (`variables.*.src`) the concrete path of each id found (`variables.logo.src`).
 */
export function inputFileRefs(action: RegisteredAction['action'], params: Record<string, unknown>): Array<{ field: string; fileId: string }> {
  const refs: Array<{ field: string; fileId: string }> = [];
  for (const f of action.files ?? []) {
    if (!f.field.includes('.')) {
      const value = params[f.field];
      const ids = Array.isArray(value) ? value : value === undefined ? [] : [value];
      for (const id of ids) refs.push({ field: f.field, fileId: String(id) });
      continue;
    }
    for (const found of walkPath(params, f.field.split('.'), [])) {
      if (typeof found.value === 'string') refs.push({ field: found.path.join('.'), fileId: found.value });
    }
  }
  return refs;
}

/** The values at a path whose `*` segments take every key of an object or index of an array. */
function walkPath(value: unknown, segments: string[], at: string[]): Array<{ path: string[]; value: unknown }> {
  if (segments.length === 0) return [{ path: at, value }];
  if (!value || typeof value !== 'object') return [];
  const [head, ...rest] = segments as [string, ...string[]];
  const obj = value as Record<string, unknown>;
  if (head !== '*') return Object.hasOwn(obj, head) ? walkPath(obj[head], rest, [...at, head]) : [];
  return Object.keys(obj).flatMap((k) => walkPath(obj[k], rest, [...at, k]));
}

/** Jobs a plugin may have storing their output per thread, beyond the ones running: bounds the outputs held in memory when the disk is slower than the threads. */
const STORING_PER_THREAD = 4;

/** Most lines one job's worker may add to the log, and the longest message or field text kept. */
const WORKER_LOG_LINES = 20;
const WORKER_LOG_TEXT = 1000;

/** Writes the lines a worker returned (`WorkerOutput.log`) under the job's logger; malformed lines are skipped. */
function writeWorkerLog(log: Logger, entries: WorkerLogEntry[] | undefined): void {
  if (!Array.isArray(entries)) return;
  for (const e of entries.slice(0, WORKER_LOG_LINES)) {
    if (!e || (e.level !== 'info' && e.level !== 'warn') || typeof e.msg !== 'string') continue;
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e.fields ?? {})) {
      if (typeof v === 'string') fields[k] = v.slice(0, WORKER_LOG_TEXT);
      else if (typeof v === 'number' || typeof v === 'boolean' || v === null) fields[k] = v;
    }
    log[e.level]({ worker: fields }, e.msg.slice(0, WORKER_LOG_TEXT));
  }
}

@injectable()
export class JobRunner {
  /** Waiting jobs per plugin, served in turn across organizations (fair-queue.ts). */
  readonly #queues = new Map<string, FairQueue>();
  /** The ids in #queues: a job announced again (by another node's notice, or a periodic check) waits once. */
  readonly #queued = new Set<string>();
  /** The ids being run here: the notice of a job this node admitted and already started is not queued again. */
  readonly #started = new Set<string>();
  /** Jobs of a plugin on a thread (at most the pool's capacity) ... */
  readonly #inflight = new Map<string, number>();
  /** ... and those plus the ones whose output is still being stored. */
  readonly #open = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  readonly #resultValidators = new Map<string, ValidateFunction>();
  #accepting = true;
  /** Set when shutdown gave up waiting: jobs still running stay PROCESSING and are recovered on the next start. */
  #abandoned = false;

  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Blobs) private readonly blobs: BlobStore,
    @inject(TOKENS.Registry) private readonly registry: PluginRegistry,
    @inject(TOKENS.Events) private readonly events: EventBus,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(TOKENS.FileInspector) private readonly inspector: FileInspector,
    @inject(TOKENS.UrlPolicy) private readonly urlPolicy: UrlPolicy,
    @inject(TOKENS.JobQueue) private readonly queue: JobQueue,
    @inject(Metrics) private readonly metrics: Metrics,
  ) {}

  /** Where a render's images come from (kernel/render-images.ts). */
  get #imageSources(): RenderImageSources {
    return { store: this.store, blobs: this.blobs, clock: this.clock, policy: this.urlPolicy, config: this.config };
  }

  /**
   * After a restart: PENDING jobs are queued again; PROCESSING ones were interrupted and are retried
   * while attempts remain, otherwise failed. Charges happen only on completion, so none is doubled.
   */
  async recover(): Promise<{ requeued: number; failed: number }> {
    let requeued = 0;
    let failed = 0;
    for (const job of await this.store.listJobsByStatus(['PROCESSING'])) {
      if (job.attempts >= this.config.jobMaxAttempts) {
        await this.failInterrupted(job);
        failed++;
      } else {
        await this.store.updateJob(job.id, { status: 'PENDING', progress: 0 });
        this.log.warn({ jobId: job.id, attempts: job.attempts }, 'job was interrupted by a restart; retrying');
      }
    }
    for (const job of await this.store.listJobsByStatus(['PENDING'])) {
      this.enqueue(job);
      requeued++;
    }
    return { requeued, failed };
  }

  /** Fails a job whose every start was interrupted (by a restart, or the death of the node that ran it). */
  async failInterrupted(job: JobRecord): Promise<void> {
    await this.#fail(job, new JobError('INTERRUPTED', `The server stopped while this job was running ${job.attempts} times; it was not retried again. Send the request again, with a smaller input if it is large.`));
  }

  enqueue(job: Pick<JobRecord, 'id' | 'pluginId' | 'orgId'>): void {
    if (this.#queued.has(job.id) || this.#started.has(job.id)) return;
    this.#queued.add(job.id);
    let queue = this.#queues.get(job.pluginId);
    if (!queue) this.#queues.set(job.pluginId, (queue = new FairQueue()));
    queue.push(job.orgId, job.id);
    this.#pump(job.pluginId);
  }

  /**
   * A plugin was switched (docs/operators.md): its waiting jobs start now, so that, when it was disabled, each fails
   * PLUGIN_DISABLED at once rather than when a slot would have come free.
   */
  pluginSwitched(pluginId: string): void {
    this.#pump(pluginId);
  }

  /** Unfinished jobs of a plugin held by this process (waiting, running, or storing their output). */
  backlog(pluginId: string): number {
    return (this.#queues.get(pluginId)?.size ?? 0) + (this.#open.get(pluginId) ?? 0);
  }

  get runningCount(): number {
    return this.#running.size;
  }

  #pump(pluginId: string): void {
    if (!this.#accepting) return;
    const queue = this.#queues.get(pluginId);
    // A plugin without a pool (disabled or unavailable) still drains its queue, all of it at once (jobs still on the
    // threads of a pool an operator closed do not hold it back): each job fails with why.
    const capacity = this.registry.plugins.get(pluginId)?.pool?.capacity ?? Infinity;
    while (queue?.size && (this.#inflight.get(pluginId) ?? 0) < capacity && (this.#open.get(pluginId) ?? 0) < capacity * (1 + STORING_PER_THREAD)) {
      const id = queue.shift()!;
      this.#queued.delete(id);
      this.#started.add(id);
      this.#inflight.set(pluginId, (this.#inflight.get(pluginId) ?? 0) + 1);
      this.#open.set(pluginId, (this.#open.get(pluginId) ?? 0) + 1);
      // The thread's slot is given back as soon as the worker answers: the next job starts while this
      // one's output and completion are written (two fsyncs the thread would otherwise sit out).
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.#inflight.set(pluginId, (this.#inflight.get(pluginId) ?? 1) - 1);
        this.#pump(pluginId);
      };
      const run = this.#execute(id, release).catch((err) => this.log.error({ jobId: id, err }, 'job runner failure'));
      this.#running.add(run);
      void run.finally(() => {
        this.#running.delete(run);
        this.#started.delete(id);
        this.#open.set(pluginId, (this.#open.get(pluginId) ?? 1) - 1);
        if (released) this.#pump(pluginId);
        else release();
      });
    }
  }

  /** Runs one job; `release` gives its thread's slot back (called once the worker has answered, or by the caller at the end). */
  async #execute(id: string, release: () => void): Promise<void> {
    // The claim: nodes sharing a database may all have queued this job, one gets it. The job runs while PROCESSING is
    // being written (readers see it at once, it is in memory). A crash before that write lands leaves the job PENDING
    // on disk, and recover() runs it again either way.
    const claim = await this.store.claimJob(id, { status: 'PROCESSING', startedAt: this.clock.now().toISOString(), progress: 10 }, this.queue.lease);
    if (!claim) return;
    const reg = this.registry.byAction(claim.job.action);
    if (!reg || reg.plugin.state !== 'enabled' || !reg.plugin.pool) {
      await claim.durable;
      await this.#fail(claim.job, notRunnable(claim.job, reg));
      return;
    }
    const marked = claim.durable;
    marked.catch(() => undefined); // awaited below; this only keeps a failed write from being "unhandled" meanwhile
    const job = claim.job;
    this.events.emit('job.started', job);
    const log = this.log.child({ jobId: id, action: job.action });
    // The output file's id is chosen now: the worker thread writes the file itself (writeBlobSync).
    const outputId = randomUUID();
    let finished = false;
    try {
      const files = await this.#loadInputs(job, reg);
      const manifest = reg.plugin.definition.manifest;
      const outbound = manifest.outbound ? { outbound: { allowPrivateNetwork: this.config.allowPrivateNetwork } } : {};
      const llm = manifest.llm && this.config.llm ? { llm: { ...this.config.llm } } : {};
      const target = this.blobs.target(outputId);
      // Checked again with nothing awaited before the pool takes the job: an operator may have disabled the plugin
      // while the inputs loaded (its pool closes once the jobs already on its threads finish).
      if (reg.plugin.state !== 'enabled' || !reg.plugin.pool) throw notRunnable(job, reg);
      const output = await reg.plugin.pool.run(reg.action.export, { params: job.params, files, settings: reg.plugin.settings, ...outbound, ...llm }, undefined, target).finally(release);
      if (output.file) await (target ? this.blobs.keep(target, outputId) : this.blobs.put(outputId, output.file.bytes));
      writeWorkerLog(log, output.log);
      const result = output.result ?? {};
      this.#checkResult(reg, result);
      const file = output.file ? await this.#outputRecord(job, outputId, output.file, typeof result.pageCount === 'number' ? result.pageCount : undefined) : undefined;
      await marked;
      const now = this.clock.now().toISOString();
      const cost = job.estimatedCredits;
      const done = await this.metrics.storeWrite(() =>
        this.store.finishJob(
          id,
          { status: 'COMPLETED', completedAt: now, outputFileId: file?.id ?? null, result, progress: 100, chargedCredits: cost, error: null, errorCode: null, ...shownParams(job) },
          cost > 0 ? { id: randomUUID(), orgId: job.orgId, amount: -cost, kind: 'charge', jobId: id, action: job.action, note: null, createdAt: now } : null,
          file,
          webhookEvent(job, 'job.completed', now),
        ),
      );
      finished = true;
      log.info({ outputFileId: file?.id ?? null, credits: cost }, 'job completed');
      this.events.emit('job.finished', done);
    } catch (err) {
      // An output the thread stored for a job that does not complete (a result that breaks the contract, a
      // deadline, a failed write) is deleted; a thread stopped at its deadline while renaming could still
      // leave the file behind, without a record that would ever serve it.
      if (!finished) await this.blobs.delete(outputId).catch(() => undefined);
      if (this.#abandoned) return;
      const jobError = err instanceof JobError ? err : new JobError('UNEXPECTED', (err as Error).message);
      if (!(err instanceof JobError)) log.error({ err }, 'unexpected job failure');
      await this.#fail(job, jobError, reg);
    }
  }

  async #loadInputs(job: JobRecord, reg: RegisteredAction): Promise<WorkerFile[]> {
    const files: WorkerFile[] = [];
    for (const ref of inputFileRefs(reg.action, job.params)) {
      const rec = await this.store.getFile(job.orgId, ref.fileId);
      if (!rec || rec.expiresAt <= this.clock.now().toISOString()) {
        throw new JobError('INPUT_MISSING', `Input file ${ref.fileId} (${ref.field}) expired or was deleted before the job ran; upload it again.`);
      }
      let bytes: Buffer;
      try {
        bytes = await this.blobs.get(rec.id);
      } catch {
        throw new JobError('INPUT_MISSING', `Input file ${ref.fileId} (${ref.field}) is no longer stored; upload it again.`);
      }
      files.push({ field: ref.field, fileId: rec.id, filename: rec.filename, mimeType: rec.mimeType, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    }
    for (const src of job.imageSources ?? []) files.push(await loadRenderImage(this.#imageSources, job.orgId, src, REMOTE_IMAGE_TIMEOUT_MS));
    return files;
  }

  #checkResult(reg: RegisteredAction, result: Record<string, unknown>): void {
    let validate = this.#resultValidators.get(reg.action.name);
    if (!validate) {
      validate = compileSchema(reg.plugin.definition.contract[reg.action.name]!.result);
      this.#resultValidators.set(reg.action.name, validate);
    }
    if (!validate(result)) {
      const problems = formatAjvErrors(validate.errors, 'result').map((e) => `${e.path} ${e.message}`);
      throw new JobError('INVALID_RESULT', `Plugin ${reg.plugin.definition.manifest.id} returned a result that breaks its contract (${problems.join('; ')}); this is a bug in the plugin.`);
    }
  }

  /** The record of an output the worker thread stored under `id`; it is written with the job's completion (one journal line). */
  async #outputRecord(job: JobRecord, id: string, file: { bytes: Uint8Array; mimeType: string; filename: string }, knownPages?: number): Promise<FileRecord> {
    const now = this.clock.now();
    // A render target reports its page count; other PDFs are counted in the inspector's worker. Only a PDF
    // output has pages (page images report the count of the PDF they were drawn from).
    const { pageCount } = file.mimeType !== 'application/pdf' ? { pageCount: null } : knownPages !== undefined ? { pageCount: knownPages } : await this.inspector.inspect(file.bytes, file.mimeType);
    const rec: FileRecord = {
      id,
      orgId: job.orgId,
      filename: file.filename,
      mimeType: file.mimeType,
      sizeBytes: file.bytes.byteLength,
      kind: 'OUTPUT',
      sourceAction: job.action,
      pageCount,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.config.fileTtlSeconds * 1000).toISOString(),
    };
    return rec;
  }

  async #fail(job: JobRecord, err: JobError, reg?: RegisteredAction): Promise<void> {
    let code = err.code;
    if (reg && !(code in KERNEL_JOB_ERRORS) && !(code in reg.plugin.definition.manifest.errors)) {
      this.log.warn({ jobId: job.id, code }, `plugin ${reg.plugin.definition.manifest.id} failed with an undeclared error code`);
      code = 'UNEXPECTED';
    }
    const now = this.clock.now().toISOString();
    const done = await this.metrics.storeWrite(() =>
      this.store.finishJob(job.id, {
        status: 'FAILED',
        completedAt: now,
        error: err.message,
        errorCode: code,
        progress: 100,
        chargedCredits: 0,
        ...shownParams(job),
      }, null, undefined, webhookEvent(job, 'job.failed', now)),
    );
    this.log.info({ jobId: job.id, action: job.action, code }, 'job failed');
    this.events.emit('job.finished', done);
  }

  /** Stops starting jobs and waits (bounded) for the running ones; what is left is recovered on the next start. */
  async drain(graceMs: number): Promise<boolean> {
    this.#accepting = false;
    const all = Promise.all([...this.#running]).then(() => true);
    const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref());
    const drained = await Promise.race([all, timeout]);
    if (!drained) this.#abandoned = true;
    return drained;
  }
}

/** Why a job cannot run on its plugin: disabled by an operator (PLUGIN_DISABLED), unavailable, or not installed. */
function notRunnable(job: JobRecord, reg: RegisteredAction | undefined): JobError {
  if (reg?.plugin.state === 'disabled') {
    return new JobError('PLUGIN_DISABLED', `The plugin for ${job.action} (${reg.plugin.definition.manifest.id}) was disabled by the operator before the job ran; send it again once the plugin is enabled.`);
  }
  const why = !reg ? 'is no longer installed' : `is unavailable (${reg.plugin.reason})`;
  return new JobError('UNEXPECTED', `The plugin for ${job.action} ${why}; the job could not run.`);
}

/**
 * The event a finished job queues for its organization's webhook endpoints, in the finishing write. A bulk render's
 * item has none: the bulk job's own event (services/bulk-service.ts) covers its items.
 */
function webhookEvent(job: JobRecord, event: WebhookEvent['event'], at: string): WebhookEvent | undefined {
  return job.bulk ? undefined : { id: randomUUID(), event, createdAt: at };
}

/** A finishing job's `params` become what its answers read of them (JobRecord.paramsShown), when its service said. */
function shownParams(job: JobRecord): Pick<JobRecord, 'params'> | Record<string, never> {
  return job.paramsShown ? { params: job.paramsShown } : {};
}
