// Token bucket per API key (or token): `limit` requests per minute, refilled continuously; in memory, or shared in PostgreSQL.
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  resetSeconds: number;
  /** Seconds until one request is allowed (Retry-After), when refused. */
  retryAfterSeconds: number;
}

/**
 * Where the buckets are kept: in this process's memory (the embedded store: one server), or in the database every node
 * shares (PostgreSQL: one bucket per key across the deployment). `key` names the key or token by its id, never its secret.
 */
export interface RateLimiter {
  readonly limitPerMinute: number;
  readonly enabled: boolean;
  /** `limitPerMinute` (default the limiter's) is this bucket's size and refill rate; a key always takes with the same one. */
  take(key: string, limitPerMinute?: number): Promise<RateDecision>;
  /** Forgets buckets that have refilled completely (a full bucket and no bucket answer the same); the sweeper calls it. */
  prune(): Promise<void>;
  close(): Promise<void>;
}

/** The answer for a bucket holding `tokens` after this request was taken (or refused). */
export function rateDecision(limit: number, tokens: number, allowed: boolean): RateDecision {
  const perMs = limit / 60_000;
  return {
    allowed,
    limit,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((limit - tokens) / perMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)),
  };
}

interface Bucket {
  tokens: number;
  updatedMs: number;
  /** Its size, refilled in a minute. */
  limit: number;
}

/** The buckets in this process's memory: right for one server (the embedded store). */
export class MemoryRateLimiter implements RateLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly limitPerMinute: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.limitPerMinute > 0;
  }

  async take(key: string, limit = this.limitPerMinute): Promise<RateDecision> {
    const now = this.nowMs();
    const b = this.#buckets.get(key) ?? { tokens: limit, updatedMs: now, limit };
    b.tokens = Math.min(limit, b.tokens + ((now - b.updatedMs) * limit) / 60_000);
    b.updatedMs = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.#buckets.set(key, b);
    if (this.#buckets.size > 100_000) this.#prune(now);
    return rateDecision(limit, b.tokens, allowed);
  }

  async prune(): Promise<void> {
    this.#prune(this.nowMs());
  }

  async close(): Promise<void> {}

  #prune(now: number): void {
    for (const [k, b] of this.#buckets) {
      if (b.tokens + ((now - b.updatedMs) * b.limit) / 60_000 >= b.limit) this.#buckets.delete(k);
    }
  }
}
