// A mistake in how the CLI was called (a missing setting, a bad --var): one line and exit code 2.
export class UsageError extends Error {
  override name = 'UsageError';
}
