// The operator API in tests: an operator key made by the admin CLI, and a real merge through a server, read back by qpdf.
import * as assert from 'uvu/assert';
import { admin } from './quire-server.js';
import type { ApiClient, ApiResponse } from './api-client.js';
import { makePdf } from '../fixtures/pdfs.js';
import { pdfPageTexts, qpdfCheck, qpdfPageCount } from '../fixtures/pdf-readers.js';

export const OPERATOR = '/api/v1/dev/operator';
export const MERGE = '/api/v1/dev/tools/pdf/merge';

/** `npm run admin -- key create --operator --name <name>` on the data dir (or the database `env` names). */
export async function createOperatorKey(dataDir: string, name: string, env: Record<string, string> = {}): Promise<{ id: string; key: string }> {
  const r = await admin(dataDir, ['key', 'create', '--operator', '--name', name], env);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.operator, true);
  return { id: r.json.id, key: r.json.key };
}

/** Merges a 2-page and a 3-page PDF through `api` and checks the output with qpdf: 5 pages, in order, no errors. */
export async function mergeAndCheck(api: ApiClient): Promise<void> {
  const first = await api.uploadId(await makePdf(2, { label: 'First' }), 'first.pdf');
  const second = await api.uploadId(await makePdf(3, { label: 'Second' }), 'second.pdf');
  const created = await api.post(MERGE, { fileIds: [first, second] });
  assert.is(created.status, 202, created.bytes.toString());
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  const pdf = await api.download(job.downloadUrl);
  assert.is(pdf.status, 200);
  assert.is(await qpdfPageCount(pdf.bytes), 5);
  const check = await qpdfCheck(pdf.bytes);
  assert.ok(check.ok, check.output);
  assert.equal((await pdfPageTexts(pdf.bytes)).map((t) => /(\w+) page (\d)/.exec(t)!.slice(1).join(' ')), ['First 1', 'First 2', 'Second 1', 'Second 2', 'Second 3']);
}

/** Asserts the answer is 404 PLUGIN_DISABLED naming the plugin. */
export function assertDisabled(r: ApiResponse, pluginId: string): void {
  assert.is(r.status, 404, r.bytes.toString());
  assert.is(r.body.code, 'PLUGIN_DISABLED');
  assert.match(r.body.detail, pluginId);
}
