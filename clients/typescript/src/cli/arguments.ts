// Parsers of repeatable CLI options (--var k=v, --param k=v, --field name:type) and small output helpers.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './usage-error.js';

/** Collects a repeatable option's values in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `k=v` pairs as an object; values stay strings (a variable's text). */
export function keyValues(pairs: string[], option: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`${option} ${pair}: expected name=value`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** `k=v` pairs where a value that reads as JSON (90, true, ["1-2"]) is that JSON, else the text. */
export function jsonValues(pairs: string[], option: string): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(keyValues(pairs, option)).map(([k, v]) => {
      try {
        return [k, JSON.parse(v)];
      } catch {
        return [k, v];
      }
    }),
  );
}

/** Writes bytes to a file, making its folder. */
export function writeOutput(file: string, bytes: Uint8Array): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, bytes);
}

/** Rows as a left-aligned table with a header line. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
