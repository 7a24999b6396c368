// Token bucket per API key (or token): `limit` requests per minute, refilled continuously.
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  resetSeconds: number;
  /** Seconds until one request is allowed (Retry-After), when refused. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #perMs: number;

  constructor(
    readonly limitPerMinute: number,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.#perMs = limitPerMinute / 60_000;
  }

  get enabled(): boolean {
    return this.limitPerMinute > 0;
  }

  take(key: string): RateDecision {
    const now = this.nowMs();
    const limit = this.limitPerMinute;
    const b = this.#buckets.get(key) ?? { tokens: limit, updatedMs: now };
    b.tokens = Math.min(limit, b.tokens + (now - b.updatedMs) * this.#perMs);
    b.updatedMs = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.#buckets.set(key, b);
    if (this.#buckets.size > 100_000) this.#prune(now);
    return {
      allowed,
      limit,
      remaining: Math.floor(b.tokens),
      resetSeconds: Math.ceil((limit - b.tokens) / this.#perMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / this.#perMs / 1000)),
    };
  }

  #prune(now: number): void {
    for (const [k, b] of this.#buckets) {
      if (b.tokens + (now - b.updatedMs) * this.#perMs >= this.limitPerMinute) this.#buckets.delete(k);
    }
  }
}
