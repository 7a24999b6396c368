// text-stats through the public surface: the real server with the plugin in externalPlugins, and the kernel's run API (both from the SDK's testing export).
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startQuire, pluginRunner, type QuireClient, type QuireTestServer, type PluginRunner } from '../../sdk/testing.js';
import type { WorkerOutput } from '../../sdk/index.js';
import plugin from '../manifest.js';

/** The compiled manifest beside this compiled test (`dist/test/` → `dist/manifest.js`). */
const MANIFEST = path.join(path.dirname(fileURLToPath(import.meta.url)), '../manifest.js');
const ROUTE = '/api/v1/dev/tools/text/stats';

/** Counted here without the worker's code: UTF-8 lead bytes for characters, regex splits for words and lines. */
function expectedStats(bytes: Uint8Array): { lines: number; words: number; characters: number; bytes: number } {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let characters = 0;
  for (let i = start; i < bytes.length; i++) if ((bytes[i]! & 0xc0) !== 0x80) characters++;
  const text = Buffer.from(bytes.subarray(start)).toString('utf8');
  const words = text.split(/\s+/u).filter((w) => w !== '').length;
  const pieces = text.split(/\r\n|\r|\n/);
  const lines = text === '' ? 0 : /[\r\n]$/.test(text) ? pieces.length - 1 : pieces.length;
  return { lines, words, characters, bytes: bytes.length };
}

/** A 1×1 PNG: an upload of a type the action does not accept. */
const PNG = new Uint8Array(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const ascii = (n: number) => 'a'.repeat(n);

let server: QuireTestServer;
let api: QuireClient;
let pool: PluginRunner;

function runWorker(bytes: Uint8Array, filename = 'input.txt'): Promise<WorkerOutput> {
  const fileId = randomUUID();
  return pool.run('stats', { params: { fileId }, files: [{ field: 'fileId', fileId, filename, mimeType: 'text/plain', bytes }], settings: {} });
}

async function balance(): Promise<number> {
  return (await api.get('/api/v1/dev/credits')).body.balance as number;
}

test.before(async () => {
  server = await startQuire({ externalPlugins: [MANIFEST] });
  api = server.client;
  pool = await pluginRunner(plugin);
});

test.after(async () => {
  await pool.close();
  await server.stop();
});

test('counts lines, words, characters and bytes of an uploaded UTF-8 text file and charges 1 credit', async () => {
  const bytes = utf8('Héllo wörld\r\nsecond  line 😀\n\n\tlast line without a break');
  // Known by hand: 4 lines, 10 words, 55 characters; é, ö and 😀 take 2, 2 and 4 bytes, so 60 bytes.
  assert.equal(expectedStats(bytes), { lines: 4, words: 10, characters: 55, bytes: 60 });
  const fileId = await api.uploadId(bytes, 'sample.txt');
  assert.is((await api.get(`/api/v1/dev/tools/files/${fileId}`)).body.mimeType, 'text/plain');
  const before = await balance();

  const created = await api.post(ROUTE, { fileId });
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.action, 'text.stats');
  assert.is(created.body.status, 'PENDING');
  assert.is(created.body.creditCost, 1);
  assert.is(created.headers.get('location'), `/api/v1/dev/tools/jobs/${created.body.id}`);

  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result, expectedStats(bytes));
  assert.equal(job.metadata, job.result);
  assert.is(job.outputFileId, null);
  assert.not.ok('downloadUrl' in job);
  assert.equal(job.inputFileIds, [fileId]);
  assert.is(await balance(), before - 1);
});

test('counts a Markdown file of several decoding chunks with multi-byte characters across their boundaries', async () => {
  const paragraph = '# Überschrift\r\n\r\nZeile mit € und 😀 — ' + ascii(97) + '\rnoch eine\n';
  const text = paragraph.repeat(2_000) + 'Ende ohne Zeilenumbruch 漢字';
  const bytes = utf8(text);
  assert.ok(bytes.length > 3 * 64 * 1024, String(bytes.length));
  const fileId = await api.uploadId(bytes, 'long-notes.md');
  assert.is((await api.get(`/api/v1/dev/tools/files/${fileId}`)).body.mimeType, 'text/markdown');
  const job = await api.waitForJob((await api.post(ROUTE, { fileId })).body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result, expectedStats(bytes));
  assert.is(job.result.lines, 2_000 * 4 + 1);
});

test('does not count a leading byte order mark as a character', async () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('two words\n')]);
  const fileId = await api.uploadId(bytes, 'bom.txt');
  const job = await api.waitForJob((await api.post(ROUTE, { fileId })).body.id);
  assert.equal(job.result, { lines: 1, words: 2, characters: 10, bytes: 13 });
});

test('refuses at upload with 415 files whose first bytes are not UTF-8 text (UTF-16, Latin-1)', async () => {
  const utf16 = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00, 0x0a, 0x00]);
  const latin1 = new Uint8Array(Buffer.from('café crème brûlée\n', 'latin1'));
  for (const [bytes, name] of [[utf16, 'utf16.txt'], [latin1, 'latin1.txt']] as const) {
    const r = await api.upload(bytes, name);
    assert.is(r.status, 415, name);
    assert.is(r.body.code, 'UNSUPPORTED_MEDIA_TYPE', name);
  }
});

test('fails the job with a NOT_UTF8 message when invalid bytes lie past the part of the file the upload sniffs, charging nothing', async () => {
  // The upload sniffs only the first 4 KB; the byte 0xff after them makes the file invalid UTF-8.
  const bytes = new Uint8Array([...utf8(ascii(8_000)), 0xff, ...utf8(' tail\n')]);
  const fileId = await api.uploadId(bytes, 'mostly-ascii.txt');
  assert.is((await api.get(`/api/v1/dev/tools/files/${fileId}`)).body.mimeType, 'text/plain');
  const before = await balance();
  const job = await api.waitForJob((await api.post(ROUTE, { fileId })).body.id);
  assert.is(job.status, 'FAILED');
  assert.match(job.error, 'is not valid UTF-8 text');
  assert.match(job.error, 'mostly-ascii.txt');
  assert.is(job.result, null);
  assert.is(await balance(), before);
});

test('answers 415 at creation when the file is not text, and 400 naming the field for a body that breaks the contract', async () => {
  const png = await api.uploadId(PNG, 'picture.txt');
  const wrongType = await api.post(ROUTE, { fileId: png });
  assert.is(wrongType.status, 415);
  assert.is(wrongType.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  assert.match(wrongType.body.detail, 'text/plain, text/markdown');
  const bad = await api.post(ROUTE, { fileId: 'not-a-uuid', extra: 1 });
  assert.is(bad.status, 400);
  assert.is(bad.body.code, 'VALIDATION_FAILED');
  assert.equal(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['extra', 'fileId']);
});

test('publishes the route in the OpenAPI document and lists the plugin as an enabled third-party plugin', async () => {
  const doc = (await api.withKey(null).get('/api/v1/dev/openapi.json')).body;
  const op = doc.paths[ROUTE]?.post;
  assert.ok(op, Object.keys(doc.paths).join(', '));
  assert.is(op.summary, plugin.manifest.actions[0]!.summary);
  const props = op.requestBody.content['application/json'].schema.properties;
  assert.equal(Object.keys(props).sort(), ['fileId', 'webhook']);
  assert.ok(op.responses['202']);
  const listing = (await api.get('/api/v1/dev/plugins')).body.items.find((p: { id: string }) => p.id === 'text-stats');
  assert.equal(listing, {
    id: 'text-stats',
    version: '1.0.0',
    kind: 'tool',
    builtin: false,
    state: 'enabled',
    reason: null,
    missing: [],
    actions: [{ name: 'text.stats', route: ROUTE, credits: 1 }],
  });
});

test('the worker exports exactly the functions the manifest names', async () => {
  assert.equal(await pool.exports(), plugin.manifest.actions.map((a) => a.export));
});

test('fails with the declared code NOT_UTF8 through the kernel run API for UTF-16 bytes and a truncated sequence', async () => {
  assert.ok('NOT_UTF8' in plugin.manifest.errors);
  for (const bytes of [new Uint8Array([0xff, 0xfe, 0x00, 0x68, 0x00, 0x69]), new Uint8Array([...utf8('price: '), 0xe2, 0x82])]) {
    try {
      await runWorker(bytes, 'bad.txt');
      assert.unreachable('the worker should have failed');
    } catch (err) {
      assert.instance(err, Error);
      assert.is((err as Error & { code: string }).code, 'NOT_UTF8');
      assert.match((err as Error).message, 'bad.txt');
    }
  }
});

test('counts a character split across the 64 KB chunk boundary once, through the kernel run API', async () => {
  const bytes = utf8(ascii(64 * 1024 - 1) + '€ and 😀\n');
  // Computed first: the pool moves the bytes to the worker thread, leaving this buffer detached.
  const expected = expectedStats(bytes);
  const out = await runWorker(bytes);
  assert.is(out.file, undefined);
  assert.equal(out.result, expected);
  assert.equal(out.result, { lines: 1, words: 3, characters: 64 * 1024 - 1 + 8, bytes: 64 * 1024 - 1 + 13 });
});

test.run();
