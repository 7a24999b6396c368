// Prometheus metrics (prom-client): one registry per server holding the `quire_` families operators alert on (docs/metrics.md).
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { TOKENS } from './tokens.js';
import type { QuireConfig } from './config.js';
import type { EventBus } from './events.js';
import type { PluginRegistry } from './plugin-registry.js';
import type { PluginPool } from './plugin-pool.js';
import type { JobRecord } from './model.js';

const PREFIX = 'quire_';

/** Seconds: a page renders in milliseconds, a long poll or an office conversion takes tens of seconds. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: a render runs in milliseconds, OCR of a long scan or a LibreOffice conversion in minutes. */
const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds: an fsync of the journal or a PostgreSQL commit takes a millisecond or so when the disk or database is well. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** A webhook endpoint's signed delivery (services/webhook-dispatcher.ts), or a job's per-request webhook (kernel/job-notifier.ts). */
export type WebhookKind = 'endpoint' | 'request';

/**
 * The server's metrics. Counted where things happen (the HTTP layer, the job runner, the webhook senders) or read from
 * the pools when scraped. With metrics off (no `metricsToken`) every count returns at once and the process metrics
 * are not collected: a server that nobody scrapes pays nothing. Its own registry, not prom-client's global one, so
 * that several servers in one process (tests) keep their counts apart.
 */
@injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly #on: boolean;
  readonly #httpRequests = new Counter({ name: `${PREFIX}http_requests_total`, help: 'HTTP requests answered, by method, route pattern ("unmatched" for no route) and status.', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
  readonly #httpDuration = new Histogram({ name: `${PREFIX}http_request_duration_seconds`, help: 'Time from a request arriving to its answer being sent, by method and route pattern.', labelNames: ['method', 'route'], buckets: HTTP_BUCKETS, registers: [this.registry] });
  readonly #jobs = new Counter({ name: `${PREFIX}jobs_total`, help: 'Jobs finished by this server, by action and outcome (COMPLETED or FAILED).', labelNames: ['action', 'outcome'], registers: [this.registry] });
  readonly #queueWait = new Histogram({ name: `${PREFIX}job_queue_wait_seconds`, help: 'Time a job waited between its creation and its (last) start, by action.', labelNames: ['action'], buckets: JOB_BUCKETS, registers: [this.registry] });
  readonly #run = new Histogram({ name: `${PREFIX}job_run_seconds`, help: 'Time from a job\'s start to its finish (worker, output stored, finishing write), by action.', labelNames: ['action'], buckets: JOB_BUCKETS, registers: [this.registry] });
  readonly #credits = new Counter({ name: `${PREFIX}credits_charged_total`, help: 'Credits charged for completed jobs.', registers: [this.registry] });
  readonly #webhooks = new Counter({ name: `${PREFIX}webhook_deliveries_total`, help: 'Webhook delivery attempts, by kind (endpoint or request) and outcome (delivered: a 2xx answer; failed: anything else).', labelNames: ['kind', 'outcome'], registers: [this.registry] });
  readonly #storeWrite = new Histogram({ name: `${PREFIX}store_write_seconds`, help: 'Duration of the write that finishes a job (state, charge, output record and webhook event, made durable together).', buckets: STORE_BUCKETS, registers: [this.registry] });
  readonly #poolThreads = new Gauge({ name: `${PREFIX}pool_threads`, help: 'Worker threads of each plugin\'s pool, busy (running a task) or idle.', labelNames: ['plugin', 'state'], registers: [this.registry], collect: () => this.#samplePools() });
  readonly #threadLimit: Gauge = new Gauge({ name: `${PREFIX}worker_thread_limit`, help: 'Slots of the thread budget (128 MB each, from QUIRE_MEMORY_BUDGET_MB and the cores); a plugin thread takes one, or more when its pool declares threadMemoryMb.', registers: [this.registry], collect: (): void => this.#threadLimit.set(this.plugins.threadBudget.limit) });
  readonly #threadWaiting: Gauge = new Gauge({ name: `${PREFIX}worker_thread_waiting`, help: 'Tasks waiting for a slot of the thread budget.', registers: [this.registry], collect: (): void => this.#threadWaiting.set(this.plugins.threadBudget.waiting) });
  readonly #recycles = new Counter({ name: `${PREFIX}pool_recycles_total`, help: 'Worker threads replaced after their recycleAfter tasks or once their heap grew past recycleHeapMb, by plugin.', labelNames: ['plugin'], registers: [this.registry], collect: () => this.#syncPoolCounters() });
  readonly #crashes = new Counter({ name: `${PREFIX}worker_crashes_total`, help: 'Actions whose worker thread died under them (WORKER_CRASHED: out of memory, a native crash), by plugin.', labelNames: ['plugin'], registers: [this.registry], collect: () => this.#syncPoolCounters() });
  /** What each pool's counters said at the last scrape: the counters above grow by the difference (a pool replaced starts again at 0). */
  readonly #seen = new WeakMap<PluginPool, { recycled: number; crashes: number }>();

  constructor(
    @inject(TOKENS.Config) config: QuireConfig,
    @inject(TOKENS.Events) events: EventBus,
    @inject(TOKENS.Registry) private readonly plugins: PluginRegistry,
  ) {
    this.#on = config.metricsToken !== undefined;
    if (!this.#on) return;
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    events.on('job.finished', (job) => this.#jobFinished(job));
  }

  /** Whether the server has metrics on (a token to scrape them with). */
  get enabled(): boolean {
    return this.#on;
  }

  /** One answered HTTP request; `route` is the route's pattern (never the raw URL: its ids would make a series each). */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    if (!this.#on) return;
    this.#httpRequests.inc({ method, route, status });
    this.#httpDuration.observe({ method, route }, seconds);
  }

  /** One webhook delivery attempt and whether the receiver answered 2xx. */
  webhookDelivery(kind: WebhookKind, delivered: boolean): void {
    if (this.#on) this.#webhooks.inc({ kind, outcome: delivered ? 'delivered' : 'failed' });
  }

  /** Times a job's finishing write (see `store_write_seconds`), failed or not. */
  async storeWrite<T>(write: () => Promise<T>): Promise<T> {
    if (!this.#on) return write();
    const end = this.#storeWrite.startTimer();
    try {
      return await write();
    } finally {
      end();
    }
  }

  #jobFinished(job: JobRecord): void {
    const { action } = job;
    this.#jobs.inc({ action, outcome: job.status });
    const created = Date.parse(job.createdAt);
    const started = job.startedAt ? Date.parse(job.startedAt) : NaN;
    const finished = job.completedAt ? Date.parse(job.completedAt) : NaN;
    // Times come from the job's own record (the runner's clock); a job without a start shows neither figure.
    if (started >= created) this.#queueWait.observe({ action }, (started - created) / 1000);
    if (finished >= started) this.#run.observe({ action }, (finished - started) / 1000);
    if (job.status === 'COMPLETED' && job.chargedCredits > 0) this.#credits.inc(job.chargedCredits);
  }

  #samplePools(): void {
    // Reset first: a plugin disabled since the last scrape has no pool, and no threads to show.
    this.#poolThreads.reset();
    for (const [plugin, loaded] of this.plugins.plugins) {
      if (!loaded.pool) continue;
      const { busy, idle } = loaded.pool.threadStates();
      this.#poolThreads.set({ plugin, state: 'busy' }, busy);
      this.#poolThreads.set({ plugin, state: 'idle' }, idle);
    }
  }

  /** Both pool counters' collect: the first call of a scrape brings both up to date, the second adds nothing. */
  #syncPoolCounters(): void {
    for (const [plugin, loaded] of this.plugins.plugins) {
      const pool = loaded.pool;
      if (!pool) continue;
      const seen = this.#seen.get(pool) ?? { recycled: 0, crashes: 0 };
      this.#recycles.inc({ plugin }, pool.recycled - seen.recycled);
      this.#crashes.inc({ plugin }, pool.crashes - seen.crashes);
      this.#seen.set(pool, { recycled: pool.recycled, crashes: pool.crashes });
    }
  }
}
