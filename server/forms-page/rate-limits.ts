// Per-form budgets of the public page (submissions per minute as each form sets it, previews at a fixed rate) and the
// editor's free previews per API key (POST /render/markdown/preview): the API's token buckets, in memory with the
// embedded store and in the shared table on PostgreSQL (every node one budget), whatever the general per-key limit is.
import { MemoryRateLimiter, type RateDecision, type RateLimiter } from '../../kernel/rate-limiter.js';
import { PgRateLimiter } from '../../kernel/store/postgres/pg-rate-limiter.js';

/** Previews of one form per minute (their own bucket): a person typing triggers one per pause. */
export const PREVIEWS_PER_MINUTE = 60;

export class FormRateLimits {
  /** One limiter for every form's buckets, each taken with its own per-minute figure. */
  readonly #limiter: RateLimiter;
  #lastPrune = Date.now();

  constructor(databaseUrl: string | undefined) {
    // One connection is enough: a take is one statement. The limiter's own figure is unused (every take names one).
    this.#limiter = databaseUrl ? new PgRateLimiter(databaseUrl, PREVIEWS_PER_MINUTE, { poolSize: 1 }) : new MemoryRateLimiter(PREVIEWS_PER_MINUTE);
  }

  async #take(key: string, perMinute: number): Promise<RateDecision> {
    // A form's figure can change (PATCH): the bucket is the figure's, so a new figure starts a full bucket.
    const decision = await this.#limiter.take(`${key}:${perMinute}`, perMinute);
    if (Date.now() - this.#lastPrune > 60_000) {
      this.#lastPrune = Date.now();
      void this.#limiter.prune().catch(() => undefined);
    }
    return decision;
  }

  submission(formId: string, perMinute: number): Promise<RateDecision> {
    return this.#take(`form-submit:${formId}`, Math.max(1, perMinute));
  }

  preview(formId: string): Promise<RateDecision> {
    return this.#take(`form-preview:${formId}`, PREVIEWS_PER_MINUTE);
  }

  /** POST /render/markdown/preview by the key or token `subject` (its id); `perMinute` 0 is no budget of its own. */
  markdownPreview(subject: string, perMinute: number): Promise<RateDecision> | null {
    return perMinute > 0 ? this.#take(`markdown-preview:${subject}`, perMinute) : null;
  }

  close(): Promise<void> {
    return this.#limiter.close();
  }
}
