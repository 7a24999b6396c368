// Page specs (`n`, `a-b`, `a-`) as the spec defines them for split ranges, page images and Lens.

export interface PageRange {
  /** 1-based, inclusive. */
  from: number;
  /** 1-based, inclusive; null means "to the last page". */
  to: number | null;
}

const SPEC = /^\s*(\d{1,9})\s*(?:(-)\s*(\d{1,9})?)?\s*$/;

/** Parses one spec; returns an error message naming the spec when it is malformed. */
export function parsePageSpec(spec: string): PageRange | { error: string } {
  const m = SPEC.exec(spec);
  if (!m) return { error: `"${spec}" is not a page spec; use n, a-b or a- (pages count from 1)` };
  const from = Number(m[1]);
  const to = m[2] ? (m[3] !== undefined ? Number(m[3]) : null) : from;
  if (from < 1) return { error: `"${spec}" starts at page 0; pages count from 1` };
  if (to !== null && to < from) return { error: `"${spec}" ends before it starts` };
  return { from, to };
}

/** Checks specs against a page count; returns one message per bad spec (empty when all are good). */
export function checkPageSpecs(specs: string[], pageCount: number | null): Array<{ index: number; message: string }> {
  const problems: Array<{ index: number; message: string }> = [];
  specs.forEach((spec, index) => {
    const r = parsePageSpec(spec);
    if ('error' in r) problems.push({ index, message: r.error });
    else if (pageCount !== null && (r.from > pageCount || (r.to !== null && r.to > pageCount))) {
      problems.push({ index, message: `"${spec}" is out of range; the document has ${pageCount} page${pageCount === 1 ? '' : 's'}` });
    }
  });
  return problems;
}

/** Resolves a valid spec to 0-based page indices of a document with `pageCount` pages. */
export function resolvePageSpec(spec: string, pageCount: number): number[] {
  const r = parsePageSpec(spec);
  if ('error' in r) throw new RangeError(r.error);
  const to = r.to ?? pageCount;
  if (r.from > pageCount || to > pageCount) throw new RangeError(`"${spec}" is out of range; the document has ${pageCount} pages`);
  const out: number[] = [];
  for (let p = r.from; p <= to; p++) out.push(p - 1);
  return out;
}
