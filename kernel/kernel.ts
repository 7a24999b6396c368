// The kernel's running parts seen as one: what the services and routes use, and the order in which the parts
// start and stop. Built by tsyringe in the composition root (server/composition-root.ts); it knows no plugin,
// service or route.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from './tokens.js';
import type { Clock } from './clock.js';
import type { QuireConfig } from './config.js';
import type { Logger } from './logger.js';
import type { BlobStore } from './store/blob-store.js';
import type { Store } from './store/store.js';
import type { PluginRegistry } from './plugin-registry.js';
import type { FileInspector } from './file-inspector.js';
import type { UrlPolicy } from '../sdk/url-policy.js';
import { JobRunner } from './job-runner.js';
import { JobService } from './job-service.js';
import { JobWaiter } from './job-waiter.js';
import { JobNotifier } from './job-notifier.js';
import { Sweeper } from './sweeper.js';
import { bootstrap } from './bootstrap.js';
import type { JobQueue } from './job-queue.js';

@injectable()
export class Kernel {
  constructor(
    @inject(TOKENS.Config) readonly config: QuireConfig,
    @inject(TOKENS.Clock) readonly clock: Clock,
    @inject(TOKENS.Logger) readonly log: Logger,
    @inject(TOKENS.Store) readonly store: Store,
    @inject(TOKENS.Blobs) readonly blobs: BlobStore,
    @inject(TOKENS.Registry) readonly registry: PluginRegistry,
    @inject(TOKENS.FileInspector) readonly inspector: FileInspector,
    @inject(TOKENS.UrlPolicy) readonly policy: UrlPolicy,
    @inject(TOKENS.Secrets) readonly secret: Buffer,
    @inject(JobRunner) readonly runner: JobRunner,
    @inject(JobService) readonly jobs: JobService,
    @inject(JobWaiter) readonly waiter: JobWaiter,
    @inject(Sweeper) private readonly sweeper: Sweeper,
    @inject(JobNotifier) private readonly notifier: JobNotifier,
    @inject(TOKENS.DataDirLock) private readonly releaseLock: () => Promise<void>,
    @inject(TOKENS.JobQueue) private readonly queue: JobQueue,
  ) {}

  /** First start on an empty data dir, then the jobs a previous run left unfinished, then the sweeper. */
  async start(): Promise<void> {
    await bootstrap(this.store, this.clock, this.config, this.log);
    const recovered = await this.queue.start({
      enqueue: (job) => this.runner.enqueue(job),
      interrupted: (job) => this.runner.failInterrupted(job),
      wake: (id) => this.waiter.wake(id),
      recover: () => this.runner.recover(),
    });
    if (recovered.requeued || recovered.failed) this.log.info(recovered, 'recovered unfinished jobs');
    this.sweeper.start(this.config.sweepIntervalSeconds);
  }

  sweep(): Promise<{ files: number; jobs: number }> {
    return this.sweeper.sweep();
  }

  /** Graceful stop: no new jobs start, running ones get `graceMs`, webhooks in flight settle, state is flushed. */
  async stop(graceMs = this.config.shutdownGraceSeconds * 1000): Promise<boolean> {
    // Long polls answer at once with the state they have; their next request gets 503 SHUTTING_DOWN.
    this.waiter.close();
    const drained = await this.runner.drain(graceMs);
    await this.queue.stop();
    await this.sweeper.stop();
    await this.notifier.settle();
    await this.registry.close();
    await this.inspector.close();
    await this.store.close();
    await this.releaseLock();
    return drained;
  }
}
