// Bulk renders over HTTP for the bulk-render tests: a saved letter, polling a bulk job to its end, multipart uploads
// of variables files, and the ZIP and its entries read by independent readers (Python's zipfile, pdftotext,
// python-docx, odfpy).
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './quire-server.js';
import { popplerOutput } from './poppler.js';
import type { ApiClient, ApiResponse } from './api-client.js';

type Json = Record<string, any>;

const run = promisify(execFile);
export const BULK = '/api/v1/dev/bulk-render';

/** Saves `content` (Extended Markdown, `document.filename: letter`) as a document of the client's organization; its id. */
export async function saveLetter(api: ApiClient, content = 'Dear {{name}},\n\nthank you for your order.\n', extra: Json = {}): Promise<string> {
  const r = await api.post('/api/v1/dev/documents/markdown', { name: 'Letter', content, document: { filename: 'letter' }, ...extra });
  assert.is(r.status, 201, r.bytes.toString());
  return r.body.id;
}

/** Polls GET /bulk-render/{id} until the bulk job is COMPLETED or FAILED (bounded); its last view. */
export async function waitForBulk(api: ApiClient, bulkJobId: string, timeoutMs = 60_000): Promise<Json> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await api.get(`${BULK}/${bulkJobId}`);
    assert.is(r.status, 200, r.bytes.toString());
    if (r.body.status === 'COMPLETED' || r.body.status === 'FAILED') return r.body;
    if (Date.now() > end) throw new Error(`bulk render ${bulkJobId} still ${r.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** POST /bulk-render/file: `fields` as text parts and `file` (when given) as the file part, built by FormData. */
export async function postBulkFile(api: ApiClient, file: { bytes: Uint8Array | string; name: string } | null, fields: Record<string, string>): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([typeof file.bytes === 'string' ? file.bytes : (file.bytes as Uint8Array<ArrayBuffer>)]), file.name);
  const res = await fetch(`${api.baseUrl}${BULK}/file`, { method: 'POST', headers: api.key ? { 'X-API-Key': api.key } : {}, body: form });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body: bytes.length ? JSON.parse(bytes.toString('utf8')) : null, bytes };
}

async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-bulk-test-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every entry of the ZIP, by name, as Python's zipfile reads it (which also checks each entry's CRC). */
export async function zipEntries(zip: Buffer): Promise<Map<string, Buffer>> {
  return inTempDir(async (dir) => {
    const file = path.join(dir, 'bulk.zip');
    await writeFile(file, zip);
    const script = 'import base64, json, sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(json.dumps({n: base64.b64encode(z.read(n)).decode() for n in z.namelist()}))';
    const { stdout } = await run('/usr/bin/python3', ['-c', script, file], { maxBuffer: 256 << 20 });
    return new Map(Object.entries(JSON.parse(stdout) as Record<string, string>).map(([name, b64]) => [name, Buffer.from(b64, 'base64')]));
  });
}

/** Downloads the bulk job's ZIP through its signed downloadUrl, without an API key, and reads its entries. */
export async function downloadBulkZip(api: ApiClient, bulk: Json): Promise<Map<string, Buffer>> {
  assert.type(bulk.downloadUrl, 'string');
  const r = await api.withKey(null).download(bulk.downloadUrl);
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.headers.get('content-type'), 'application/zip');
  return zipEntries(r.bytes);
}

/** The text of a PDF (pdftotext), on one line. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  return (await popplerOutput('pdftotext', ['-enc', 'UTF-8'], bytes)).replace(/\s+/g, ' ').trim();
}

/** What a Python reader of the test helpers (docx-read.py, odt-read.py) prints about the file. */
export async function pythonRead(bytes: Uint8Array, kind: 'docx' | 'odt'): Promise<Json> {
  return inTempDir(async (dir) => {
    const file = path.join(dir, `out.${kind}`);
    await writeFile(file, bytes);
    const { stdout } = await run('/usr/bin/python3', [path.join(ROOT, `test/helpers/${kind}-read.py`), file], { maxBuffer: 64 << 20 });
    return JSON.parse(stdout) as Json;
  });
}

/** The charges of the organization's credit ledger (GET /credits), with its balance. */
export async function ledger(api: ApiClient): Promise<{ balance: number; charges: Array<{ jobId: string; amount: number }> }> {
  const r = await api.get('/api/v1/dev/credits');
  assert.is(r.status, 200);
  return { balance: r.body.balance, charges: r.body.entries.filter((e: { kind: string }) => e.kind === 'charge') };
}
