// Runs a fast-check property and fails with the counterexample and the underlying error message (uvu does not print an error's cause).
// A property over large inputs can take hours to shrink once it fails; the time limit bounds the run, shrinking included, and
// counts an interrupted run as a failure, so that a slow or failing property reports instead of hanging the suite.
import fc from 'fast-check';

const TIME_LIMIT_MS = 90_000;

const settings = (numRuns: number) => ({ numRuns: Number(process.env.QUIRE_FC_RUNS ?? numRuns), interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: true });

export function check<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => void, numRuns: number): void {
  report(fc.check(fc.property(arbitrary, predicate), settings(numRuns)));
}

/** `check` for a predicate that awaits (a property over HTTP): the runs go one after another. */
export async function checkAsync<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, numRuns: number): Promise<void> {
  report(await fc.check(fc.asyncProperty(arbitrary, predicate), settings(numRuns)));
}

function report<T>(details: fc.RunDetails<[T]>): void {
  if (!details.failed) return;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`property failed${details.interrupted ? ` (interrupted after ${TIME_LIMIT_MS / 1000} s)` : ''} after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath})\ncounterexample: ${JSON.stringify(details.counterexample)}\n${cause}`);
}
