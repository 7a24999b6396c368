// Runs importer actions synchronously: resolve files, reserve credits, run on the plugin's pool, store returned images,
// check the result, charge, answer. The route checked the body against the action's input contract.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { ValidateFunction } from 'ajv';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError, JobError } from '../contracts/errors.js';
import { compileSchema, formatAjvErrors } from '../contracts/schema.js';
import { JobService } from '../kernel/job-service.js';
import { inputFileRefs } from '../kernel/job-runner.js';
import { checkImage } from '../engines/image/image-check.js';
import { TEMP_IMAGE_TTL_SECONDS, tempImagePath } from '../kernel/temp-images.js';
import { pendingImagePath, type WorkerFile, type WorkerOutput } from '../sdk/plugin-api.js';
import type { QuireConfig } from '../kernel/config.js';
import type { Clock } from '../kernel/clock.js';
import type { Store } from '../kernel/store/store.js';
import type { BlobStore } from '../kernel/store/blob-store.js';
import type { Logger } from '../kernel/logger.js';
import { servingPool, type RegisteredAction } from '../kernel/plugin-registry.js';
import type { FileRecord } from '../kernel/model.js';

/**
 * An importer answers in the request (200 with its result) instead of creating a job. Credits follow the
 * job rules: the cost must be available when the request arrives (402) and is charged only when the action
 * succeeds. Failures answer 422 IMPORT_FAILED carrying the plugin's error code.
 */
@injectable()
export class ImportService {
  readonly #validators = new Map<string, ValidateFunction>();
  /** Imports in progress, per plugin; past the pool's maxBacklog the request answers 503. */
  readonly #running = new Map<string, number>();

  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Blobs) private readonly blobs: BlobStore,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(JobService) private readonly jobs: JobService,
  ) {}

  /** `params` match the action's input contract (the caller checked them); `endpoint` names what the caller serves, for the answers that name it. */
  async run(orgId: string, reg: RegisteredAction, params: Record<string, unknown>, endpoint: string): Promise<Record<string, unknown>> {
    const { action, plugin } = reg;
    const pool = servingPool(reg);
    const records = await this.jobs.resolveInputFiles(orgId, action, params, endpoint);

    const pluginId = plugin.definition.manifest.id;
    const running = this.#running.get(pluginId) ?? 0;
    if (running >= pool.limits.maxBacklog) {
      const retryAfter = Math.max(1, Math.ceil(pool.limits.timeoutMs / 1000 / 4));
      throw new HttpError('SERVICE_BUSY', `${endpoint} is already running ${running} imports, its limit; retry in ${retryAfter} s.`, undefined, { 'Retry-After': String(retryAfter) });
    }
    const cost = action.credits.perRequest;
    const release = await this.jobs.hold(orgId, action.name, cost);
    this.#running.set(pluginId, running + 1);
    try {
      const files: WorkerFile[] = [];
      for (const ref of inputFileRefs(action, params)) {
        const rec = records.get(ref.fileId)!;
        let bytes: Buffer;
        try {
          bytes = await this.blobs.get(rec.id);
        } catch {
          throw new HttpError('NOT_FOUND', `${ref.field}: file ${ref.fileId} is no longer stored; upload it again.`);
        }
        files.push({ field: ref.field, fileId: rec.id, filename: rec.filename, mimeType: rec.mimeType, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
      }
      // Taken again with nothing awaited before the run: an operator may have disabled the plugin meanwhile.
      const live = servingPool(reg);
      let output: WorkerOutput;
      try {
        output = await live.run(action.export, { params, files, settings: plugin.settings });
      } catch (err) {
        const e = err instanceof JobError ? err : new JobError('UNEXPECTED', (err as Error).message);
        const code = e.code in plugin.definition.manifest.errors || ['DEADLINE_EXCEEDED', 'WORKER_CRASHED'].includes(e.code) ? e.code : 'UNEXPECTED';
        if (code === 'UNEXPECTED') this.log.warn({ err, action: action.name }, 'importer failed with an undeclared error');
        const field = action.files?.[0]?.field ?? '(body)';
        throw new HttpError('IMPORT_FAILED', e.message, [{ path: field, message: e.message, code }]);
      }
      const result = await this.#storeImages(orgId, action.name, output);
      const check = this.#resultValidator(reg);
      if (!check(result)) {
        const problems = formatAjvErrors(check.errors, 'result').map((e) => `${e.path} ${e.message}`);
        this.log.error({ action: action.name, problems }, 'importer result breaks its contract');
        throw new HttpError('INTERNAL', `Plugin ${pluginId} returned a result that breaks its contract (${problems.slice(0, 3).join('; ')}); this is a bug in the plugin.`);
      }
      if (cost > 0) {
        await this.store.addLedgerEntry({ id: randomUUID(), orgId, amount: -cost, kind: 'charge', jobId: null, action: action.name, note: null, createdAt: this.clock.now().toISOString() });
      }
      return result;
    } finally {
      this.#running.set(pluginId, (this.#running.get(pluginId) ?? 1) - 1);
      release();
    }
  }

  /** Stores the images an importer returned as temporary images and puts their paths into the result. */
  async #storeImages(orgId: string, actionName: string, output: WorkerOutput): Promise<Record<string, unknown>> {
    const result = output.result ?? {};
    if (!output.images?.length) return result;
    const paths = new Map<string, string>();
    for (const image of output.images) {
      let mimeType: string;
      try {
        ({ mimeType } = await checkImage(image.bytes, { maxPixels: this.config.maxImagePixels, maxSide: this.config.maxImageSide }));
      } catch (err) {
        throw new HttpError('IMPORT_FAILED', `An image of the file cannot be stored: ${(err as Error).message}`, [{ path: 'image', message: (err as Error).message, code: 'IMAGE_REFUSED' }]);
      }
      const id = randomUUID();
      await this.blobs.put(id, image.bytes);
      const now = this.clock.now();
      const rec: FileRecord = {
        id,
        orgId,
        filename: `${image.ref}`,
        mimeType,
        sizeBytes: image.bytes.byteLength,
        kind: 'IMAGE',
        sourceAction: actionName,
        pageCount: null,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + TEMP_IMAGE_TTL_SECONDS * 1000).toISOString(),
      };
      await this.store.createFile(rec);
      paths.set(pendingImagePath(image.ref), tempImagePath(id));
    }
    return replaceStrings(result, paths) as Record<string, unknown>;
  }

  /** The result is the plugin's answer, not the client's: checked here, against the action's result contract. */
  #resultValidator(reg: RegisteredAction): ValidateFunction {
    let v = this.#validators.get(reg.action.name);
    if (!v) {
      v = compileSchema(reg.plugin.definition.contract[reg.action.name]!.result);
      this.#validators.set(reg.action.name, v);
    }
    return v;
  }
}

function replaceStrings(value: unknown, map: Map<string, string>): unknown {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => replaceStrings(v, map));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceStrings(v, map)]));
  return value;
}
