// Images fetched over https at render time: drawn when they pass, and held to the upload's checks (type by
// content, pixel limits against decompression bombs, safe SVG, size) when they do not. The image server is an
// https server on loopback with a throw-away certificate that the Quire process trusts via NODE_EXTRA_CA_CERTS.
// test-stores: once (image fetching and its checks; its jobs reach the store as render.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import { startServer, OWNER_KEY, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { run } from '../helpers/golden.js';
import { startHttpsSite, type HttpsSite } from '../helpers/loopback-canary.js';

type Json = Record<string, any>;

const MAX_IMAGE_BYTES = 200_000;

let work: string;
let images: HttpsSite;
let base: string;
let server: RunningServer;
let api: ApiClient;

/** A PNG that is only a header: its IHDR claims width × height, which is all a size check reads. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const type = Buffer.from('IHDR');
  const chunk = Buffer.concat([Buffer.from([0, 0, 0, 13]), type, ihdr, Buffer.alloc(4)]);
  chunk.writeUInt32BE(crc32(Buffer.concat([type, ihdr])), 21);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk]);
}

function realPng(): Buffer {
  const canvas = createCanvas(64, 48);
  const g = canvas.getContext('2d');
  g.fillStyle = '#c0392b';
  g.fillRect(0, 0, 64, 48);
  return canvas.toBuffer('image/png');
}

test.before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'quire-remote-images-'));
  const bodies: Record<string, [string, Buffer]> = {
    '/ok.png': ['image/png', realPng()],
    // 10,000 × 6,000: each side is within the 20,000 side limit, the 60 megapixels are over the 50 allowed.
    '/bomb.png': ['image/png', pngHeader(10_000, 6_000)],
    '/script.svg': ['image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>')],
    '/large.png': ['image/png', Buffer.concat([realPng(), Buffer.alloc(MAX_IMAGE_BYTES)])],
    '/page.html': ['text/html', Buffer.from('<html><p>not an image</p></html>')],
  };
  images = await startHttpsSite(work, (req, res) => {
    const hit = bodies[req.url ?? ''];
    if (!hit) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', hit[0]);
    res.end(hit[1]);
  });
  base = images.url;
  server = await startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true', NODE_EXTRA_CA_CERTS: images.certFile, QUIRE_MAX_IMAGE_BYTES: String(MAX_IMAGE_BYTES) } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server?.stop();
  await images?.close();
  rmSync(work, { recursive: true, force: true });
});

async function renderImage(src: string): Promise<Json> {
  const config = { document: { type: 'pdf' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Picture:' }, { type: 'image', src, alt: 'A red rectangle' }] }] };
  const created = await api.post('/api/v1/dev/render', { config });
  assert.is(created.status, 202, created.bytes.toString());
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = (await api.get(`/api/v1/dev/render/${created.body.jobId}`)).body;
    if (job.status === 'COMPLETED' || job.status === 'FAILED') return job;
    if (Date.now() > deadline) throw new Error(`render still ${job.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('draws an image fetched over https', async () => {
  const job = await renderImage(`${base}/ok.png`);
  assert.is(job.status, 'COMPLETED', job.error);
  const pdf = await api.download(job.downloadUrl);
  const file = path.join(work, 'ok.pdf');
  writeFileSync(file, pdf.bytes);
  const list = (await run('pdfimages', ['-list', file])).toString();
  assert.match(list, /\s64\s+48\s/, list);
});

test('fails the job, naming the limit, for a fetched image over the pixel count (a decompression bomb)', async () => {
  const job = await renderImage(`${base}/bomb.png`);
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'INPUT_MISSING');
  assert.match(job.error, /10000 × 6000 pixels \(60 megapixels\)/);
  assert.match(job.error, /QUIRE_MAX_IMAGE_PIXELS/);
});

test('fails the job for a fetched SVG with a script, a file over the size limit, or a page that is not an image', async () => {
  const svg = await renderImage(`${base}/script.svg`);
  assert.is(svg.status, 'FAILED');
  assert.match(svg.error, /script/i);
  const large = await renderImage(`${base}/large.png`);
  assert.is(large.status, 'FAILED');
  assert.match(large.error, new RegExp(`larger than ${MAX_IMAGE_BYTES} bytes`));
  const html = await renderImage(`${base}/page.html`);
  assert.is(html.status, 'FAILED');
  assert.match(html.error, /PNG, JPEG, GIF, WebP or SVG/, html.error);
  const missing = await renderImage(`${base}/nothing.png`);
  assert.is(missing.status, 'FAILED');
  assert.match(missing.error, /404/);
  assert.is((await api.get('/readyz')).status, 200);
});

test.run();
