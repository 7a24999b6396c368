// Request and result schemas of pdf.metadata; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const MetadataSet = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 200 })),
    author: Type.Optional(Type.String({ maxLength: 100 })),
    subject: Type.Optional(Type.String({ maxLength: 200 })),
    keywords: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 10, description: 'Stored as one comma-separated string (`a, b`).' })),
    creator: Type.Optional(Type.String({ maxLength: 200, description: 'The application that made the original document.' })),
    producer: Type.Optional(Type.String({ maxLength: 200, description: 'The application that wrote the PDF.' })),
    creationDate: Type.Optional(Type.String({ format: 'date-time' })),
    modificationDate: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Document information to write; the job then returns the changed PDF (`metadata.pdf`). An XMP metadata stream, when the file has one, is updated to match.',
  },
);

const MetadataInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of the uploaded PDF (from POST /tools/files/upload).' }),
    set: Type.Optional(MetadataSet),
  },
  { additionalProperties: false, description: 'Read (and optionally set) the metadata of a PDF.' },
);

const PageSize = Type.Object(
  {
    pages: Type.String({ description: 'The pages of this size: a page spec (`n` or `a-b`).' }),
    width: Type.Number({ description: 'Width in points (1/72 in) of the visible area (CropBox, else MediaBox), before rotation.' }),
    height: Type.Number({ description: 'Height in points.' }),
    rotation: Type.Integer({ description: 'The pages\' /Rotate: 0, 90, 180 or 270.' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'A standard paper size within 1 pt (`A4`, `Letter`, …), either orientation; null otherwise.' }),
  },
  { additionalProperties: false },
);

const FormField = Type.Object(
  {
    name: Type.String(),
    type: Type.Union(['text', 'multilineText', 'checkbox', 'radio', 'dropdown', 'listbox', 'button', 'signature'].map((t) => Type.Literal(t))),
    options: Type.Union([Type.Array(Type.String()), Type.Null()]),
    value: Type.Union([Type.String(), Type.Boolean(), Type.Array(Type.String()), Type.Null()]),
  },
  { additionalProperties: false },
);

const MetadataResult = Type.Object(
  {
    title: nullableString('Document information /Title.'),
    author: nullableString('/Author.'),
    subject: nullableString('/Subject.'),
    keywords: nullableString('/Keywords, as stored.'),
    creator: nullableString('/Creator: the application that made the original document.'),
    producer: nullableString('/Producer: the application that wrote the PDF.'),
    creationDate: nullableString('/CreationDate as ISO 8601 (UTC).'),
    modificationDate: nullableString('/ModDate as ISO 8601 (UTC).'),
    pdfVersion: Type.String({ description: 'The version from the header, or the catalog\'s /Version when that is later, e.g. `1.7`.' }),
    pageCount: Type.Integer({ minimum: 0 }),
    pageSizes: Type.Array(PageSize, { description: 'Runs of consecutive pages with the same size and rotation.' }),
    encrypted: Type.Boolean(),
    tagged: Type.Boolean({ description: 'The catalog marks the document as tagged (/MarkInfo /Marked true).' }),
    pdfA: Type.Union(
      [Type.Object({ part: Type.Integer(), conformance: Type.Union([Type.String(), Type.Null()]), identifier: Type.String() }, { additionalProperties: false }), Type.Null()],
      { description: 'PDF/A identification claimed in the XMP metadata (pdfaid), e.g. `PDF/A-2b`; a claim, not a validation.' },
    ),
    pdfUA: Type.Union([Type.Object({ part: Type.Integer(), identifier: Type.String() }, { additionalProperties: false }), Type.Null()], {
      description: 'PDF/UA identification claimed in the XMP metadata (pdfuaid), e.g. `PDF/UA-1`.',
    }),
    formFields: Type.Array(FormField, { description: 'The AcroForm fields: fully qualified name, type, options and current value.' }),
    warnings: Type.Array(Type.String(), { description: 'What could not be read, e.g. the strings of an encrypted file.' }),
  },
  { additionalProperties: false },
);

export const contract = {
  'pdf.metadata': { input: MetadataInput, result: MetadataResult },
};

export type MetadataParams = Static<typeof MetadataInput>;
export type MetadataSetParams = Static<typeof MetadataSet>;
export type MetadataResultBody = Static<typeof MetadataResult>;
export type PageSizeRun = Static<typeof PageSize>;
