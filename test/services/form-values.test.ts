// Form submissions read into typed values by field kind and checked against each field's rules: problems under the
// input's own name (table cells included), messages in the form's locale or its own words, images typed by content.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCanvas } from '@napi-rs/canvas';
import { checkSubmission, parseNumber, isDate, type RawSubmission } from '../../services/forms/form-values.js';
import type { FormField, FormRecord } from '../../kernel/model.js';
import { pngBomb } from '../helpers/public-form.js';

const LIMITS = { maxPixels: 50_000_000, maxSide: 20_000 };

function field(name: string, kind: FormField['kind'], more: Partial<FormField> = {}): FormField {
  return { name, kind, label: name[0]!.toUpperCase() + name.slice(1), help: null, placeholder: null, required: false, min: null, max: null, minLength: null, maxLength: null, pattern: null, patternMessage: null, choices: null, columns: null, minItems: null, maxItems: null, trueText: null, falseText: null, defaultValue: null, ...more };
}

function form(fields: FormField[], locale = 'en', labels: Record<string, string> = {}): Pick<FormRecord, 'fields' | 'locale' | 'labels'> {
  return { fields, locale, labels };
}

function raw(entries: Array<[string, string]>, files: Record<string, Buffer> = {}): RawSubmission {
  const fields = new Map<string, string[]>();
  for (const [k, v] of entries) fields.set(k, [...(fields.get(k) ?? []), v]);
  return { fields, files: new Map(Object.entries(files).map(([k, bytes]) => [k, [{ bytes, filename: `${k}.bin` }]])) };
}

function png(width: number, height: number): Buffer {
  return createCanvas(width, height).encodeSync('png');
}


test('every kind is read into its type; missing optional fields are left out and a checkbox is false', async () => {
  const f = form([
    field('name', 'text'),
    field('notes', 'textarea'),
    field('amount', 'number'),
    field('due', 'date'),
    field('agree', 'boolean'),
    field('size', 'choice', { choices: [{ value: 's', label: 'Small' }, { value: 'l', label: 'Large' }] }),
    field('tags', 'list'),
    field('items', 'table', { columns: [{ name: 'what', label: 'What', kind: 'text', required: false }, { name: 'qty', label: 'Qty', kind: 'number', required: false }] }),
    field('missing', 'text'),
    field('off', 'boolean'),
  ]);
  const r = await checkSubmission(
    f,
    raw([
      ['name', '  Ada  '],
      ['notes', 'one\r\ntwo\r\n'],
      ['amount', '3,5'],
      ['due', '2026-02-28'],
      ['agree', 'true'],
      ['size', 'l'],
      ['tags', 'a\n\n  b  \n'],
      ['items[2][what]', 'Pens'],
      ['items[2][qty]', '12'],
      ['items[0][what]', 'Paper'],
      ['items[0][qty]', ''],
      ['items[1][what]', ''],
      ['items[1][qty]', ' '],
    ]),
    LIMITS,
  );
  assert.equal(r.errors, []);
  assert.equal(r.values, { name: 'Ada', notes: 'one\ntwo', amount: 3.5, due: '2026-02-28', agree: true, size: 'l', tags: ['a', 'b'], items: [{ what: 'Paper', qty: '' }, { what: 'Pens', qty: 12 }], off: false });
});

test('problems are reported under the input name, table cells by row and column, with the row as the person sees it', async () => {
  const f = form([
    field('email', 'text', { required: true }),
    field('amount', 'number', { min: 1, max: 10 }),
    field('due', 'date', { min: '2026-01-01' }),
    field('items', 'table', { columns: [{ name: 'what', label: 'What', kind: 'text', required: true }, { name: 'qty', label: 'Qty', kind: 'number', required: false }] }),
  ]);
  const r = await checkSubmission(f, raw([['email', ' '], ['amount', '11'], ['due', '2025-12-31'], ['items[0][what]', 'Pens'], ['items[0][qty]', 'x'], ['items[5][what]', ''], ['items[5][qty]', '2']]), LIMITS);
  assert.equal(
    r.errors.map((e) => [e.name, e.message]),
    [
      ['email', 'Email: enter a value.'],
      ['amount', 'Amount: enter a number of at most 10.'],
      ['due', 'Due: enter a date on or after 2026-01-01.'],
      ['items[0][qty]', 'Items, row 1, Qty: enter a number, such as 12 or 3.5.'],
      ['items[5][what]', 'Items, row 2, What: enter a value.'],
    ],
  );
  assert.equal(r.values, {}, 'wrong values are left out (a preview shows the document’s own)');
});

test('a pattern must match the whole text with the u flag, and the owner’s message replaces the default', async () => {
  const f = form([field('code', 'text', { pattern: '[A-Z]{2}\\d{3}', patternMessage: 'Two capitals and three digits.' }), field('emoji', 'text', { pattern: '\\p{Emoji_Presentation}+' })]);
  const bad = await checkSubmission(f, raw([['code', 'XAB123'], ['emoji', 'ab']]), LIMITS);
  assert.equal(bad.errors.map((e) => e.message), ['Two capitals and three digits.', 'Emoji: the value is not in the expected format.']);
  const good = await checkSubmission(f, raw([['code', 'AB123'], ['emoji', '😀😀']]), LIMITS);
  assert.equal(good.values, { code: 'AB123', emoji: '😀😀' });
});

test('lengths count characters, choices must be offered, lists and rows keep to their bounds', async () => {
  const f = form([
    field('nick', 'text', { minLength: 3, maxLength: 5 }),
    field('size', 'choice', { choices: [{ value: 's', label: 'S' }] }),
    field('tags', 'list', { minItems: 2, maxItems: 3 }),
    field('rows', 'table', { maxItems: 1, columns: [{ name: 'a', label: 'A', kind: 'date', required: false }] }),
  ]);
  const r = await checkSubmission(f, raw([['nick', 'äöüßé!'], ['size', 'xl'], ['tags', 'one'], ['rows[0][a]', '2026-01-01'], ['rows[1][a]', '2026-02-30']]), LIMITS);
  assert.equal(r.errors.map((e) => e.name), ['nick', 'size', 'tags', 'rows[1][a]']);
  assert.match(r.errors[0]!.message, /at most 5 characters/);
  assert.match(r.errors[3]!.message, /YYYY-MM-DD/);
  const many = await checkSubmission(f, raw([['nick', 'äöü'], ['tags', 'a\nb\nc\nd'], ['rows[0][a]', '2026-01-01'], ['rows[1][a]', '2026-01-02']]), LIMITS);
  assert.equal(many.errors.map((e) => [e.name, e.message]), [['tags', 'Tags: enter at most 3 lines.'], ['rows', 'Rows: fill in at most 1 rows.']]);
  assert.equal(many.values, { nick: 'äöü' });
});

test('messages follow the form’s locale, and its labels replace any of them', async () => {
  const f = [field('betrag', 'number', { required: true, label: 'Betrag' })];
  assert.equal((await checkSubmission(form(f, 'de'), raw([]), LIMITS)).errors[0]!.message, 'Betrag: Bitte geben Sie einen Wert ein.');
  assert.equal((await checkSubmission(form(f, 'fr'), raw([]), LIMITS)).errors[0]!.message, 'Betrag : saisissez une valeur.');
  assert.equal((await checkSubmission(form(f, 'es'), raw([]), LIMITS)).errors[0]!.message, 'Betrag: introduzca un valor.');
  assert.equal((await checkSubmission(form(f, 'xx'), raw([]), LIMITS)).errors[0]!.message, 'Betrag: enter a value.');
  assert.equal((await checkSubmission(form(f, 'de', { 'error.required': 'Pflicht: {label}!' }), raw([]), LIMITS)).errors[0]!.message, 'Pflicht: Betrag!');
  const required = [field('agree', 'boolean', { required: true }), field('size', 'choice', { required: true, choices: [{ value: 'a', label: 'A' }] })];
  assert.equal((await checkSubmission(form(required), raw([]), LIMITS)).errors.map((e) => e.message), ['Agree: tick the box to continue.', 'Size: choose an option.']);
});

test('images are typed by their content: PNG/JPEG/WebP/GIF pass, SVG and text are refused, a header bomb is refused unread', async () => {
  const f = form([field('photo', 'image'), field('logo', 'image'), field('note', 'image'), field('bomb', 'image'), field('none', 'image', { required: true })]);
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
  const before = process.memoryUsage().rss;
  const r = await checkSubmission(f, raw([], { photo: png(30, 20), logo: svg, note: Buffer.from('not an image at all'), bomb: pngBomb(100_000, 100_000), none: Buffer.alloc(0) }), LIMITS);
  assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'the bomb was not decoded');
  assert.equal(Object.keys(r.uploads), ['photo']);
  assert.is(r.uploads.photo!.mimeType, 'image/png');
  assert.equal(
    r.errors.map((e) => [e.name, e.message]),
    [
      ['logo', 'Logo: the file is not a PNG, JPEG, WebP or GIF image.'],
      ['note', 'Note: the file is not a PNG, JPEG, WebP or GIF image.'],
      ['bomb', 'Bomb: the image is too large (100000 × 100000 pixels).'],
      ['none', 'None: choose an image file.'],
    ],
  );
  assert.equal(r.values, {}, 'images are never among the values: they go to submit as uploads');
});

test('numbers are read as people type them, dates must exist on the calendar', () => {
  assert.equal(['12', '-3.5', '3,5', '+.5', ' 7 '].map(parseNumber), [12, -3.5, 3.5, 0.5, 7]);
  assert.equal(['1e3', '1.000,5', 'abc', '', 'Infinity', '0x10'].map(parseNumber), [null, null, null, null, null, null]);
  assert.equal(['2024-02-29', '2026-02-29', '2026-13-01', '26-01-01', '2026-1-1'].map(isDate), [true, false, false, false, false]);
});

test.run();
