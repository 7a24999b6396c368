// Where a node finds the jobs it runs: the embedded queue (one process, its own admissions) or a queue shared by the
// nodes of one PostgreSQL database (kernel/store/postgres/pg-job-queue.ts); the composition root picks one.
import type { JobLease } from './store/store.js';
import type { JobRecord } from './model.js';

/** What a queue asks of the node it feeds (the kernel wires it to the runner and the long-poll waiter). */
export interface JobQueueHost {
  /** Queues a job to run here when a slot is free; a job already waiting here is not queued twice. */
  enqueue(job: Pick<JobRecord, 'id' | 'pluginId' | 'orgId'>): void;
  /** Fails a job that was interrupted as often as it may start (INTERRUPTED), as a restart does. */
  interrupted(job: JobRecord): Promise<void>;
  /** Answers the long polls waiting for this job (or bulk job) id: it finished, perhaps on another node. */
  wake(id: string): void;
  /** Start-up recovery of a single node: every PROCESSING job was interrupted, every PENDING job is queued again. */
  recover(): Promise<{ requeued: number; failed: number }>;
}

export interface JobQueue {
  /** The lease a claim takes, or undefined when no other node could take a job over (the embedded store). */
  readonly lease: JobLease | undefined;
  /** Recovers what a previous run left and starts listening for work; resolves with what recovery found. */
  start(host: JobQueueHost): Promise<{ requeued: number; failed: number }>;
  /** Stops listening and renewing leases (after the runner drained: the jobs it gave up are taken over elsewhere). */
  stop(): Promise<void>;
}

/** One node on its own data dir: it runs what it admits, and on start resumes everything left unfinished. */
export class EmbeddedJobQueue implements JobQueue {
  readonly lease = undefined;

  start(host: JobQueueHost): Promise<{ requeued: number; failed: number }> {
    return host.recover();
  }

  async stop(): Promise<void> {}
}
