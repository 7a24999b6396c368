// Interactive forms of saved documents and their records, by API key (DESIGN §8, docs/forms.md): create, list, read,
// change, delete, revoke, new link; records list, read, delete, export as CSV or JSON. The public page is elsewhere.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../contracts/errors.js';
import { CreateFormSchema, FormListSchema, FormSchema, RecordListSchema, RecordSchema, UpdateFormSchema, type CreateForm, type UpdateForm } from '../../contracts/forms.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { ifMatchOf, pageOf } from './documents.js';
import { recordsCsv } from '../../services/forms/form-export.js';

const forms = `${API_PREFIX}/forms`;
const oneForm = `${forms}/:formId`;
const records = `${API_PREFIX}/records`;
const orgOf = (ctx: RouteContext) => ctx.principal!.orgId;
const etag = (version: number) => ({ ETag: `"${version}"` });
const LIMIT_QUERY = { name: 'limit', description: 'Items per page, 1 to 200 (default 50).', schema: Type.Integer({ minimum: 1, maximum: 200 }) };
const CURSOR_QUERY = { name: 'cursor', description: 'The `nextCursor` of the previous page.', schema: Type.String() };
const BODY_LIMIT = 1024 * 1024;
const LINK_NOTE = 'The answer holds `publicUrl`, the public page with its signed token: anyone with it can fill the form (no API key).';

const noContent = (ctx: RouteContext) => {
  ctx.res.statusCode = 204;
  ctx.res.end();
};

/** `?format=` of the export: csv (default) or json. */
function exportQuery(ctx: RouteContext): { formId: string; format: 'csv' | 'json' } {
  const formId = ctx.query.get('formId');
  if (!formId) throw new HttpError('VALIDATION_FAILED', 'formId is required: the records of which form? (GET /documents/{documentId}/forms lists them).', [{ path: 'query.formId', message: 'is required', code: 'INVALID_FIELD' }]);
  const format = ctx.query.get('format') ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new HttpError('VALIDATION_FAILED', `format must be csv or json, not "${format}".`, [{ path: 'query.format', message: 'must be csv or json', code: 'INVALID_FIELD' }]);
  return { formId, format };
}

/** `?formId` and `?documentId` of the record list, with its page. */
function recordQuery(ctx: RouteContext) {
  const filter: { formId?: string; documentId?: string } = {};
  const formId = ctx.query.get('formId');
  const documentId = ctx.query.get('documentId');
  if (formId) filter.formId = formId;
  if (documentId) filter.documentId = documentId;
  return { filter, page: pageOf(ctx) };
}

export function formRoutes(): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/documents/:documentId/forms`,
      auth: 'key',
      idempotent: true,
      body: { mismatch: 'The request body does not match POST /documents/{documentId}/forms.', limit: BODY_LIMIT, optional: true },
      handler: async (ctx: RouteContext<CreateForm>) => {
        const form = await ctx.services.forms.create(orgOf(ctx), ctx.params.documentId!, ctx.body);
        sendJson(ctx.res, 201, form, { Location: `${forms}/${form.id}`, ...etag(form.version) });
      },
      doc: {
        tag: 'Forms',
        summary: "Make a public form of a saved document: one field per variable",
        description:
          "Each variable of the document's `config.variables` becomes a field (text, textarea, date, number, image, list, table, by its value), and so does each variable its text uses without declaring (text). " +
          '`fields` overrides them by name: kind, label, help, placeholder, required, bounds, pattern, choices, columns, or `include: false` (docs/forms.md); every problem answers 400 naming `fields[i].…`. ' +
          `A pattern must compile and must not backtrack catastrophically. \`expiresAt\` must be in the future. ${LINK_NOTE}`,
        body: CreateFormSchema,
        responses: { 201: FormSchema },
      },
    },
    {
      method: 'GET',
      path: `${API_PREFIX}/documents/:documentId/forms`,
      auth: 'key',
      preValidation: pageOf,
      handler: async (ctx, page: ReturnType<typeof pageOf>) => sendJson(ctx.res, 200, await ctx.services.forms.list(orgOf(ctx), ctx.params.documentId!, page)),
      doc: { tag: 'Forms', summary: "The document's forms, newest first (paged)", description: 'The forms of a deleted document are still listed (their pages answer 410).', query: [LIMIT_QUERY, CURSOR_QUERY], responses: { 200: FormListSchema } },
    },
    {
      method: 'GET',
      path: oneForm,
      auth: 'key',
      handler: async (ctx) => {
        const form = await ctx.services.forms.get(orgOf(ctx), ctx.params.formId!);
        sendJson(ctx.res, 200, form, etag(form.version));
      },
      doc: { tag: 'Forms', summary: 'A form with its fields, status and public link (ETag: its version)', responses: { 200: FormSchema } },
    },
    {
      method: 'PATCH',
      path: oneForm,
      auth: 'key',
      preValidation: ifMatchOf,
      body: { mismatch: 'The request body does not match PATCH /forms/{formId}.', limit: BODY_LIMIT },
      handler: async (ctx: RouteContext<UpdateForm>, ifMatch: number | undefined) => {
        const form = await ctx.services.forms.update(orgOf(ctx), ctx.params.formId!, ctx.body, ifMatch);
        sendJson(ctx.res, 200, form, etag(form.version));
      },
      doc: {
        tag: 'Forms',
        summary: 'Change a form: title, description, fields, expiry, rendering, page texts, limits',
        description:
          "`fields` derives the fields again from the document's current variables, with these overrides (400 when the document was deleted). `expiresAt: null` removes the expiry. " +
          'Send `If-Match: <version>` to refuse the change with 412 VERSION_CONFLICT if the form changed since you read it. The link stays the same.',
        body: UpdateFormSchema,
        responses: { 200: FormSchema },
      },
    },
    {
      method: 'DELETE',
      path: oneForm,
      auth: 'key',
      handler: async (ctx) => {
        await ctx.services.forms.delete(orgOf(ctx), ctx.params.formId!);
        noContent(ctx);
      },
      doc: { tag: 'Forms', summary: 'Delete a form with its records and their uploaded images', description: 'Its link answers 404 from then on. The document is not changed; render jobs made from its records stay until they expire.', responses: { 204: null } },
    },
    {
      method: 'POST',
      path: `${oneForm}/revoke`,
      auth: 'key',
      handler: async (ctx) => sendJson(ctx.res, 200, await ctx.services.forms.revoke(orgOf(ctx), ctx.params.formId!)),
      doc: { tag: 'Forms', summary: 'End the public link: the page answers 410 (status REVOKED)', description: 'POST …/rotate-token opens the form again under a new link. Its records stay.', responses: { 200: FormSchema } },
    },
    {
      method: 'POST',
      path: `${oneForm}/rotate-token`,
      auth: 'key',
      handler: async (ctx) => sendJson(ctx.res, 200, await ctx.services.forms.rotate(orgOf(ctx), ctx.params.formId!)),
      doc: { tag: 'Forms', summary: 'Give the form a new public link (and open it again if revoked)', description: `Every earlier link answers 404. ${LINK_NOTE}`, responses: { 200: FormSchema } },
    },
    {
      method: 'GET',
      path: records,
      auth: 'key',
      preValidation: recordQuery,
      handler: async (ctx, q: ReturnType<typeof recordQuery>) => sendJson(ctx.res, 200, await ctx.services.forms.listRecords(orgOf(ctx), q.filter, q.page)),
      doc: {
        tag: 'Records',
        summary: "The organization's records (submissions of its forms), newest first (paged)",
        description: 'Filter by `formId` (404 when the organization has no such form) or `documentId` (404 when it has neither the document nor records of it: records outlive their document).',
        query: [
          { name: 'formId', description: 'Only the records of this form.', schema: Type.String() },
          { name: 'documentId', description: "Only the records of this document's forms.", schema: Type.String() },
          LIMIT_QUERY,
          CURSOR_QUERY,
        ],
        responses: { 200: RecordListSchema },
      },
    },
    {
      method: 'GET',
      path: `${records}/export`,
      auth: 'key',
      preValidation: exportQuery,
      handler: async (ctx, q: ReturnType<typeof exportQuery>) => {
        const { form, records: all } = await ctx.services.forms.allRecords(orgOf(ctx), q.formId);
        const csv = q.format === 'csv';
        ctx.res.statusCode = 200;
        ctx.res.setHeader('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
        ctx.res.setHeader('Content-Disposition', `attachment; filename="records-${form.id}.${q.format}"`);
        ctx.res.setHeader('Cache-Control', 'no-store');
        ctx.res.end(csv ? recordsCsv(form, all) : JSON.stringify(all));
      },
      doc: {
        tag: 'Records',
        summary: "Every record of a form as a CSV or JSON file (attachment)",
        description:
          'CSV: a header row, then one row per record, newest first: `id`, `createdAt`, `jobId`, then one column per field. List items are one per line, tables JSON text, images their URL; ' +
          'a text cell starting with = + - @, a tab or a carriage return gets a leading apostrophe so that spreadsheets do not run it as a formula. JSON: an array of records as GET /records/{recordId} shows them.',
        query: [
          { name: 'formId', description: 'The form (required).', schema: Type.String(), required: true },
          { name: 'format', description: 'csv (default) or json.', schema: Type.Union([Type.Literal('csv'), Type.Literal('json')]) },
        ],
        responses: { 200: ['text/csv', 'application/json'] },
      },
    },
    {
      method: 'GET',
      path: `${records}/:recordId`,
      auth: 'key',
      handler: async (ctx) => sendJson(ctx.res, 200, await ctx.services.forms.getRecord(orgOf(ctx), ctx.params.recordId!)),
      doc: { tag: 'Records', summary: 'A record: its values, submitter, and the render it started', description: 'POST /render/document/{documentId} with `filloutId` = its id renders it again.', responses: { 200: RecordSchema } },
    },
    {
      method: 'DELETE',
      path: `${records}/:recordId`,
      auth: 'key',
      handler: async (ctx) => {
        await ctx.services.forms.deleteRecord(orgOf(ctx), ctx.params.recordId!);
        noContent(ctx);
      },
      doc: { tag: 'Records', summary: 'Delete a record and the images uploaded with it', responses: { 204: null } },
    },
  ];
}
