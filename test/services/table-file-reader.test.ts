// TableFileReader: reads bulk-render variables files in its own thread, returns refusals as TableFileError with their
// code and message, and kills a read that overruns its deadline without losing the next one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TableFileError } from '../../engines/tabular/read-items.js';
import { TableFileReader } from '../../services/table-file-reader.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/bulk/variables.xlsx', import.meta.url));
const utf8 = (s: string) => new TextEncoder().encode(s);

async function refusal(reader: TableFileReader, bytes: Uint8Array, maxItems: number): Promise<TableFileError> {
  try {
    await reader.read(bytes, maxItems);
  } catch (e) {
    assert.instance(e, TableFileError);
    return e as TableFileError;
  }
  return assert.unreachable('the file was read, but a refusal was expected') as never;
}

test('the reader returns the items read in its thread, and leaves the caller its bytes', async () => {
  const reader = new TableFileReader();
  try {
    const bytes = readFileSync(FIXTURE);
    const r = await reader.read(bytes, 10);
    assert.is(r.kind, 'xlsx');
    assert.equal(r.items[1], { index: 1, row: 4, values: { name: 'Bob', amount: 3, paid: false, due: '2025-12-31', double: 6, note: [1, 2] } });
    assert.equal(bytes, readFileSync(FIXTURE), 'the buffer given is neither moved nor changed');
    const csv = await reader.read(utf8('a.b,c\n1,2\n'), 10);
    assert.equal(csv, { kind: 'csv', items: [{ index: 0, row: 2, values: { a: { b: '1' }, c: '2' } }] });
  } finally {
    await reader.close();
  }
});

test('a file refused in the thread comes back as a TableFileError with its code and message', async () => {
  const reader = new TableFileReader();
  try {
    const limit = await refusal(reader, utf8('n\n1\n2\n3\n'), 2);
    assert.is(limit.code, 'LIMIT_EXCEEDED');
    assert.is(limit.message, 'the file has 3 rows; a bulk render takes at most 2');
    const header = await refusal(reader, utf8('__proto__.x\n1\n'), 2);
    assert.is(header.code, 'VALIDATION_FAILED');
    assert.match(header.message, 'reserved name __proto__');
    const pdf = await refusal(reader, utf8('%PDF-1.7\n%%EOF\n'), 2);
    assert.is(pdf.code, 'UNSUPPORTED_MEDIA_TYPE');
  } finally {
    await reader.close();
  }
});

test('a read past the deadline is stopped and refused with LIMIT_EXCEEDED, and the next file is read by a new thread', async () => {
  // The deadline counts from the request, a cold thread's start (about 0.3 s) included: 1 s leaves room for that.
  const reader = new TableFileReader({ timeoutMs: 1000 });
  try {
    // About 37 MB of CSV: some 5 s of parsing and nesting here, far past the deadline.
    const row = Array.from({ length: 20 }, (_, i) => `value number ${i}`).join(',');
    const header = Array.from({ length: 20 }, (_, i) => `group${i % 4}.field${i}`).join(',');
    const big = utf8(`${header}\n${`${row}\n`.repeat(120_000)}`);
    const started = performance.now();
    const e = await refusal(reader, big, 1_000_000);
    const took = performance.now() - started;
    assert.is(e.code, 'LIMIT_EXCEEDED');
    assert.match(e.message, 'the file took too long to read');
    assert.ok(took < 3000, `refused after ${Math.round(took)} ms, not after the whole read`);
    const next = await reader.read(utf8('a\n1\n'), 10);
    assert.equal(next.items, [{ index: 0, row: 2, values: { a: '1' } }]);
  } finally {
    await reader.close();
  }
});

test.run();
