// Runs a fast-check property and fails with the counterexample and the underlying error message (uvu does not print an error's cause).
import fc from 'fast-check';

export function check<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => void, numRuns: number): void {
  const details = fc.check(fc.property(arbitrary, predicate), { numRuns: Number(process.env.QUIRE_FC_RUNS ?? numRuns) });
  if (!details.failed) return;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`property failed after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath})\ncounterexample: ${JSON.stringify(details.counterexample)}\n${cause}`);
}
