// Dependency-injection tokens: what the composition root registers in the one tsyringe container, so tests can swap any of it.
export const TOKENS = {
  Config: Symbol.for('quire.Config'),
  Clock: Symbol.for('quire.Clock'),
  Store: Symbol.for('quire.Store'),
  Blobs: Symbol.for('quire.Blobs'),
  Logger: Symbol.for('quire.Logger'),
  Registry: Symbol.for('quire.Registry'),
  Events: Symbol.for('quire.Events'),
  Secrets: Symbol.for('quire.Secrets'),
  UrlPolicy: Symbol.for('quire.UrlPolicy'),
  FileInspector: Symbol.for('quire.FileInspector'),
  /** The RateLimiter (kernel/rate-limiter.ts): in memory with the embedded store, in the database with PostgreSQL. */
  RateLimiter: Symbol.for('quire.RateLimiter'),
  /** The data dir lock's release function (the kernel lets go of the data dir last when it stops). */
  DataDirLock: Symbol.for('quire.DataDirLock'),
  /** A JobQueue (kernel/job-queue.ts): how this node finds the jobs it runs, alone or with the other nodes of a database. */
  JobQueue: Symbol.for('quire.JobQueue'),
  /** A JobEventPayloads (kernel/job-event-payloads.ts): what a finished job's event says, decided above the kernel. */
  JobEventPayloads: Symbol.for('quire.JobEventPayloads'),
} as const;
