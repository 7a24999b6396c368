// The composition root: the one place where Quire's object graph is built. Every kernel part, every service and
// the built-in plugin list are registered here, in one tsyringe container; nothing below builds its own parts.
import 'reflect-metadata';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { systemClock, type Clock } from '../kernel/clock.js';
import type { QuireConfig } from '../kernel/config.js';
import { createLogger, type Logger } from '../kernel/logger.js';
import { LowdbStore } from '../kernel/store/lowdb-store.js';
import { PgStore } from '../kernel/store/postgres/pg-store.js';
import { DiskBlobStore } from '../kernel/store/blob-store.js';
import { PgBlobStore } from '../kernel/store/postgres/pg-blob-store.js';
import { PgRateLimiter } from '../kernel/store/postgres/pg-rate-limiter.js';
import { MemoryRateLimiter, type RateLimiter } from '../kernel/rate-limiter.js';
import { PgJobQueue } from '../kernel/store/postgres/pg-job-queue.js';
import { EmbeddedJobQueue, type JobQueue } from '../kernel/job-queue.js';
import type { Store } from '../kernel/store/store.js';
import { acquireDataDirLock } from '../kernel/store/data-dir-lock.js';
import { loadSigningSecret } from '../kernel/signing-secret.js';
import { PluginRegistry } from '../kernel/plugin-registry.js';
import { FileInspector } from '../kernel/file-inspector.js';
import { EventBus } from '../kernel/events.js';
import { JobRunner } from '../kernel/job-runner.js';
import { JobService } from '../kernel/job-service.js';
import { JobWaiter } from '../kernel/job-waiter.js';
import { JobNotifier } from '../kernel/job-notifier.js';
import { WebhookDelivery } from '../kernel/webhook-delivery.js';
import { Sweeper } from '../kernel/sweeper.js';
import { Kernel } from '../kernel/kernel.js';
import { Metrics } from '../kernel/metrics.js';
import { UrlPolicy } from '../sdk/url-policy.js';
import { RenderService, checkRenderTargets } from '../services/render-service.js';
import { ImportService } from '../services/import-service.js';
import { MarkdownParser } from '../services/markdown-parser.js';
import { DownloadLinks } from '../services/download-links.js';
import { JobEvents } from '../services/job-events.js';
import { DocumentImages } from '../services/document-images.js';
import { DocumentService } from '../services/document-service.js';
import { BulkService } from '../services/bulk-service.js';
import { TemplateService } from '../services/template-service.js';
import { BlockService } from '../services/block-service.js';
import { BlockInsertion } from '../services/block-insertion.js';
import { CatalogPreviews } from '../services/catalog-previews.js';
import { TableFileReader } from '../services/table-file-reader.js';
import { WebhookDispatcher } from '../services/webhook-dispatcher.js';
import { WebhookEndpoints } from '../services/webhook-endpoints.js';
import { FormService } from '../services/forms/form-service.js';
import { PluginSwitch } from '../services/plugin-switch.js';
import { BUILTIN_BASE, BUILTIN_PLUGINS } from '../plugins/builtin.js';
import { FormRateLimits } from './forms-page/rate-limits.js';

export interface QuireOptions {
  clock?: Clock;
  logger?: Logger;
  /** Replaces the metadata store (e.g. PostgreSQL later); default is the embedded lowdb store. */
  store?: Store;
}

/** The services between the routes and the kernel. */
export interface Services {
  renders: RenderService;
  imports: ImportService;
  markdown: MarkdownParser;
  links: DownloadLinks;
  documents: DocumentService;
  bulk: BulkService;
  templates: TemplateService;
  blocks: BlockService;
  tables: TableFileReader;
  webhooks: WebhookEndpoints;
  /** Interactive forms, their public page's side, and their records. */
  forms: FormService;
  /** Operators' runtime plugin switches and their audit log (docs/operators.md). */
  plugins: PluginSwitch;
}

/** A started Quire: the container, the kernel and the services, and how to stop them all. */
export interface Quire {
  container: DependencyContainer;
  kernel: Kernel;
  services: Services;
  config: QuireConfig;
  log: Logger;
  /** Per-key request budgets: one per server with the embedded store, one per deployment on PostgreSQL. */
  rateLimiter: RateLimiter;
  /** The public form pages' per-form budgets (submissions, previews), shared like `rateLimiter`. */
  formRateLimits: FormRateLimits;
  /** The server's Prometheus metrics (GET /metrics), counted by the parts that injected them. */
  metrics: Metrics;
  /** Graceful stop of the kernel (see Kernel.stop), then of the services' own threads. */
  stop(graceMs?: number): Promise<boolean>;
}

/** Says at boot which LLM endpoint plugins may use (origin and model, never the key), and warns when the policy will refuse it. */
function logLlmEndpoint(config: QuireConfig, log: Logger): void {
  const llm = config.llm!;
  const check = new UrlPolicy({ allowPrivateNetwork: llm.allowPrivateNetwork || config.allowPrivateNetwork }).checkSyntax(llm.baseUrl, 'QUIRE_LLM_BASE_URL');
  const fields = { endpoint: new URL(llm.baseUrl).origin, model: llm.model, apiKey: llm.apiKey ? 'set' : 'not set', timeoutMs: llm.timeoutMs };
  if (check.allowed) log.info(fields, 'LLM endpoint configured for Lens classify, extract and generate-filename');
  else log.warn({ ...fields, reason: check.reason }, 'LLM endpoint configured, but the outbound URL policy refuses it: Lens will answer with its built-in engine (set QUIRE_LLM_ALLOW_PRIVATE_NETWORK=true for a local server)');
}

/** Opens the data dir, loads the plugins, registers everything and starts the kernel; on a failure, closes what it opened. */
export async function startQuire(config: QuireConfig, options: QuireOptions = {}): Promise<Quire> {
  const c = rootContainer.createChildContainer();
  const clock = options.clock ?? systemClock;
  const log = options.logger ?? createLogger(config.logLevel);
  const opened: Array<() => Promise<unknown>> = [];
  const closeOpened = async () => {
    for (const close of opened.reverse()) await close();
  };
  try {
    const releaseLock = await acquireDataDirLock(config.dataDir);
    opened.push(releaseLock);
    const store = options.store ?? (config.databaseUrl ? new PgStore(config.databaseUrl) : new LowdbStore(config.dataDir));
    await store.init();
    opened.push(() => store.close());
    // On PostgreSQL the file bytes are there too (the data dir keeps only scratch files): nodes share no disk.
    const blobs = config.databaseUrl ? new PgBlobStore(config.databaseUrl, config.dataDir) : new DiskBlobStore(config.dataDir);
    if (blobs instanceof PgBlobStore) opened.push(() => blobs.close());
    await blobs.init();
    // On PostgreSQL every node takes from the same buckets, so a key's budget is the deployment's, not each server's.
    const rateLimiter: RateLimiter = config.databaseUrl && config.rateLimitPerMinute > 0 ? new PgRateLimiter(config.databaseUrl, config.rateLimitPerMinute) : new MemoryRateLimiter(config.rateLimitPerMinute);
    opened.push(() => rateLimiter.close());
    const formRateLimits = new FormRateLimits(config.databaseUrl);
    opened.push(() => formRateLimits.close());
    const secret = await loadSigningSecret(config.dataDir, config.signingSecret);
    const inspector = new FileInspector();
    opened.push(() => inspector.close());
    const markdown = new MarkdownParser();
    opened.push(() => markdown.close());
    const tables = new TableFileReader();
    opened.push(() => tables.close());
    const registry = new PluginRegistry(config, log);
    opened.push(() => registry.close());
    // Plugins operators switched off stay off: the stored switches apply before any pool starts (docs/operators.md).
    await registry.load(BUILTIN_PLUGINS, BUILTIN_BASE, await store.listPluginOverrides());
    checkRenderTargets(registry);
    const policy = new UrlPolicy({ allowPrivateNetwork: config.allowPrivateNetwork });
    // On PostgreSQL the nodes of one database share the jobs: any node may run a job another admitted.
    const queue: JobQueue = config.databaseUrl ? new PgJobQueue(config.databaseUrl, config, log) : new EmbeddedJobQueue();
    opened.push(() => queue.stop());

    c.register(TOKENS.Config, { useValue: config });
    c.register(TOKENS.Clock, { useValue: clock });
    c.register(TOKENS.Logger, { useValue: log });
    c.register(TOKENS.DataDirLock, { useValue: releaseLock });
    c.register(TOKENS.Store, { useValue: store });
    c.register(TOKENS.Blobs, { useValue: blobs });
    c.register(TOKENS.Secrets, { useValue: secret });
    c.register(TOKENS.Registry, { useValue: registry });
    c.register(TOKENS.FileInspector, { useValue: inspector });
    c.register(TOKENS.RateLimiter, { useValue: rateLimiter });
    c.register(TOKENS.UrlPolicy, { useValue: policy });
    c.register(TOKENS.JobQueue, { useValue: queue });
    c.register(TOKENS.Events, { useValue: new EventBus() });
    c.register(MarkdownParser, { useValue: markdown });
    c.register(WebhookDelivery, {
      useFactory: instanceCachingFactory(() => new WebhookDelivery(policy, { timeoutMs: config.webhookTimeoutMs, log: (level, msg, fields) => log[level](fields, msg) })),
    });
    c.registerSingleton(DownloadLinks);
    c.registerSingleton(JobEvents);
    c.register(TOKENS.JobEventPayloads, { useToken: JobEvents });
    for (const part of [Metrics, JobRunner, JobService, JobWaiter, JobNotifier, Sweeper, Kernel, RenderService, ImportService, DocumentImages, DocumentService, BulkService, TemplateService, BlockService, BlockInsertion, CatalogPreviews, WebhookEndpoints, WebhookDispatcher, FormService, PluginSwitch]) c.registerSingleton(part as new (...args: never[]) => unknown);

    const kernel = c.resolve(Kernel);
    // Built before the first job can finish: they subscribe to the event bus when they are made.
    c.resolve(JobNotifier);
    const metrics = c.resolve(Metrics);
    const bulk = c.resolve(BulkService);
    if (config.llm) logLlmEndpoint(config, log);
    await kernel.start();
    // Bulk jobs whose items all ended while the server was down finish now (their items were recovered above).
    await bulk.recover();
    // Organizations' webhook endpoints: deliveries queued before a restart (and retries) go out from here on.
    const dispatcher = c.resolve(WebhookDispatcher);
    dispatcher.start();
    const plugins = c.resolve(PluginSwitch);
    plugins.start();
    const services: Services = { renders: c.resolve(RenderService), imports: c.resolve(ImportService), markdown, links: c.resolve(DownloadLinks), documents: c.resolve(DocumentService), bulk, tables, templates: c.resolve(TemplateService), blocks: c.resolve(BlockService), webhooks: c.resolve(WebhookEndpoints), forms: c.resolve(FormService), plugins };
    return {
      container: c,
      kernel,
      services,
      config,
      log,
      rateLimiter,
      formRateLimits,
      metrics,
      async stop(graceMs?: number): Promise<boolean> {
        // Before the kernel closes the store: attempts under way settle (bounded); what is left stays PENDING for the next start.
        await dispatcher.stop();
        await plugins.stop();
        const drained = await kernel.stop(graceMs);
        await markdown.close();
        await tables.close();
        await rateLimiter.close();
        await formRateLimits.close();
        return drained;
      },
    };
  } catch (err) {
    await closeOpened();
    throw err;
  }
}
