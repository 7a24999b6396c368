// Wires the kernel together with tsyringe: config, clock, stores, registry, pools, runner, events.
import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { TOKENS } from './tokens.js';
import { systemClock, type Clock } from './clock.js';
import type { QuireConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { LowdbStore } from './store/lowdb-store.js';
import { BlobStore } from './store/blob-store.js';
import type { Store } from './store/store.js';
import { PluginRegistry } from './plugin-registry.js';
import { EventBus } from './events.js';
import { JobWaiter } from './job-waiter.js';
import { JobRunner } from './job-runner.js';
import { JobService } from './job-service.js';
import { UrlPolicy } from './url-policy.js';
import { WebhookDelivery } from './webhook-delivery.js';
import { JobNotifier } from './job-notifier.js';
import { RenderService } from './render-service.js';
import { ImportService } from './import-service.js';

/** What a render download token is bound to: the job, in a scope no file id can take. */
export function renderTokenScope(jobId: string): string {
  return `render:${jobId}`;
}
import { FileInspector } from './file-inspector.js';
import { MarkdownParser } from './markdown-parser.js';
import { Sweeper } from './sweeper.js';
import { bootstrap } from './bootstrap.js';
import { acquireDataDirLock } from './store/data-dir-lock.js';
import { loadSigningSecret } from './signing-secret.js';
import { signDownloadToken } from './signed-download-token.js';
import { BUILTIN_BASE, BUILTIN_PLUGINS } from '../plugins/builtin.js';
import type { JobRecord } from './model.js';

/** Says at boot which LLM endpoint plugins may use (origin and model, never the key), and warns when the policy will refuse it. */
function logLlmEndpoint(config: QuireConfig, log: Logger): void {
  const llm = config.llm!;
  const check = new UrlPolicy({ allowPrivateNetwork: llm.allowPrivateNetwork || config.allowPrivateNetwork }).checkSyntax(llm.baseUrl, 'QUIRE_LLM_BASE_URL');
  const fields = { endpoint: new URL(llm.baseUrl).origin, model: llm.model, apiKey: llm.apiKey ? 'set' : 'not set', timeoutMs: llm.timeoutMs };
  if (check.allowed) log.info(fields, 'LLM endpoint configured for Lens classify, extract and generate-filename');
  else log.warn({ ...fields, reason: check.reason }, 'LLM endpoint configured, but the outbound URL policy refuses it: Lens will answer with its built-in engine (set QUIRE_LLM_ALLOW_PRIVATE_NETWORK=true for a local server)');
}

export interface KernelOptions {
  clock?: Clock;
  logger?: Logger;
  /** Replaces the metadata store (e.g. PostgreSQL later); default is the embedded lowdb store. */
  store?: Store;
}

export class Kernel {
  private constructor(
    readonly container: DependencyContainer,
    readonly config: QuireConfig,
    readonly clock: Clock,
    readonly log: Logger,
    readonly store: Store,
    readonly blobs: BlobStore,
    readonly registry: PluginRegistry,
    readonly runner: JobRunner,
    readonly jobs: JobService,
    readonly renders: RenderService,
    readonly imports: ImportService,
    readonly inspector: FileInspector,
    readonly markdown: MarkdownParser,
    readonly waiter: JobWaiter,
    readonly policy: UrlPolicy,
    readonly secret: Buffer,
    private readonly sweeper: Sweeper,
    private readonly notifier: JobNotifier,
    private readonly releaseLock: () => Promise<void>,
  ) {}

  static async start(config: QuireConfig, options: KernelOptions = {}): Promise<Kernel> {
    const c = rootContainer.createChildContainer();
    const clock = options.clock ?? systemClock;
    const log = options.logger ?? createLogger(config.logLevel);
    const releaseLock = await acquireDataDirLock(config.dataDir);
    const store = options.store ?? new LowdbStore(config.dataDir);
    await store.init();
    const blobs = new BlobStore(config.dataDir);
    await blobs.init();
    const secret = await loadSigningSecret(config.dataDir, config.signingSecret);
    const registry = new PluginRegistry(config, log);
    const inspector = new FileInspector();
    const markdown = new MarkdownParser();
    const policy = new UrlPolicy({ allowPrivateNetwork: config.allowPrivateNetwork });
    try {
      await registry.load(BUILTIN_PLUGINS, BUILTIN_BASE);
    } catch (err) {
      await registry.close();
      await inspector.close();
      await markdown.close();
      await store.close();
      await releaseLock();
      throw err;
    }

    c.register(TOKENS.Config, { useValue: config });
    c.register(TOKENS.Clock, { useValue: clock });
    c.register(TOKENS.Logger, { useValue: log });
    c.register(TOKENS.Store, { useValue: store });
    c.register(TOKENS.Blobs, { useValue: blobs });
    c.register(TOKENS.Registry, { useValue: registry });
    c.register(TOKENS.Events, { useValue: new EventBus() });
    c.register(TOKENS.Secrets, { useValue: secret });
    c.register(TOKENS.UrlPolicy, { useValue: policy });
    c.register(TOKENS.FileInspector, { useValue: inspector });
    c.register(TOKENS.MarkdownParser, { useValue: markdown });
    c.registerSingleton(JobRunner);
    c.registerSingleton(JobService);
    c.registerSingleton(RenderService);
    c.registerSingleton(ImportService);

    const events = c.resolve<EventBus>(TOKENS.Events);
    const runner = c.resolve(JobRunner);
    const jobs = c.resolve(JobService);
    const renders = c.resolve(RenderService);
    const imports = c.resolve(ImportService);
    const delivery = new WebhookDelivery(policy, {
      timeoutMs: config.webhookTimeoutMs,
      log: (level, msg, fields) => log[level](fields, msg),
    });
    const kernelRef: { k?: Kernel } = {};
    const notifier = new JobNotifier(delivery, (job) => kernelRef.k!.downloadUrl(job), log);
    events.on('job.finished', (job) => notifier.notify(job));
    const waiter = new JobWaiter(events);

    await bootstrap(store, clock, config, log);
    if (config.llm) logLlmEndpoint(config, log);
    const sweeper = new Sweeper(store, blobs, clock, log, config.fileTtlSeconds);
    const kernel = new Kernel(c, config, clock, log, store, blobs, registry, runner, jobs, renders, imports, inspector, markdown, waiter, policy, secret, sweeper, notifier, releaseLock);
    kernelRef.k = kernel;
    const recovered = await runner.recover();
    if (recovered.requeued || recovered.failed) log.info(recovered, 'recovered unfinished jobs');
    sweeper.start(config.sweepIntervalSeconds);
    return kernel;
  }

  /** Absolute, signed, expiring download URL of a job's output file (null without one). */
  downloadUrl(job: Pick<JobRecord, 'id' | 'kind' | 'orgId' | 'outputFileId' | 'status'>): string | null {
    if (job.status !== 'COMPLETED' || !job.outputFileId) return null;
    if (job.kind === 'render') {
      const token = signDownloadToken(this.secret, { fileId: renderTokenScope(job.id), orgId: job.orgId, expiresAt: this.#tokenExpiry() });
      return `${this.config.publicUrl}/api/v1/dev/render/${job.id}/download?token=${encodeURIComponent(token)}`;
    }
    return this.fileDownloadUrl(job.orgId, job.outputFileId);
  }

  #tokenExpiry(): number {
    return Math.floor(this.clock.now().getTime() / 1000) + this.config.downloadTokenTtlSeconds;
  }

  fileDownloadUrl(orgId: string, fileId: string): string {
    const token = signDownloadToken(this.secret, { fileId, orgId, expiresAt: this.#tokenExpiry() });
    return `${this.config.publicUrl}/api/v1/dev/tools/files/${fileId}/download?token=${encodeURIComponent(token)}`;
  }

  sweep(): Promise<{ files: number; jobs: number }> {
    return this.sweeper.sweep();
  }

  /** Graceful stop: no new jobs start, running ones get `graceMs`, webhooks in flight settle, state is flushed. */
  async stop(graceMs = this.config.shutdownGraceSeconds * 1000): Promise<boolean> {
    // Long polls answer at once with the state they have; their next request gets 503 SHUTTING_DOWN.
    this.waiter.close();
    const drained = await this.runner.drain(graceMs);
    await this.sweeper.stop();
    await this.notifier.settle();
    await this.registry.close();
    await this.inspector.close();
    await this.markdown.close();
    await this.store.close();
    await this.releaseLock();
    return drained;
  }
}
