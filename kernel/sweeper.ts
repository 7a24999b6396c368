// Deletes expired files (record and bytes), forgets finished jobs once their outputs are gone, expired idempotency keys,
// webhook deliveries after 30 days, and full rate-limit buckets.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from './tokens.js';
import type { QuireConfig } from './config.js';
import type { Store } from './store/store.js';
import type { BlobStore } from './store/blob-store.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { RateLimiter } from './rate-limiter.js';

/** Webhook deliveries and their attempt logs are kept this long after they were created. */
const WEBHOOK_DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;

@injectable()
export class Sweeper {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  private readonly jobRetentionSeconds: number;

  constructor(
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Blobs) private readonly blobs: BlobStore,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(TOKENS.Config) config: QuireConfig,
    @inject(TOKENS.RateLimiter) private readonly limiter: RateLimiter,
  ) {
    this.jobRetentionSeconds = config.fileTtlSeconds;
  }

  start(intervalSeconds: number): void {
    this.#timer = setInterval(() => void this.sweep(), intervalSeconds * 1000);
    this.#timer.unref();
  }

  async sweep(): Promise<{ files: number; jobs: number }> {
    if (this.#running) await this.#running;
    let files = 0;
    let jobs = 0;
    const work = (async () => {
      const now = this.clock.now();
      for (const f of await this.store.listFilesExpiredBy(now.toISOString())) {
        await this.blobs.delete(f.id);
        await this.store.deleteFile(f.id);
        files++;
      }
      jobs = await this.store.deleteJobsFinishedBefore(new Date(now.getTime() - this.jobRetentionSeconds * 1000).toISOString());
      const keys = await this.store.deleteIdempotencyExpiredBy(now.toISOString());
      const deliveries = await this.store.deleteWebhookDeliveriesBefore(new Date(now.getTime() - WEBHOOK_DELIVERY_RETENTION_MS).toISOString());
      if (deliveries) this.log.info({ deliveries }, 'swept webhook deliveries older than 30 days');
      await this.limiter.prune();
      if (files || jobs || keys) this.log.info({ files, jobs, idempotencyKeys: keys }, 'swept expired files, jobs and idempotency keys');
    })();
    this.#running = work.catch((err) => this.log.error({ err }, 'sweep failed'));
    await this.#running;
    this.#running = null;
    return { files, jobs };
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#running) await this.#running;
  }
}
