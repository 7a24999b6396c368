// Per-form budgets of the public page (submissions per minute as each form sets it, previews at a fixed rate): the
// API's token buckets, in memory with the embedded store and in the shared table on PostgreSQL (every node one budget).
import { MemoryRateLimiter, type RateDecision, type RateLimiter } from '../../kernel/rate-limiter.js';
import { PgRateLimiter } from '../../kernel/store/postgres/pg-rate-limiter.js';

/** Previews of one form per minute (their own bucket): a person typing triggers one per pause. */
export const PREVIEWS_PER_MINUTE = 60;

export class FormRateLimits {
  /** One limiter per per-minute figure: a bucket's refill rate is its limiter's. */
  readonly #limiters = new Map<number, RateLimiter>();
  #lastPrune = Date.now();

  constructor(private readonly databaseUrl: string | undefined) {}

  #limiter(perMinute: number): RateLimiter {
    let limiter = this.#limiters.get(perMinute);
    if (!limiter) {
      // One connection each is enough: a take is one statement; forms share a handful of figures.
      limiter = this.databaseUrl ? new PgRateLimiter(this.databaseUrl, perMinute, { poolSize: 1 }) : new MemoryRateLimiter(perMinute);
      this.#limiters.set(perMinute, limiter);
    }
    return limiter;
  }

  async #take(key: string, perMinute: number): Promise<RateDecision> {
    const decision = await this.#limiter(perMinute).take(`${key}:${perMinute}`);
    if (Date.now() - this.#lastPrune > 60_000) {
      this.#lastPrune = Date.now();
      // On PostgreSQL they share one table: one prune empties it of full buckets for all.
      const limiters = [...this.#limiters.values()];
      for (const l of this.databaseUrl ? limiters.slice(0, 1) : limiters) void l.prune().catch(() => undefined);
    }
    return decision;
  }

  submission(formId: string, perMinute: number): Promise<RateDecision> {
    return this.#take(`form-submit:${formId}`, Math.max(1, perMinute));
  }

  preview(formId: string): Promise<RateDecision> {
    return this.#take(`form-preview:${formId}`, PREVIEWS_PER_MINUTE);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#limiters.values()].map((l) => l.close()));
    this.#limiters.clear();
  }
}
