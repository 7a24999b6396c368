// Public shapes of the workspace's documents (DESIGN §8): saved document JSON, its Extended Markdown form, the
// permanent images it uses, rendering one by id, and bulk renders of one document with many variable sets.
import { Type, type Static } from '@sinclair/typebox';
import { WebhookSchema, JobStatusSchema } from './common.js';
import { ImageOptionsSchema, MARKDOWN_FIELDS, PdfProfileSchema } from './render.js';
import { StringEnum } from './document-json.js';

const Timestamp = Type.String({ format: 'date-time' });
const Issue = Type.Object({ path: Type.String(), message: Type.String(), code: Type.String() });

/** Most documents an organization keeps; the embedded store holds them in memory. */
export const MAX_DOCUMENTS_PER_ORG = 10_000;
/** Most variable sets in one bulk render (spec "Limits"). */
export const MAX_BULK_ITEMS = 100;
/**
 * Most bytes of document JSON one bulk render may queue (the document's size times its items): every item's job
 * holds its own copy of the document until it has run.
 */
export const MAX_BULK_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** Largest variables file of POST /bulk-render/file. */
export const MAX_BULK_FILE_BYTES = 10 * 1024 * 1024;

const Name = Type.String({ minLength: 1, maxLength: 200, description: 'A name to find the document by; default its `document.title`, else "Untitled document".' });
const StylePresetId = Type.String({ minLength: 1, maxLength: 200, description: 'A style preset (GET /styles) the document is rendered with, beneath its own `defaults`.' });

export const CreateDocumentSchema = Type.Object(
  {
    name: Type.Optional(Name),
    config: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Document JSON (docs/document-json.md), checked like POST /render. Give this or `templateId`.' })),
    templateId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "A productive workspace template (GET /templates) the document starts as a copy of; its name and style preset come along unless given." })),
    stylePresetId: Type.Optional(StylePresetId),
  },
  { additionalProperties: false, description: 'Saves document JSON, or a copy of a template; `/temp-image/` paths become permanent `/image/` assets.' },
);
export type CreateDocument = Static<typeof CreateDocumentSchema>;

const { content, document, variables, abbreviations, citations, defaults, style } = MARKDOWN_FIELDS;
export const CreateMarkdownDocumentSchema = Type.Object(
  { name: Type.Optional(Name), content, document, variables, abbreviations, citations, defaults, style, stylePresetId: Type.Optional(StylePresetId) },
  { additionalProperties: false, description: 'Saves Extended Markdown as a document: the request fields go over the front matter, as in POST /render/markdown.' },
);
export type CreateMarkdownDocument = Static<typeof CreateMarkdownDocumentSchema>;

export const UpdateDocumentSchema = Type.Object(
  {
    name: Type.Optional(Name),
    config: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Document JSON (docs/document-json.md), checked like POST /render.' })),
    stylePresetId: Type.Optional(Type.Union([StylePresetId, Type.Null()], { description: 'A style preset, or null for none.' })),
  },
  { additionalProperties: false, minProperties: 1, description: 'Replaces the fields given; the version goes up by one.' },
);
export type UpdateDocument = Static<typeof UpdateDocumentSchema>;

export const PatchMarkdownSchema = Type.Object(
  { markdown: Type.String({ description: 'The whole document as Extended Markdown (as GET /documents/{id}/markdown gives it); at most 1 MiB of UTF-8.' }) },
  { additionalProperties: false },
);
export type PatchMarkdown = Static<typeof PatchMarkdownSchema>;

const DocumentFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  version: Type.Integer({ minimum: 1, description: '1 when created; +1 on every change. Send it in If-Match to guard an update.' }),
  stylePresetId: Type.Union([Type.String(), Type.Null()]),
  type: Type.String({ description: '`config.document.type`: the format a render of the document gives by default.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const DocumentSummarySchema = Type.Object(DocumentFields);
export type DocumentSummary = Static<typeof DocumentSummarySchema>;

export const DocumentSchema = Type.Object({
  ...DocumentFields,
  config: Type.Object({}, { additionalProperties: true, description: 'The saved document JSON; its images are `/image/<asset_id>` paths or https URLs.' }),
  warnings: Type.Optional(Type.Array(Issue, { description: 'On create and update: unresolved references and other findings that did not block saving (errors with ?strict=true).' })),
});
export type DocumentView = Static<typeof DocumentSchema>;

export const DocumentListSchema = Type.Object({
  items: Type.Array(DocumentSummarySchema, { description: 'Newest first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
});

export const DocumentMarkdownSchema = Type.Object({
  documentId: Type.String({ format: 'uuid' }),
  markdown: Type.Union([Type.String(), Type.Null()], { description: 'The document as Extended Markdown; null when `format` is json_fallback.' }),
  format: StringEnum(['markdown', 'json_fallback'] as const),
  config: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'With json_fallback: the document JSON.' })),
  warning: Type.Optional(Type.String({ description: 'With json_fallback: what could not be written as Markdown.' })),
  version: Type.Integer({ minimum: 1 }),
  updatedAt: Timestamp,
});
export type DocumentMarkdown = Static<typeof DocumentMarkdownSchema>;

export const AssetSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  path: Type.String({ description: '/image/<id>, the `src` documents use.' }),
  mimeType: Type.String(),
  sizeBytes: Type.Integer(),
  createdAt: Timestamp,
});

// ---------------------------------------------------------------- render by id and bulk

export const DOCUMENT_RENDER_FORMATS = ['PDF', 'DOCX', 'ODT', 'PNG', 'JPEG'] as const;
export const BULK_FORMATS = ['PDF', 'DOCX', 'ODT'] as const;
export type BulkFormat = (typeof BULK_FORMATS)[number];

const Variables = Type.Object({}, { additionalProperties: true, description: "Variables that go over the document's own, name by name." });

export const RenderDocumentSchema = Type.Object(
  {
    variables: Type.Optional(Variables),
    format: Type.Optional(StringEnum(DOCUMENT_RENDER_FORMATS, { description: "Output format; default the document's `document.type`. PNG and JPEG give page images (see `image`)." })),
    image: Type.Optional(ImageOptionsSchema),
    pdfProfile: Type.Optional(PdfProfileSchema),
    stylePresetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "A style preset instead of the document's own." })),
    filloutId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The fill-out (form record) this render is of; shown on the job as `filloutId`.' })),
    webhook: Type.Optional(WebhookSchema),
  },
  { additionalProperties: false, description: 'Renders a saved document (a temporary render: the output expires).' },
);
export type RenderDocument = Static<typeof RenderDocumentSchema>;

export const BulkRenderSchema = Type.Object(
  {
    documentId: Type.String({ minLength: 1, maxLength: 100 }),
    format: Type.Optional(StringEnum(BULK_FORMATS, { description: "Output format of every item; default the document's `document.type`." })),
    items: Type.Array(Variables, { minItems: 1, maxItems: MAX_BULK_ITEMS, description: `Variable sets, one document each: 1 to ${MAX_BULK_ITEMS}.` }),
    webhook: Type.Optional(WebhookSchema),
  },
  { additionalProperties: false },
);
export type BulkRender = Static<typeof BulkRenderSchema>;

export const BulkJobSchema = Type.Object({
  bulkJobId: Type.String({ format: 'uuid' }),
  documentId: Type.String(),
  status: JobStatusSchema,
  format: StringEnum(BULK_FORMATS),
  totalItems: Type.Integer(),
  completedItems: Type.Integer(),
  failedItems: Type.Integer(),
  creditCost: Type.Number({ description: 'Credits of the items that can run (each charged when it completes).' }),
  createdAt: Timestamp,
  completedAt: Type.Union([Timestamp, Type.Null()]),
  webhookUrl: Type.Optional(Type.String()),
  downloadUrl: Type.Union([Type.String(), Type.Null()], { description: 'Signed, time-limited URL of one ZIP of every completed output; set when finished with at least one.' }),
  filename: Type.String({ description: 'Name of the ZIP download.' }),
  error: Type.Union([Type.String(), Type.Null()]),
  items: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 0 }),
      row: Type.Optional(Type.Integer({ minimum: 1, description: 'The row of the uploaded file (POST /bulk-render/file).' })),
      status: JobStatusSchema,
      jobId: Type.Union([Type.String(), Type.Null()], { description: 'The render job (GET /render/{jobId}); null when the item could not run.' }),
      filename: Type.Union([Type.String(), Type.Null()], { description: 'Its name in the ZIP.' }),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
export type BulkJob = Static<typeof BulkJobSchema>;
