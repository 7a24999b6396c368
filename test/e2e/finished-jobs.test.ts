// A finished job keeps only what its answers show of its request: a render's document is not held for the job's
// remaining life (a day by default), while GET /render/{id}, the job list and the tools job answers say what they said
// while it ran. The stored record is read from the embedded store's snapshot after a clean stop.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanup, ON_POSTGRES, OWNER_KEY, startServer, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { popplerOutput } from '../helpers/poppler.js';
import { startHttpsSite, type HttpsSite } from '../helpers/loopback-canary.js';

type Json = Record<string, any>;

const API = '/api/v1/dev';
const MARKER = 'Quarterly-figures-body-text-7f3a';

let server: RunningServer;
let api: ApiClient;
let stopped = false;

const config = (type: string) => ({ document: { type, filename: 'quarterly' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Figures' }, { type: 'text', text: MARKER }] }] });

let work: string;
let images: HttpsSite;
/** A loopback https server that has no image: every path answers 404 (a throw-away certificate Quire trusts). */
let missing: string;

test.before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'quire-finished-jobs-'));
  images = await startHttpsSite(work, (_req, res) => res.writeHead(404).end());
  missing = images.url;
  server = await startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true', NODE_EXTRA_CA_CERTS: images.certFile } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await images?.close();
  if (work) rmSync(work, { recursive: true, force: true });
  if (!server) return;
  if (!stopped) await server.stop();
  cleanup(server.dataDir);
});

test('finished renders and tools jobs answer as before; the stored record holds no document', async () => {
  const pdf = await api.post(`${API}/render?wait=60`, { config: config('pdf'), pdfProfile: 'standard' });
  assert.is(pdf.status, 200, JSON.stringify(pdf.body));
  const png = await api.post(`${API}/render/images?wait=60`, { config: config('pdf'), image: { format: 'png', dpi: 50, pages: ['1'] } });
  assert.is(png.status, 200, JSON.stringify(png.body));

  // The answers after the finish: everything the running job showed.
  const pdfJob: Json = (await api.request('GET', `${API}/render/${pdf.body.jobId}`)).body;
  assert.equal([pdfJob.status, pdfJob.format, pdfJob.filename, pdfJob.pdfProfile, pdfJob.image], ['COMPLETED', 'PDF', 'quarterly.pdf', 'standard', null]);
  const pngJob: Json = (await api.request('GET', `${API}/render/${png.body.jobId}`)).body;
  assert.equal([pngJob.status, pngJob.format, pngJob.filename], ['COMPLETED', 'PNG', 'quarterly.png']);
  assert.equal(pngJob.image, { format: 'png', dpi: 50, pages: ['1'], selectedPages: [1] });
  const listed: Json[] = (await api.request('GET', `${API}/jobs?limit=10`)).body.items;
  const row = listed.find((r) => r.id === pdf.body.jobId);
  assert.equal([row?.kind, row?.action, row?.status, row?.statusPath], ['render', 'render.pdf', 'COMPLETED', `/render/${pdf.body.jobId}`], 'the job list shows the render');
  const bytes = (await api.download(pdfJob.downloadUrl)).bytes;
  assert.match(await popplerOutput('pdftotext', [], bytes), MARKER, 'the output still holds the document');

  // A tools job: its answer shows its result and input ids, nothing of the request.
  const fileId = await api.uploadId(bytes, 'q.pdf');
  const split = await api.post(`${API}/tools/pdf/split`, { fileId, ranges: ['1'] });
  const splitJob = await api.waitForJob(split.body.id);
  assert.is(splitJob.status, 'COMPLETED');
  // A render that fails: its image answers 404 (a loopback server; private addresses allowed for this test).
  const broken = await api.post(`${API}/render?wait=60`, { config: { document: { type: 'docx', filename: 'broken' }, sections: [{ type: 'flow', content: [{ type: 'image', src: `${missing}/gone.png`, alt: 'gone' }] }] } });
  assert.is(broken.status, 200, JSON.stringify(broken.body));
  assert.equal([broken.body.status, broken.body.filename, broken.body.format], ['FAILED', 'broken.docx', 'DOCX']);
  assert.match(broken.body.error, /gone\.png|404/, 'the failure still says why');

  stopped = true;
  assert.is(await server.stop(), 0);
  if (ON_POSTGRES) return; // the records are rows of a database the harness owns; the answers above are the check
  const jobs: Record<string, Json> = JSON.parse(readFileSync(path.join(server.dataDir, 'quire.json'), 'utf8')).jobs;
  const stored = JSON.stringify(jobs);
  assert.not.ok(stored.includes(MARKER), 'no finished job keeps the document it rendered');
  assert.equal(jobs[pdf.body.jobId]!.params, { document: { document: { type: 'pdf', filename: 'quarterly' } }, pdfProfile: 'standard', createdAt: pdfJob.createdAt });
  assert.equal(jobs[png.body.jobId]!.params.image, { format: 'png', dpi: 50, pages: ['1'] });
  assert.equal(jobs[split.body.id]!.params, {}, 'a tools job keeps nothing of its request');
  assert.equal(jobs[broken.body.jobId]!.params, { document: { document: { type: 'docx', filename: 'broken' } }, pdfProfile: 'standard', createdAt: broken.body.createdAt }, 'a failed render too');
});

test.run();
