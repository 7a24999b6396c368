// Public shapes of rendering: the request of POST /render, the render job, PDF profiles and compliance facts.
import { Type, type Static } from '@sinclair/typebox';
import { WebhookSchema } from './common.js';

export const PDF_PROFILES = ['standard', 'pdfa-1b', 'pdfa-2b', 'pdfa-3b', 'pdfua-1'] as const;
export type PdfProfile = (typeof PDF_PROFILES)[number];

export const PdfProfileSchema = Type.Union(PDF_PROFILES.map((p) => Type.Literal(p)), {
  description: 'PDF profile: standard, PDF/A-1b, PDF/A-2b, PDF/A-3b (archival) or PDF/UA-1 (accessible). Output is always tagged.',
});

export const RenderRequestSchema = Type.Object(
  {
    config: Type.Object({}, { additionalProperties: true, description: 'The document JSON to render (docs/document-json.md); `config.document.type` picks the output format.' }),
    pdfProfile: Type.Optional(PdfProfileSchema),
    stylePresetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "A style preset (GET /styles) beneath `config.defaults`, which overrides it field by field." })),
    webhook: Type.Optional(WebhookSchema),
  },
  { additionalProperties: false, description: 'A temporary render: nothing is saved, the output expires.' },
);

export const PdfComplianceSchema = Type.Object(
  {
    profile: PdfProfileSchema,
    tagged: Type.Boolean({ description: 'The PDF carries a structure tree (tagged PDF); always true.' }),
    pdfaPart: Type.Union([Type.Integer(), Type.Null()], { description: 'pdfaid:part found in the XMP metadata of the file, or null.' }),
    pdfaConformance: Type.Union([Type.String(), Type.Null()], { description: 'pdfaid:conformance found in the XMP metadata, or null.' }),
    pdfuaPart: Type.Union([Type.Integer(), Type.Null()], { description: 'pdfuaid:part found in the XMP metadata, or null.' }),
    pdfVersion: Type.String({ description: 'PDF version of the file, e.g. 1.7.' }),
  },
  { additionalProperties: false, description: 'What the produced file declares: the profile asked for, tagging, and the XMP identification markers present.' },
);
export type PdfCompliance = Static<typeof PdfComplianceSchema>;

const FieldIssue = Type.Object({ path: Type.String(), message: Type.String(), code: Type.String() });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const RenderFormatSchema = Type.Union(['PDF', 'DOCX', 'ODT', 'PNG', 'JPEG'].map((f) => Type.Literal(f)));

/** The creation answer of POST /render (spec: render-creating response) plus status fields of GET /render/{jobId}. */
export const RenderJobSchema = Type.Object({
  jobId: Type.String({ format: 'uuid' }),
  status: Type.Union(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'].map((s) => Type.Literal(s))),
  format: RenderFormatSchema,
  creditCost: Type.Number({ description: 'Credits charged when the job completes (nothing when it fails).' }),
  createdAt: Timestamp,
  downloadUrl: Type.Union([Type.String(), Type.Null()], { description: 'Signed, time-limited URL of the output; set when COMPLETED.' }),
  filename: Type.String({ description: 'File name of the download: document.filename plus the extension, or document.<ext>.' }),
  filloutId: Type.Union([Type.String(), Type.Null()], { description: 'Interactive-form fill-out id; null for renders of document JSON.' }),
  error: Nullable(Type.String()),
  errorCode: Nullable(Type.String({ description: 'Machine-readable code of the failure (docs/errors.md).' })),
  completedAt: Type.Union([Timestamp, Type.Null()]),
  progress: Type.Number({ minimum: 0, maximum: 100 }),
  pdfProfile: PdfProfileSchema,
  pdfCompliance: Type.Union([PdfComplianceSchema, Type.Null()], { description: 'Set when a PDF was produced.' }),
  pageCount: Type.Union([Type.Integer(), Type.Null()]),
  warnings: Type.Array(FieldIssue, { description: 'Unresolved references and other findings that did not block the render (errors with ?strict=true).' }),
});
export type RenderJob = Static<typeof RenderJobSchema>;

// ---------------------------------------------------------------- Extended Markdown

const Settings = (description: string) => Type.Optional(Type.Object({}, { additionalProperties: true, description }));

const MARKDOWN_FIELDS = {
  content: Type.String({ description: 'The document as Extended Markdown (docs/extended-markdown.md); at most 1 MiB of UTF-8.' }),
  document: Settings("Document settings (type, filename, title, author, subject, keywords, size, orientation, margins). They go over the front matter's `document`, field by field."),
  variables: Settings("Variables; each goes over the front matter's variable of the same name."),
  abbreviations: Settings("Abbreviations; each goes over the front matter's abbreviation of the same key."),
  citations: Type.Optional(Type.Array(Type.Unknown(), { description: "CSL-JSON items; an item replaces the front matter's item with the same id, the others are added." })),
  defaults: Settings('Styling (a `defaults` object of document JSON) over the front matter, the style preset and `style`, field by field.'),
  style: Settings('Styling like `defaults`, applied beneath `defaults` and over the front matter and the style preset.'),
  stylePresetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A style preset (GET /styles) beneath everything else: the front matter, `style` and `defaults` override it.' })),
  pdfProfile: Type.Optional(PdfProfileSchema),
  webhook: Type.Optional(WebhookSchema),
};

export const MarkdownRenderRequestSchema = Type.Object(MARKDOWN_FIELDS, {
  additionalProperties: false,
  description: 'Render Extended Markdown: the request fields go over the front matter (docs/extended-markdown.md#requests). A temporary render: nothing is saved, the output expires.',
});
export type MarkdownRenderRequest = Static<typeof MarkdownRenderRequestSchema>;

export const MarkdownValidateRequestSchema = Type.Object(MARKDOWN_FIELDS, {
  additionalProperties: false,
  description: 'The body of POST /render/markdown, checked without rendering; `webhook` is accepted and ignored.',
});

const SourceIssue = Type.Object({
  path: Type.String({ description: 'JSON path in the document the Markdown becomes (sections[0].content[3].text), a request field (document.title), or (markdown) for the whole source.' }),
  message: Type.String(),
  code: Type.String({ description: 'BROKEN_REFERENCE, UNDEFINED_CITATION, INVALID_DIRECTIVE, ... (docs/extended-markdown.md#errors-and-warnings).' }),
  line: Type.Optional(Type.Integer({ minimum: 1, description: 'Line in `content` (absent for a value taken from a request field).' })),
  column: Type.Optional(Type.Integer({ minimum: 1, description: 'Column in `content`.' })),
});

export const MarkdownValidationSchema = Type.Object({
  valid: Type.Boolean({ description: 'No errors: POST /render/markdown with the same body (and the same strict) renders.' }),
  errors: Type.Array(SourceIssue),
  warnings: Type.Array(SourceIssue, { description: 'Findings that do not block a render (unresolved references without strict, raw HTML shown as text, ...).' }),
});
export type MarkdownValidation = Static<typeof MarkdownValidationSchema>;
