// The job queue shared by the nodes of one PostgreSQL database: admissions and finishes told by NOTIFY, claims that lapse unless renewed, and a periodic check that takes back the jobs of a node that died.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { put, readAll, transaction } from './pg-rows.js';
import { FINISHED_CHANNEL, jobNotice, JOBS_CHANNEL } from './pg-jobs.js';
import type { JobQueue, JobQueueHost } from '../../job-queue.js';
import type { JobLease } from '../store.js';
import type { JobRecord } from '../../model.js';
import type { Logger } from '../../logger.js';


/**
 * Migration 0004: who runs a PROCESSING job and until when its claim holds; the check looks up lapsed claims by time.
 * A job left PROCESSING by a server from before leases has no owner to renew it: its claim has lapsed already.
 */
export const JOB_LEASES_SQL = `
ALTER TABLE jobs ADD COLUMN lease_owner text, ADD COLUMN lease_until timestamptz;
CREATE INDEX jobs_lease_until ON jobs (lease_until) WHERE status = 'PROCESSING';
UPDATE jobs SET lease_until = now() WHERE status = 'PROCESSING';
`;

/** How long the listener waits before connecting again after its connection was lost. */
const RECONNECT_MS = 1000;
/** Most lapsed claims one check takes back (the next check takes the rest). */
const CHECK_BATCH = 100;

export interface PgJobQueueSettings {
  jobLeaseSeconds: number;
  jobMaxAttempts: number;
}

export class PgJobQueue implements JobQueue {
  /** This process's claims: a new owner id per start, so a restarted node never renews what its previous run held. */
  readonly lease: JobLease;
  readonly #url: string;
  readonly #pool: pg.Pool;
  #host: JobQueueHost | undefined;
  #listener: pg.Client | undefined;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;

  constructor(
    url: string,
    private readonly settings: PgJobQueueSettings,
    private readonly log: Logger,
  ) {
    this.#url = url;
    this.lease = { owner: randomUUID(), ms: Math.round(settings.jobLeaseSeconds * 1000) };
    this.#pool = new pg.Pool({ connectionString: url, max: 2, options: '-c TimeZone=UTC' });
    this.#pool.on('error', () => undefined);
  }

  /**
   * Listens first, then checks: a job admitted in between is both announced and found, and queued once. The start-up
   * check is the periodic one: PROCESSING jobs may be running on other nodes, only lapsed claims are taken back.
   */
  async start(host: JobQueueHost): Promise<{ requeued: number; failed: number }> {
    this.#host = host;
    this.log.info({ node: this.lease.owner, leaseSeconds: this.lease.ms / 1000 }, 'job queue shared through PostgreSQL');
    await this.#listen();
    const found = await this.#check();
    // Renewals at a third of the lease: two may fail (a busy database, a slow event loop) before the claim lapses.
    this.#timer = setInterval(() => void this.#tick(), Math.max(100, Math.floor(this.lease.ms / 3)));
    this.#timer.unref();
    return found;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#ticking;
    await this.#listener?.end().catch(() => undefined);
    await this.#pool.end();
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url });
    let lost = false;
    const reconnect = () => {
      if (lost || this.#stopped) return;
      lost = true;
      this.log.warn({ node: this.lease.owner }, 'job queue lost its PostgreSQL listener; connecting again');
      void client.end().catch(() => undefined);
      setTimeout(() => void this.#relisten(), RECONNECT_MS).unref();
    };
    client.on('error', reconnect);
    client.on('end', reconnect);
    client.on('notification', (n) => this.#notified(n.channel, n.payload));
    await client.connect();
    await client.query(`LISTEN ${JOBS_CHANNEL}`);
    await client.query(`LISTEN ${FINISHED_CHANNEL}`);
    this.#listener = client;
  }

  /** Connects the listener again until it works; what was announced meanwhile the next check finds. */
  async #relisten(): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.#listen();
    } catch {
      setTimeout(() => void this.#relisten(), RECONNECT_MS).unref();
    }
  }

  #notified(channel: string, payload: string | undefined): void {
    if (!payload || !this.#host) return;
    if (channel === FINISHED_CHANNEL) return this.#host.wake(payload);
    try {
      const job = JSON.parse(payload) as { id: string; pluginId: string; orgId: string };
      this.#host.enqueue(job);
    } catch (err) {
      this.log.warn({ err, payload }, 'unreadable job notice ignored');
    }
  }

  #tick(): Promise<void> {
    if (this.#ticking || this.#stopped) return this.#ticking ?? Promise.resolve();
    this.#ticking = (async () => {
      try {
        await this.#renew();
        await this.#check();
      } catch (err) {
        this.log.warn({ err }, 'job queue check failed; trying again at the next one');
      } finally {
        this.#ticking = undefined;
      }
    })();
    return this.#ticking;
  }

  /** One statement renews every claim this node holds. */
  async #renew(): Promise<void> {
    await this.#pool.query("UPDATE jobs SET lease_until = now() + $2 * interval '1 millisecond' WHERE lease_owner = $1 AND status = 'PROCESSING'", [this.lease.owner, this.lease.ms]);
  }

  /**
   * Lapsed claims (their node died or lost the database): back to PENDING, announced, while attempts remain; otherwise
   * taken over by this node and failed INTERRUPTED, as a restart of a single node does. SKIP LOCKED: two nodes checking
   * at once never take back the same job. Then every PENDING job is queued here (a notice this node missed).
   */
  async #check(): Promise<{ requeued: number; failed: number }> {
    const host = this.#host!;
    const exhausted = await transaction(this.#pool, async (tx) => {
      const lapsed = await readAll<JobRecord>(tx, `SELECT data FROM jobs WHERE status = 'PROCESSING' AND lease_until < now() ORDER BY seq LIMIT ${CHECK_BATCH} FOR UPDATE SKIP LOCKED`);
      const exhausted: JobRecord[] = [];
      for (const job of lapsed) {
        if (job.attempts >= this.settings.jobMaxAttempts) {
          await tx.query("UPDATE jobs SET lease_owner = $2, lease_until = now() + $3 * interval '1 millisecond' WHERE id = $1", [job.id, this.lease.owner, this.lease.ms]);
          exhausted.push(job);
          continue;
        }
        await put(tx, 'jobs', { ...job, status: 'PENDING', progress: 0 });
        await tx.query('UPDATE jobs SET lease_owner = NULL, lease_until = NULL WHERE id = $1', [job.id]);
        await tx.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, jobNotice(job)]);
        this.log.warn({ jobId: job.id, attempts: job.attempts }, 'the claim on a running job lapsed (its node stopped); retrying');
      }
      return exhausted;
    });
    for (const job of exhausted) {
      await host.interrupted(job).catch((err: Error) => this.log.error({ err, jobId: job.id }, 'an interrupted job could not be failed'));
    }
    const pending = await readAll<Pick<JobRecord, 'id' | 'pluginId' | 'orgId'>>(
      this.#pool,
      "SELECT json_build_object('id', id, 'pluginId', data->>'pluginId', 'orgId', org_id) AS data FROM jobs WHERE status = 'PENDING' ORDER BY created_at, seq",
    );
    for (const job of pending) host.enqueue(job);
    return { requeued: pending.length, failed: exhausted.length };
  }
}
