// Rate limits shared by every node on one PostgreSQL database: one token bucket per key in `rate_buckets`, taken from
// in one atomic statement on the database's clock, so requests spread over any number of servers share one budget.
import pg from 'pg';
import { rateDecision, type RateDecision, type RateLimiter } from '../../rate-limiter.js';

/** The migration that creates the bucket table (migration 3 in kernel/store/postgres/migrations.ts). */
export const RATE_BUCKETS_SQL = `
CREATE TABLE rate_buckets (
  key text PRIMARY KEY,
  tokens double precision NOT NULL,
  updated_at timestamptz NOT NULL,
  allowed boolean NOT NULL
);
`;
// No index on updated_at: the table holds only the keys used in the last minute or so, and every request rewrites its
// row; an index would make each of those updates write it too, for a prune that runs once a minute.

/**
 * The bucket refilled up to now (the elapsed time read once, by clock_timestamp() in VALUES, so every column agrees;
 * a row a concurrent request wrote later than that reading counts as zero elapsed rather than negative).
 * $2 is the limit per minute, $3 the tokens added per second.
 */
const REFILLED = 'least($2::float8, b.tokens + greatest(0, extract(epoch FROM EXCLUDED.updated_at - b.updated_at)) * $3::float8)';

/**
 * One statement: a new key starts with a full bucket less this request; a known key's row is locked by the upsert, so
 * concurrent requests on any node take their tokens one after the other. `allowed` records whether this request got one.
 */
const TAKE_SQL = `
INSERT INTO rate_buckets AS b (key, tokens, updated_at, allowed)
VALUES ($1, $2::float8 - 1, clock_timestamp(), true)
ON CONFLICT (key) DO UPDATE SET
  tokens = CASE WHEN ${REFILLED} >= 1 THEN ${REFILLED} - 1 ELSE ${REFILLED} END,
  allowed = ${REFILLED} >= 1,
  updated_at = greatest(b.updated_at, EXCLUDED.updated_at)
RETURNING tokens, allowed`;

/** A bucket untouched for a minute is full whatever it held (the whole limit refills in 60 s): its row can go. */
const PRUNE_SQL = "DELETE FROM rate_buckets WHERE updated_at < clock_timestamp() - interval '60 seconds'";

export class PgRateLimiter implements RateLimiter {
  readonly #pool: pg.Pool;

  /** A small pool of its own: a request's rate check never queues behind file transfers or long transactions. */
  constructor(
    url: string,
    readonly limitPerMinute: number,
    options: { poolSize?: number } = {},
  ) {
    this.#pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 4 });
    // An idle connection the server closed is discarded by the pool; without a listener its error would end the process.
    this.#pool.on('error', () => undefined);
  }

  get enabled(): boolean {
    return this.limitPerMinute > 0;
  }

  async take(key: string, limit = this.limitPerMinute): Promise<RateDecision> {
    const { rows } = await this.#pool.query<{ tokens: number; allowed: boolean }>(TAKE_SQL, [key, limit, limit / 60]);
    return rateDecision(limit, rows[0]!.tokens, rows[0]!.allowed);
  }

  async prune(): Promise<void> {
    await this.#pool.query(PRUNE_SQL);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
