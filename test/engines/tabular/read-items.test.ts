// The bulk-render variables reader through readItems: CSV (RFC 4180), JSON arrays and XLSX (a fixture written by Python's
// zipfile, not by exceljs), nested column names, hostile names, limits, zip bombs and files that are none of the three.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import { readItems, TableFileError, type ReadItemsResult } from '../../../engines/tabular/read-items.js';
import { bombXlsx } from '../../fixtures/bulk/bomb-xlsx.js';

const FIXTURE = fileURLToPath(new URL('../../../../test/fixtures/bulk/variables.xlsx', import.meta.url));
const utf8 = (s: string) => new TextEncoder().encode(s);
const read = (input: string | Uint8Array, maxItems = 100): Promise<ReadItemsResult> => readItems(typeof input === 'string' ? utf8(input) : input, { maxItems });

/** The TableFileError a read is refused with. */
async function refusal(input: string | Uint8Array, maxItems = 100): Promise<TableFileError> {
  try {
    await read(input, maxItems);
  } catch (e) {
    assert.instance(e, TableFileError);
    return e as TableFileError;
  }
  return assert.unreachable('the file was read, but a refusal was expected') as never;
}

// ---------------------------------------------------------------- CSV

test('a CSV with a BOM and CRLF line ends gives one item per row, named by the header, rows counted from the header as row 1', async () => {
  const r = await read('\ufeffname,city\r\nAda,Berlin\r\nBob,Paris\r\n');
  assert.is(r.kind, 'csv');
  assert.equal(r.items, [
    { index: 0, row: 2, values: { name: 'Ada', city: 'Berlin' } },
    { index: 1, row: 3, values: { name: 'Bob', city: 'Paris' } },
  ]);
});

test('quoted CSV fields keep their commas, doubled quotes and line breaks, and LF and CRLF may be mixed', async () => {
  const r = await read('name,note\n"Smith, Ada","she said ""hi"""\r\n"two\r\nlines",x\nlast,"a\nb"\n');
  assert.equal(r.items.map((i) => i.values), [
    { name: 'Smith, Ada', note: 'she said "hi"' },
    { name: 'two\r\nlines', note: 'x' },
    { name: 'last', note: 'a\nb' },
  ]);
  // A field with a line break is one spreadsheet row: the rows are 2, 3 and 4.
  assert.equal(r.items.map((i) => i.row), [2, 3, 4]);
});

test('a CSV row with a different number of fields is an error of that row, naming it, while the other rows are read', async () => {
  const r = await read('a,b,c,d\n1,2,3,4\n5,6,7,8\n1,2\n9,10,11\n1,2,3,4,5\n');
  assert.equal(r.items[0], { index: 0, row: 2, values: { a: '1', b: '2', c: '3', d: '4' } });
  assert.equal(r.items[2], { index: 2, row: 4, error: 'row 4: has 2 fields; the header has 4' });
  assert.equal(r.items[3], { index: 3, row: 5, error: 'row 5: has 3 fields; the header has 4' });
  assert.equal(r.items[4], { index: 4, row: 6, error: 'row 6: has 5 fields; the header has 4' });
});

test('empty CSV lines are skipped but still counted, so the row numbers match a spreadsheet', async () => {
  const r = await read('a,b\n\n1,2\n   \n,\n3,4\n\n');
  assert.equal(r.items, [
    { index: 0, row: 3, values: { a: '1', b: '2' } },
    { index: 1, row: 6, values: { a: '3', b: '4' } },
  ]);
});

test('CSV cells stay strings (no number guessing) and an empty cell leaves its variable unset', async () => {
  const r = await read('code,amount,flag,empty\n007,1e3,true,\n');
  assert.equal(r.items[0]!.values, { code: '007', amount: '1e3', flag: 'true' });
});

test('a header with an empty or a duplicate name is refused, naming the column', async () => {
  const empty = await refusal('a,,c\n1,2,3\n');
  assert.is(empty.code, 'VALIDATION_FAILED');
  assert.match(empty.message, 'column 2');
  const dup = await refusal('a,b,a\n1,2,3\n');
  assert.is(dup.code, 'VALIDATION_FAILED');
  assert.match(dup.message, 'column 1 and column 3');
});

test('a CSV with a header but no rows is refused, and so is an empty file', async () => {
  const noRows = await refusal('a,b\r\n\r\n');
  assert.is(noRows.code, 'VALIDATION_FAILED');
  assert.is(noRows.message, 'the file has a header but no rows');
  assert.is((await refusal('')).code, 'VALIDATION_FAILED');
});

test('a CSV with a broken quote is refused with the line csv-parse names', async () => {
  const e = await refusal('a,b\n1,"x"y\n');
  assert.is(e.code, 'VALIDATION_FAILED');
  assert.match(e.message, 'line 2');
});

// ---------------------------------------------------------------- nesting and JSON cells

test('dotted column names build nested objects and lists, numeric parts being list positions', async () => {
  const r = await read('customer.name,customer.address.city,items.0.name,items.0.qty,items.1.name\nAda,Berlin,Pen,2,Cup\n');
  assert.equal(r.items[0]!.values, {
    customer: { name: 'Ada', address: { city: 'Berlin' } },
    items: [{ name: 'Pen', qty: '2' }, { name: 'Cup' }],
  });
});

test('list positions whose cells are all empty are left out, and a list with none is unset', async () => {
  const r = await read('n,items.0.name,items.1.name,items.2.name\nfirst,,Cup,\nsecond,,,\n');
  assert.equal(r.items[0]!.values, { n: 'first', items: [{ name: 'Cup' }] });
  assert.equal(r.items[1]!.values, { n: 'second' });
});

test('a cell that parses as a JSON object or array becomes that value; one that does not stays text', async () => {
  const r = await read('obj,list,broken,quoted\n"{""a"": 1, ""b"": [true]}"," [1, 2] ",{not json,"[""x""]"\n');
  assert.equal(r.items[0]!.values, { obj: { a: 1, b: [true] }, list: [1, 2], broken: '{not json', quoted: ['x'] });
});

test('list positions with a gap, above 999 or with leading zeros are refused in the header', async () => {
  const gap = await refusal('items.0,items.2\n1,2\n');
  assert.is(gap.code, 'VALIDATION_FAILED');
  assert.match(gap.message, 'column 2 (items.2)');
  assert.match(gap.message, 'position 1');
  assert.match((await refusal('items.1000.name\nx\n')).message, 'at most 999');
  assert.match((await refusal('items.00\nx\n')).message, 'leading zeros');
  const thousand = Array.from({ length: 1000 }, (_, i) => `items.${i}`);
  const full = await read(`${thousand.join(',')}\n${thousand.map((_, i) => i).join(',')}\n`);
  assert.is((full.items[0]!.values!.items as unknown[]).length, 1000, 'positions 0 to 999 are accepted');
});

test('a column that is a value and also holds nested names is refused, naming both columns', async () => {
  for (const header of ['a,a.b', 'a.b,a']) {
    const e = await refusal(`${header}\n1,2\n`);
    assert.is(e.code, 'VALIDATION_FAILED');
    assert.match(e.message, 'column 1');
    assert.match(e.message, 'column 2');
    assert.match(e.message, '(a)');
    assert.match(e.message, '(a.b)');
  }
  const mixed = await refusal('x.0,x.name\n1,2\n');
  assert.match(mixed.message, 'both a list and an object');
});

test('__proto__, constructor and prototype are refused in column names and in JSON, and Object.prototype stays clean', async () => {
  for (const header of ['__proto__.polluted', 'a.__proto__.polluted', 'constructor.prototype.polluted', 'x.prototype', 'items.0.__proto__']) {
    const e = await refusal(`${header}\nyes\n`);
    assert.is(e.code, 'VALIDATION_FAILED', header);
    assert.match(e.message, 'reserved name');
  }
  const cell = await read('a\n"{""__proto__"": {""polluted"": true}}"\n');
  assert.match(cell.items[0]!.error!, /^row 2: .*__proto__/);
  const json = await read('[{"__proto__": {"polluted": true}}, {"a": {"constructor": {"prototype": {"polluted": 1}}}}]');
  assert.match(json.items[0]!.error!, /^row 1: .*__proto__/);
  assert.match(json.items[1]!.error!, /^row 2: .*a\.constructor/);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  assert.is((Object.prototype as Record<string, unknown>).polluted, undefined);
});

// ---------------------------------------------------------------- JSON

test('a JSON array of objects gives one item per element with its values as they are, nested included', async () => {
  const r = await read('\ufeff  \n[{"name": "Ada", "n": 7, "tags": ["a"], "x": {"y": null}}, {"code": "007"}]');
  assert.is(r.kind, 'json');
  assert.equal(r.items, [
    { index: 0, row: 1, values: { name: 'Ada', n: 7, tags: ['a'], x: { y: null } } },
    { index: 1, row: 2, values: { code: '007' } },
  ]);
});

test('a JSON element that is not an object is an error of that element, not of the file', async () => {
  const r = await read('[{"a": 1}, 42, "text", null, [1], {"b": 2}]');
  assert.equal(r.items[0]!.values, { a: 1 });
  assert.equal(r.items.slice(1, 5).map((i) => i.error), [
    'row 2: the element is a number, not an object of variables',
    'row 3: the element is a string, not an object of variables',
    'row 4: the element is null, not an object of variables',
    'row 5: the element is an array, not an object of variables',
  ]);
  assert.equal(r.items[5], { index: 5, row: 6, values: { b: 2 } });
});

test('JSON that does not parse, and an empty array, are refused', async () => {
  assert.is((await refusal('[{"a": 1},')).code, 'VALIDATION_FAILED');
  assert.is((await refusal('[]')).code, 'VALIDATION_FAILED');
});

// ---------------------------------------------------------------- limits

test('more rows than the limit is refused with LIMIT_EXCEEDED naming the limit and the count', async () => {
  const csv = 'n\n' + Array.from({ length: 101 }, (_, i) => `${i}\n`).join('');
  const e = await refusal(csv, 100);
  assert.is(e.code, 'LIMIT_EXCEEDED');
  assert.is(e.message, 'the file has 101 rows; a bulk render takes at most 100');
  assert.is((await read(csv, 101)).items.length, 101);
  const json = await refusal(JSON.stringify(Array.from({ length: 101 }, () => ({}))), 100);
  assert.is(json.code, 'LIMIT_EXCEEDED');
  assert.match(json.message, '101');
});

// ---------------------------------------------------------------- not one of the three

async function docxBytes(): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
  zip.file('word/document.xml', '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>');
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

test('binary data, a PDF, invalid UTF-8 and a ZIP that is not a workbook (a DOCX) are refused as unsupported, naming the three kinds', async () => {
  const inputs: Record<string, Uint8Array> = {
    png: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    pdf: utf8('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n'),
    'invalid UTF-8': new Uint8Array([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xc3, 0x28, 0x0a]),
    'NUL bytes': utf8('a,b\n1,\u00002\n'),
    docx: await docxBytes(),
  };
  for (const [what, bytes] of Object.entries(inputs)) {
    const e = await refusal(bytes);
    assert.is(e.code, 'UNSUPPORTED_MEDIA_TYPE', what);
    assert.match(e.message, 'CSV', what);
    assert.match(e.message, 'JSON', what);
    assert.match(e.message, 'XLSX', what);
  }
});

test('the kind is decided by content: JSON and CSV text are told apart by the first character', async () => {
  assert.is((await read(' \n\t[{"a": 1}]')).kind, 'json');
  assert.is((await read('a\n[1]\n')).kind, 'csv');
});

// ---------------------------------------------------------------- XLSX

test('an XLSX fixture gives typed values: numbers, booleans, ISO dates, formula results, hyperlink and rich text as text', async () => {
  const r = await read(readFileSync(FIXTURE));
  assert.is(r.kind, 'xlsx');
  assert.equal(r.items, [
    {
      index: 0,
      row: 2,
      values: {
        name: 'Ada',
        amount: 12.5,
        paid: true,
        due: '2026-03-01',
        stamp: '2026-03-01T14:30:05Z',
        double: 25,
        customer: { city: 'Berlin' },
        items: [{ name: 'Pen' }],
        site: 'Example site',
        code: '007',
        note: 'plain bold end',
      },
    },
    // Row 3 of the sheet is empty and skipped; empty cells leave their variables unset; a JSON cell is its value.
    { index: 1, row: 4, values: { name: 'Bob', amount: 3, paid: false, due: '2025-12-31', double: 6, note: [1, 2] } },
  ]);
});

/** A minimal workbook written with JSZip around the given sheetData (inline strings, no styles). */
async function sheetXlsx(sheetData: string): Promise<Uint8Array> {
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const sml = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
  const zip = new JSZip();
  zip.file('[Content_Types].xml', `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="${sml}.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="${sml}.worksheet+xml"/></Types>`);
  zip.file('_rels/.rels', `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
  zip.file('xl/workbook.xml', `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${rel}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`);
  zip.file('xl/_rels/workbook.xml.rels', `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`);
  zip.file('xl/worksheets/sheet1.xml', `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetData}</sheetData></worksheet>`);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

const str = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

test('an XLSX cell holding a spreadsheet error, or a value in a column the header does not name, is an error of its row', async () => {
  const bytes = await sheetXlsx(
    `<row r="1">${str('A1', 'a')}${str('B1', 'b')}${str('C1', '')}</row>` +
      `<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="e"><v>#DIV/0!</v></c></row>` +
      `<row r="3"><c r="A3"><v>2</v></c>${str('D3', 'stray')}</row>` +
      `<row r="4"><c r="A4"><v>3</v></c>${str('B4', '{"x": [1]}')}</row>`,
  );
  const r = await read(bytes);
  assert.equal(r.items, [
    { index: 0, row: 2, error: 'row 2: column 2 holds the spreadsheet error #DIV/0!' },
    { index: 1, row: 3, error: 'row 3: column 4 has a value but no name in the header' },
    // The blank header cell after the last name is not a column; a JSON cell is its value in XLSX too.
    { index: 2, row: 4, values: { a: 3, b: { x: [1] } } },
  ]);
});

test('an XLSX header follows the CSV header rules: a blank name between names is refused, naming the column', async () => {
  const e = await refusal(await sheetXlsx(`<row r="1">${str('A1', 'a')}${str('C1', 'c')}</row><row r="2"><c r="A2"><v>1</v></c></row>`));
  assert.is(e.code, 'VALIDATION_FAILED');
  assert.match(e.message, 'column 2');
});

test('an XLSX zip bomb (a 500 MB sheet of zeros) is refused with LIMIT_EXCEEDED quickly, without being inflated', async () => {
  const bomb = bombXlsx(500 * 1024 * 1024);
  // Python's zipfile, an independent reader, confirms what the archive claims: a sheet of 500 MiB in under 1 MB.
  const listing = execFileSync('/usr/bin/python3', ['-c', 'import sys, zipfile, io\nz = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))\nprint(" ".join(f"{i.filename}:{i.file_size}:{i.compress_size}" for i in z.infolist()))'], { input: bomb, encoding: 'utf8' }).trim();
  const sheet = listing.split(' ').find((s) => s.startsWith('xl/worksheets/sheet1.xml'))!.split(':');
  assert.is(Number(sheet[1]), 500 * 1024 * 1024);
  assert.ok(Number(sheet[2]) < 1024 * 1024, `compressed to ${sheet[2]} bytes`);
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const e = await refusal(bomb);
  assert.is(e.code, 'LIMIT_EXCEEDED');
  assert.ok(performance.now() - started < 1000, 'refused from the ZIP directory, before inflating');
  assert.ok(process.memoryUsage().rss - before < 100 * 1024 * 1024, 'nothing was inflated');
});

test('an XLSX whose sheet declares a small size but inflates far past it is refused with LIMIT_EXCEEDED at the declared size', async () => {
  const e = await refusal(bombXlsx(64 * 1024 * 1024, 4096));
  assert.is(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, 'declares');
});

test.run();
