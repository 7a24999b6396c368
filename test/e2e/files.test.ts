// Uploads: limits, type by content, safe filenames; downloads by token; expiry and the sweeper.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { OWNER_KEY, type RunningServer, storedBlobs, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { makePdf, notAPdf } from '../fixtures/pdfs.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started), { env: { QUIRE_MAX_UPLOAD_BYTES: String(200 * 1024), QUIRE_FILE_TTL_SECONDS: '3', QUIRE_SWEEP_INTERVAL_SECONDS: '0.5' } });

test('keeps an idle keep-alive connection 65 s and says so, longer than a proxy\'s usual 60 s', async () => {
  const agent = new http.Agent({ keepAlive: true });
  try {
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      http.get(`${server.baseUrl}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      }).on('error', reject);
    });
    assert.is(headers.connection, 'keep-alive');
    assert.is(headers['keep-alive'], 'timeout=65');
  } finally {
    agent.destroy();
  }
});

test('records an upload with its detected type, size, page count and expiry', async () => {
  const bytes = await makePdf(3);
  const r = await api.upload(bytes, 'report.pdf');
  assert.is(r.status, 201);
  assert.is(r.body.mimeType, 'application/pdf');
  assert.is(r.body.sizeBytes, bytes.length);
  assert.is(r.body.kind, 'INPUT');
  assert.is(r.body.sourceAction, null);
  assert.is(r.body.pageCount, 3);
  assert.is(r.body.filename, 'report.pdf');
  assert.ok(Date.parse(r.body.expiresAt) > Date.parse(r.body.createdAt));
  assert.is(r.headers.get('location'), `/api/v1/dev/tools/files/${r.body.id}`);
  const again = await api.get(`/api/v1/dev/tools/files/${r.body.id}`);
  assert.equal(again.body, r.body);
});

test('detects the type from the bytes, not the name', async () => {
  const png = await api.upload(notAPdf(), 'invoice.pdf');
  assert.is(png.body.mimeType, 'image/png');
  const pdf = await api.upload(await makePdf(1), 'picture.png');
  assert.is(pdf.body.mimeType, 'application/pdf');
  const text = await api.upload(new TextEncoder().encode('# Title\n\nSome text.\n'), 'notes.md');
  assert.is(text.body.mimeType, 'text/markdown');
});

test('answers 415 for content that is no accepted type', async () => {
  const exe = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, ...new Array(200).fill(0)]);
  const r = await api.upload(exe, 'tool.pdf');
  assert.is(r.status, 415);
  assert.is(r.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  assert.match(r.body.detail, 'application/pdf');
});

test('answers 413 for a file over the upload limit and stores nothing', async () => {
  const before = (await storedBlobs(server.dataDir)).length;
  const r = await api.upload(new Uint8Array(300 * 1024).fill(65), 'big.txt');
  assert.is(r.status, 413);
  assert.is(r.body.code, 'PAYLOAD_TOO_LARGE');
  assert.match(r.body.detail, String(200 * 1024));
  assert.is((await storedBlobs(server.dataDir)).length, before);
  assert.is(readdirSync(path.join(server.dataDir, 'tmp')).length, 0);
});

test('answers 400 for a missing file part, a wrongly named part and two files', async () => {
  const noFile = await fetch(`${server.baseUrl}/api/v1/dev/tools/files/upload`, { method: 'POST', headers: { 'X-API-Key': OWNER_KEY }, body: (() => { const f = new FormData(); f.append('note', 'x'); return f; })() });
  assert.is(noFile.status, 400);
  const wrong = await api.upload(await makePdf(1), 'a.pdf', 'document');
  assert.is(wrong.status, 400);
  assert.match(wrong.body.detail, '"file"');
  const two = new FormData();
  two.append('file', new Blob([new Uint8Array(await makePdf(1))]), 'a.pdf');
  two.append('file', new Blob([new Uint8Array(await makePdf(1))]), 'b.pdf');
  const r = await fetch(`${server.baseUrl}/api/v1/dev/tools/files/upload`, { method: 'POST', headers: { 'X-API-Key': OWNER_KEY }, body: two });
  assert.is(r.status, 400);
  const json = await fetch(`${server.baseUrl}/api/v1/dev/tools/files/upload`, { method: 'POST', headers: { 'X-API-Key': OWNER_KEY, 'Content-Type': 'application/json' }, body: '{}' });
  assert.is(json.status, 415);
});

test('never uses the client filename as a path', async () => {
  const r = await api.upload(await makePdf(1), '..\\..\\x/../../etc/passwd.pdf');
  assert.is(r.status, 201);
  assert.is(r.body.filename, 'passwd.pdf');
  const blobs = await storedBlobs(server.dataDir);
  assert.ok(blobs.includes(r.body.id));
  assert.ok(blobs.every((b) => /^[0-9a-f-]{36}$/.test(b)));
  const dl = await api.download(`${server.baseUrl}/api/v1/dev/tools/files/${r.body.id}/download`, true);
  assert.is(dl.status, 200);
  assert.match(dl.headers.get('content-disposition')!, 'attachment; filename="passwd.pdf"');
});

test('answers 400, without hanging, for a multipart body with a malformed part header', async () => {
  const body = Buffer.from('--XX\r\nContent-Disposition: form-data; name="file"; filename="a\u0000.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\r\n--XX--\r\n', 'latin1');
  const r = await fetch(`${server.baseUrl}/api/v1/dev/tools/files/upload`, {
    method: 'POST',
    headers: { 'X-API-Key': OWNER_KEY, 'Content-Type': 'multipart/form-data; boundary=XX' },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  assert.is(r.status, 400);
  assert.match((await r.json()).detail, 'malformed');
});

test('downloads with the API key, and refuses without key or token', async () => {
  const id = await api.uploadId(await makePdf(1), 'k.pdf');
  const url = `${server.baseUrl}/api/v1/dev/tools/files/${id}/download`;
  assert.is((await api.download(url, true)).status, 200);
  assert.is((await api.download(url, false)).status, 401);
  assert.is((await api.download(`${url}?token=forged.123.abc`, false)).status, 401);
});

test('expires files: 404 after their time, and the sweeper deletes their bytes', async () => {
  const id = await api.uploadId(await makePdf(1), 'short-lived.pdf');
  assert.is((await api.get(`/api/v1/dev/tools/files/${id}`)).status, 200);
  await new Promise((r) => setTimeout(r, 4000));
  const gone = await api.get(`/api/v1/dev/tools/files/${id}`);
  assert.is(gone.status, 404);
  assert.is(gone.body.code, 'NOT_FOUND');
  assert.not.ok((await storedBlobs(server.dataDir)).includes(id));
  const used = await api.post('/api/v1/dev/tools/pdf/rotate', { fileId: id, angle: 90 });
  assert.is(used.status, 404);
});

test.run();
