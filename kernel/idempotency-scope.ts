// The Idempotency-Key a request runs under: set by the HTTP layer around an idempotent route's handler, read by job admission.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface IdempotencyScope {
  orgId: string;
  key: string;
}

/**
 * Whatever a request's handler admits while this holds a scope is written with the key (`idempotencyKey` on the job or
 * bulk job, in the admission's own write), so a retry after the server died between admission and answer finds it.
 */
export const idempotencyScope = new AsyncLocalStorage<IdempotencyScope>();

/** The key of the current request when it is the organization's, else undefined. */
export function currentIdempotencyKey(orgId: string): string | undefined {
  const scope = idempotencyScope.getStore();
  return scope && scope.orgId === orgId ? scope.key : undefined;
}

/**
 * The testing knob QUIRE_FAILPOINT=after-admission (docs/configuration.md): the process kills itself with SIGKILL right
 * after an admission that carried an Idempotency-Key is durable, before the answer is written, as a crash would.
 */
export function failpointAfterAdmission(key: string | undefined): void {
  if (key !== undefined && process.env.QUIRE_FAILPOINT === 'after-admission') process.kill(process.pid, 'SIGKILL');
}
