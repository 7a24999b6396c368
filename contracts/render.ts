// Public shapes of rendering: the requests of POST /render and its page-image and Markdown variants, the render
// job, PDF profiles and compliance facts.
import { Type, type Static } from '@sinclair/typebox';
import { WebhookSchema } from './common.js';
import { DocumentSettingsSchema, StringEnum } from './document-json.js';

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

// ---------------------------------------------------------------- page images

export const IMAGE_FORMATS = ['png', 'jpeg'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
/** Resolution of page images: 150 dpi unless asked; below 36 pages are unreadable, above 600 too large. */
export const IMAGE_DPI = { default: 150, minimum: 36, maximum: 600 } as const;

export const ImageOptionsSchema = Type.Object(
  {
    format: Type.Optional(StringEnum(IMAGE_FORMATS, { default: 'png', description: 'png (lossless, default) or jpeg (quality 90, smaller for photos).' })),
    dpi: Type.Optional(
      Type.Number({ minimum: IMAGE_DPI.minimum, maximum: IMAGE_DPI.maximum, default: IMAGE_DPI.default, description: `Resolution in dots per inch (${IMAGE_DPI.minimum} to ${IMAGE_DPI.maximum}, default ${IMAGE_DPI.default}): a page is round(width in inches × dpi) pixels wide.` }),
    ),
    pages: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        minItems: 1,
        maxItems: 100,
        description: 'Page specs (`n`, `a-b`, `a-`; pages count from 1) selecting the pages to rasterise; default every page. Overlapping specs select a page once.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Page images of the PDF rendering: one selected page gives the image file, several a ZIP of page-<n>.png or page-<n>.jpg.' },
);
export type ImageOptions = Static<typeof ImageOptionsSchema>;

export const ImageRenderRequestSchema = Type.Object(
  { ...RenderRequestSchema.properties, image: Type.Optional(ImageOptionsSchema) },
  { additionalProperties: false, description: 'Page images of a temporary render: nothing is saved, the output expires.' },
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

// ---------------------------------------------------------------- render job input (service → render target)

/**
 * The fields of every render target's job input, built by the render service from a checked request:
 * the validated document, the PDF profile, and the job's creation time (`createdAt` says what it becomes in the output).
 */
export function renderJobFields(createdAt: string) {
  return {
    document: Type.Object({}, { additionalProperties: true, description: 'The validated document JSON (defaults filled in).' }),
    pdfProfile: PdfProfileSchema,
    createdAt: Type.String({ description: createdAt }),
  };
}

const RenderJobInputSchema = Type.Object(renderJobFields('Creation time of the job.'), { additionalProperties: false });
export type RenderJobInput = Static<typeof RenderJobInputSchema>;

/** The render-time notes of a render job's result (`description`: what kind of note the target gives). */
export function renderWarnings(description: string) {
  return Type.Array(FieldIssue, { description });
}
export type RenderWarning = Static<typeof FieldIssue>;
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

// ---------------------------------------------------------------- render targets

/** The formats document JSON renders to: the spec's `document.type` enum, read from its one definition. */
export const DOCUMENT_TYPES: readonly string[] = (DocumentSettingsSchema.properties.type as unknown as { enum: string[] }).enum;

/**
 * Every render target the public contract names: the document formats (POST /render picks one by
 * `config.document.type`) and the page-image formats (POST /render/images by `image.format`). Plugins provide
 * them (`ActionDeclaration.target`); the server checks at boot that no manifest declares a target outside this
 * list (services/render-service.ts, checkRenderTargets), since no request could name it.
 */
export const RENDER_TARGETS: readonly string[] = [...DOCUMENT_TYPES, ...IMAGE_FORMATS];

/** A render job's `format`: its target in capitals. */
export const RenderFormatSchema = Type.Union(RENDER_TARGETS.map((f) => Type.Literal(f.toUpperCase())));

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
  warnings: Type.Array(FieldIssue, { description: 'Unresolved references, characters no font can draw (GLYPH_MISSING) and other findings that did not block the render (errors with ?strict=true).' }),
  image: Type.Union(
    [
      Type.Object({
        format: StringEnum(IMAGE_FORMATS),
        dpi: Type.Number(),
        pages: Type.Array(Type.String(), { description: 'The page specs asked for (`["1-"]`, every page, when none were given).' }),
        selectedPages: Type.Union([Type.Array(Type.Integer({ minimum: 1 })), Type.Null()], { description: 'The pages rasterised, ascending; set when COMPLETED.' }),
      }),
      Type.Null(),
    ],
    { description: 'The page-image settings of POST /render/images and POST /render/markdown/images; null for other renders.' },
  ),
});
export type RenderJob = Static<typeof RenderJobSchema>;

// ---------------------------------------------------------------- Extended Markdown

const Settings = (description: string) => Type.Optional(Type.Object({}, { additionalProperties: true, description }));

/** The fields of an Extended Markdown request (POST /render/markdown); the document routes take a part of them. */
export const MARKDOWN_FIELDS = {
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

export const MarkdownImageRenderRequestSchema = Type.Object(
  { ...MARKDOWN_FIELDS, image: Type.Optional(ImageOptionsSchema) },
  { additionalProperties: false, description: 'Page images of rendered Extended Markdown: the body of POST /render/markdown plus `image`.' },
);

export const MarkdownPreviewRequestSchema = Type.Object(MARKDOWN_FIELDS, {
  additionalProperties: false,
  description: 'The body of POST /render/markdown, drawn at once as one page image (the editor preview); `pdfProfile` and `webhook` are accepted and ignored.',
});

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
