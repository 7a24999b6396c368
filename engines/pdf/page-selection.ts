// Resolves page specs against the real page count inside a worker, where it may differ from the count checked at job creation.
import { PluginError } from '../../sdk/plugin-api.js';
import { checkPageSpecs, resolvePageSpec } from '../../sdk/page-spec.js';

export const PAGE_SELECTION_ERRORS = {
  PAGE_OUT_OF_RANGE: 'A page spec names a page the document does not have; the message names the spec and the page count.',
  PAGE_SPEC_INVALID: 'A page spec is not of the form n, a-b or a- (pages count from 1).',
} as const;

/**
 * Resolves each spec of `field` to 0-based page indices, one list per spec. Throws PAGE_SPEC_INVALID
 * for a malformed spec and PAGE_OUT_OF_RANGE for one past the end, naming the spec (`ranges[2] "7-9"`).
 */
export function resolveSpecs(field: string, specs: string[], pageCount: number): number[][] {
  for (const problem of checkPageSpecs(specs, pageCount)) {
    const spec = specs[problem.index]!;
    const where = `${field}[${problem.index}]`;
    const malformed = checkPageSpecs([spec], null).length > 0;
    throw new PluginError(malformed ? 'PAGE_SPEC_INVALID' : 'PAGE_OUT_OF_RANGE', `${where}: ${problem.message}.`, { field: where, spec, pageCount });
  }
  return specs.map((spec) => resolvePageSpec(spec, pageCount));
}
