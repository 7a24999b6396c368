// Render jobs over HTTP for the output-format tests: a temporary image to draw, and create → wait → download.
import * as assert from 'uvu/assert';
import { createCanvas } from '@napi-rs/canvas';
import { OWNER_KEY } from './quire-server.js';
import type { ApiClient } from './api-client.js';
import { encodeCanvas } from '../../engines/image/encode-canvas.js';

type Json = Record<string, any>;

const RENDER = '/api/v1/dev/render';

/** A 40 × 30 PNG filled red. */
export async function redPng(): Promise<Buffer> {
  const canvas = createCanvas(40, 30);
  const g = canvas.getContext('2d');
  g.fillStyle = '#cc0000';
  g.fillRect(0, 0, 40, 30);
  return Buffer.from(await encodeCanvas(canvas, 'png'));
}

/** Uploads image bytes as a temporary image with the client's key (201) and returns its `/temp-image/…` path. */
export async function uploadTempImage(api: ApiClient, bytes: Uint8Array, filename: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  const res = await fetch(`${api.baseUrl}/api/v1/dev/images/upload`, { method: 'POST', headers: { 'X-API-Key': api.key ?? OWNER_KEY }, body: form });
  const body = (await res.json()) as Json;
  assert.is(res.status, 201, JSON.stringify(body));
  return body.path;
}

/** Uploads a 40 × 30 red PNG as a temporary image and returns its `/temp-image/…` path. */
export async function uploadRedPng(api: ApiClient): Promise<string> {
  return uploadTempImage(api, await redPng(), 'red.png');
}

/** Waits (long polling) until the render job finishes and returns its view. */
export async function waitForRender(api: ApiClient, jobId: string): Promise<Json> {
  const r = await api.get(`${RENDER}/${jobId}?waitMs=30000`);
  assert.is(r.status, 200, r.bytes.toString());
  if (r.body.status === 'COMPLETED' || r.body.status === 'FAILED') return r.body;
  throw new Error(`render ${jobId} still ${r.body.status}`);
}

/** Creates the job (202, in `format`), waits for it to complete, and downloads its file (of type `mimeType`). */
export async function renderAndDownload(api: ApiClient, pathname: string, body: Json, format: string, mimeType: string): Promise<{ job: Json; bytes: Buffer }> {
  const created = await api.post(pathname, body);
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.body.format, format);
  const job = await waitForRender(api, created.body.jobId);
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  const download = await api.download(job.downloadUrl);
  assert.is(download.status, 200);
  assert.is(download.headers.get('content-type'), mimeType);
  return { job, bytes: download.bytes };
}
