// Deletes expired files (record and bytes) and forgets finished jobs once their outputs are gone.
import type { Store } from './store/store.js';
import type { BlobStore } from './store/blob-store.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

export class Sweeper {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly jobRetentionSeconds: number,
  ) {}

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
      if (files || jobs) this.log.info({ files, jobs }, 'swept expired files and jobs');
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
