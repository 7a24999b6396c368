// Bulk renders: one saved document with up to 100 variable sets, given as JSON or as a CSV, JSON or XLSX file;
// their status with each item's, and one ZIP of every output.
import { rm } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { HttpError, type FieldError } from '../../contracts/errors.js';
import { BULK_FORMATS, BulkJobSchema, BulkRenderSchema, MAX_BULK_FILE_BYTES, MAX_BULK_ITEMS, type BulkFormat, type BulkRender } from '../../contracts/documents.js';
import { compileSchema, formatAjvErrors } from '../../contracts/schema.js';
import { WebhookSchema } from '../../contracts/common.js';
import { bulkTokenScope } from '../../services/download-links.js';
import { TableFileError } from '../../engines/tabular/read-items.js';
import { rowVariables, type BulkRequest } from '../../services/bulk-service.js';
import type { WebhookConfig } from '../../kernel/model.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { receiveUpload } from '../upload.js';
import { readJobWaiting, WAIT_QUERY } from '../long-poll.js';
import { sendJson } from '../problem.js';
import { sendBulkCreated } from '../job-created.js';
import { API_PREFIX } from '../paths.js';
import { downloadOrg, sendStoredFile } from './files.js';

const tag = 'Bulk rendering';
const ENDPOINT = 'POST /bulk-render';
const FILE_ENDPOINT = 'POST /bulk-render/file';
const FILE_FIELDS = ['documentId', 'format', 'webhook'] as const;
const checkWebhook = compileSchema(WebhookSchema);

async function create(ctx: RouteContext<BulkRender>): Promise<void> {
  const { documentId, format, items, webhook } = ctx.body;
  const request: BulkRequest = { documentId, items: items.map((variables) => ({ variables })), ...(format ? { format } : {}), ...(webhook ? { webhook } : {}) };
  await sendBulkCreated(ctx, await ctx.services.bulk.create(ctx.principal!.orgId, request, ENDPOINT));
}

/** The text parts of a file upload: `documentId`, optional `format`, optional `webhook` (JSON). */
function fileRequestFields(fields: Record<string, string>): Omit<BulkRequest, 'items'> {
  const errors: FieldError[] = [];
  const documentId = fields.documentId?.trim();
  if (!documentId) errors.push({ path: 'documentId', message: 'is required: the saved document to render (POST /documents)', code: 'INVALID_FIELD' });
  const format = fields.format?.trim().toUpperCase();
  if (format !== undefined && !(BULK_FORMATS as readonly string[]).includes(format)) errors.push({ path: 'format', message: `must be one of ${BULK_FORMATS.join(', ')}`, code: 'INVALID_FIELD' });
  let webhook: WebhookConfig | undefined;
  if (fields.webhook !== undefined) {
    try {
      const parsed: unknown = JSON.parse(fields.webhook);
      if (checkWebhook(parsed)) webhook = parsed as WebhookConfig;
      else errors.push(...formatAjvErrors(checkWebhook.errors, 'webhook'));
    } catch {
      errors.push({ path: 'webhook', message: 'must be a JSON object such as {"webhookUrl": "https://…"}', code: 'INVALID_FIELD' });
    }
  }
  if (errors.length) throw new HttpError('VALIDATION_FAILED', `The form fields of ${FILE_ENDPOINT} are invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`, errors);
  return { documentId: documentId!, ...(format ? { format: format as BulkFormat } : {}), ...(webhook ? { webhook } : {}) };
}

async function createFromFile(ctx: RouteContext): Promise<void> {
  const { kernel } = ctx;
  const tempPath = kernel.blobs.tempPath();
  try {
    const received = await receiveUpload(ctx.req, tempPath, MAX_BULK_FILE_BYTES, { fields: FILE_FIELDS, fieldSize: 16 * 1024 });
    const fields = fileRequestFields(received.fields);
    const bytes = await kernel.blobs.readTemp(tempPath);
    let rows;
    try {
      rows = await ctx.services.tables.read(bytes, MAX_BULK_ITEMS);
    } catch (err) {
      if (!(err instanceof TableFileError)) throw err;
      if (err.code === 'UNSUPPORTED_MEDIA_TYPE') throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `file: ${err.message}`);
      throw new HttpError('VALIDATION_FAILED', `file: ${err.message}`, [{ path: 'file', message: err.message, code: err.code === 'LIMIT_EXCEEDED' ? 'LIMIT_EXCEEDED' : 'INVALID_FILE' }]);
    }
    const items = rows.items.map((r) => ({ row: r.row, ...(r.error !== undefined ? { error: r.error } : { variables: rowVariables(r.values ?? {}) }) }));
    await sendBulkCreated(ctx, await ctx.services.bulk.create(ctx.principal!.orgId, { ...fields, items }, FILE_ENDPOINT));
  } finally {
    await rm(tempPath, { force: true });
  }
}

async function status(ctx: RouteContext): Promise<void> {
  const id = ctx.params.bulkJobId!;
  const bulk = await readJobWaiting(ctx, id, () => ctx.services.bulk.get(ctx.principal!.orgId, id));
  sendJson(ctx.res, 200, await ctx.services.bulk.view(bulk));
}

async function download(ctx: RouteContext): Promise<void> {
  const { kernel } = ctx;
  const id = ctx.params.bulkJobId!;
  const orgId = downloadOrg(ctx, bulkTokenScope(id), 'the bulk job');
  const bulk = await ctx.services.bulk.get(orgId, id);
  if (!bulk.outputFileId) throw new HttpError('NOT_FOUND', `Bulk render job ${id} has no ZIP: ${bulk.status === 'FAILED' ? `it failed (${bulk.error})` : 'it is not finished; poll GET /bulk-render/{bulkJobId}'}.`);
  const rec = await kernel.store.getFile(orgId, bulk.outputFileId);
  if (!rec || rec.expiresAt <= kernel.clock.now().toISOString()) throw new HttpError('NOT_FOUND', `The ZIP of bulk render job ${id} expired; render again.`);
  await sendStoredFile(ctx, rec, rec.filename);
}

const CREDITS_NOTE =
  `One render job per item (GET /render/{jobId}), run in turn with other organizations' renders. The credits of every item that can run must be available when the bulk job is created (402 otherwise); each item is charged when it completes, a failed item costs nothing. ` +
  'An item whose variables make an invalid document fails alone, with why; the others run. The bulk job is COMPLETED when every item has ended (`failedItems` says how many failed) and FAILED only when none rendered; then one `job.completed` (or `job.failed`) event with `jobType: "bulk-render"` goes to `webhook`.';

export function bulkRoutes(): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/bulk-render`,
      auth: 'key',
      idempotent: true,
      body: { mismatch: `The request body does not match ${ENDPOINT}.` },
      handler: create,
      doc: { tag, summary: `Render a saved document once per variable set (1 to ${MAX_BULK_ITEMS})`, description: CREDITS_NOTE, body: BulkRenderSchema, responses: { 202: BulkJobSchema } },
    },
    {
      method: 'POST',
      path: `${API_PREFIX}/bulk-render/file`,
      auth: 'key',
      idempotent: true,
      // No body rule: a multipart upload is read by its handler (server/upload.ts).
      handler: createFromFile,
      doc: {
        tag,
        summary: 'Render a saved document once per row of a CSV, JSON or XLSX file',
        description:
          `Multipart: \`file\` (CSV with a header row of variable names, a JSON array of objects, or XLSX (first sheet); at most ${MAX_BULK_ITEMS} rows and ${MAX_BULK_FILE_BYTES / 1024 / 1024} MiB; docs/bulk-file-format.md), ` +
          'text fields `documentId`, optional `format` (PDF, DOCX, ODT) and optional `webhook` (JSON). Dotted column names (`customer.name`, `items.0.qty`) and JSON cells build nested values. ' +
          `A row that cannot be read fails its item with its row number; a file of another type answers 415. ${CREDITS_NOTE}`,
        body: 'multipart-file',
        responses: { 202: BulkJobSchema },
      },
    },
    { method: 'GET', path: `${API_PREFIX}/bulk-render/:bulkJobId`, auth: 'key', handler: status, doc: { tag, summary: 'A bulk render job with the state of each item (poll, or wait with waitMs)', query: [WAIT_QUERY], responses: { 200: BulkJobSchema } } },
    {
      method: 'GET',
      path: `${API_PREFIX}/bulk-render/:bulkJobId/download`,
      auth: 'download',
      handler: download,
      doc: { tag, summary: 'The ZIP of every completed item (API key or the signed token of downloadUrl)', query: [{ name: 'token', description: 'Signed token from downloadUrl.', schema: Type.String() }], responses: { 200: 'application/zip' } },
    },
  ];
}
