// Request and result schemas of the four Lens actions; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../contracts/document-json.js';

const FileId = Type.String({ format: 'uuid', description: 'Id of the uploaded document (PDF, DOCX, ODT or Markdown; from POST /tools/files/upload).' });
/** Which OCR engine reads scanned pages (pages without a text layer); the text layer never goes through OCR. */
export const OCR_ENGINES = ['auto', 'tesseract', 'paddle'] as const;
export type OcrEngine = (typeof OCR_ENGINES)[number];
const OcrEngineField = Type.Optional(
  StringEnum(OCR_ENGINES, {
    default: 'auto',
    description:
      'OCR engine for scanned pages: `paddle` PP-OCR v4 (PaddleOCR detection + recognition on onnxruntime), `tesseract` Tesseract LSTM, `auto` (default) the one docs/benchmarks.md chose by the receipts benchmark (currently PP-OCR). Pages are deskewed first whichever reads them.',
  }),
);
const PageSpecs = (what: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 32, description: 'A page spec: `n`, `a-b` or `a-`; pages count from 1.' }), { minItems: 1, maxItems: 100, description: what });

const OcrInput = Type.Object(
  {
    fileId: FileId,
    outputFormat: Type.Union([Type.Literal('md'), Type.Literal('mdd'), Type.Literal('json')], {
      description: '`md` standard Markdown (every input type); `mdd` Extended Markdown with document settings, defaults and the running header/footer, and `json` document JSON (PDF only).',
    }),
    pages: Type.Optional(PageSpecs('Pages to read (PDF with `md` only); all pages when omitted.')),
    ocrEngine: OcrEngineField,
  },
  { additionalProperties: false, description: 'Read a document as text: the PDF text layer in reading order, OCR (PP-OCR or Tesseract, see `ocrEngine`) for scanned pages.' },
);
const OcrResult = Type.Object(
  { outputFormat: Type.String(), content: Type.String({ description: 'The text: Markdown, Extended Markdown, or document JSON serialised as a string.' }) },
  { additionalProperties: false },
);

/** Which engine answered, added to the classify, extract and generate-filename results (extra to the spec's fields). */
const EngineFields = {
  engine: Type.Union([Type.Literal('builtin'), Type.Literal('llm')], { description: '`llm`: the operator\'s OpenAI-compatible endpoint answered (its answer checked against the document); `builtin`: the built-in engine did.' }),
  model: Type.Optional(Type.String({ description: 'The model that answered, when `engine` is `llm`.' })),
  fallbackReason: Type.Optional(Type.String({ description: 'Present when an endpoint is configured but the built-in engine answered: why (refused URL, timeout, HTTP error, invalid or unchecked answer, empty document).' })),
};

const ClassifyInput = Type.Object(
  {
    fileId: FileId,
    categories: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 2, maxItems: 50, description: 'The candidate categories (2 to 50); the answer is always one of them.' }),
    ocrEngine: OcrEngineField,
  },
  { additionalProperties: false, description: 'Pick the category that fits the document best (first 3 pages).' },
);
const ClassifyResult = Type.Object(
  {
    category: Type.String(),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    reasoning: Type.String({ description: 'The words or features that decided it, or why the answer is weak.' }),
    ...EngineFields,
  },
  { additionalProperties: false },
);

const FieldSpec = Type.Object(
  {
    type: Type.Union(['string', 'number', 'boolean', 'date', 'array'].map((t) => Type.Literal(t)), { description: 'Type of the value: `string`, `number`, `boolean`, `date` (ISO 8601) or `array` (of strings).' }),
    description: Type.Optional(Type.String({ maxLength: 500, description: 'What the field is; its words help find the value next to a matching label.' })),
  },
  { additionalProperties: false },
);
const ExtractInput = Type.Object(
  {
    fileId: FileId,
    fields: Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_ .-]{0,63}$' }), FieldSpec, { minProperties: 1, maxProperties: 30, description: 'The fields to find (1 to 30): name → {type, description?}.' }),
    pages: Type.Optional(PageSpecs('Pages to read (PDF only); without it, the first 50 pages.')),
    locale: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
        maxLength: 35,
        description: 'BCP 47 locale of the document (e.g. `en-MY`, `en-US`, `de-DE`): how to read a numeric date such as 09/01/2019 when nothing in the document decides (a part over 12 does). `en-US` and a few others read month first, every other locale day first. Without it: the currency or country in the document, else day first.',
      }),
    ),
    ocrEngine: OcrEngineField,
  },
  { additionalProperties: false, description: 'Extract typed field values from a document; a value is reported only with evidence in the text.' },
);
const ExtractResult = Type.Object(
  {
    data: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Array(Type.String()), Type.Null()])),
    fieldsMissing: Type.Array(Type.String(), { description: 'Every field not found (its value in `data` is null).' }),
    evidence: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([
          Type.Object(
            {
              page: Type.Integer({ minimum: 1, description: 'Page the value was read on (1-based, among the pages read).' }),
              text: Type.String({ description: 'The text the value was read from: its line (two lines when a label stands above its value or a name wraps).' }),
              box: Type.Optional(
                Type.Object(
                  { x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number() },
                  { additionalProperties: false, description: "The line's box in PDF points from the page's top-left corner (PDF pages only; OCR boxes on scans)." },
                ),
              ),
              rule: Type.String({ description: 'Why this value: the rule that chose it (a label on the same line, the legal form of a company, cash − change, the date order and why).' }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ]),
        { description: 'Per field, where its value was found (`null` for a missing field). The built-in engine answers with it; the LLM engine does not.' },
      ),
    ),
    ...EngineFields,
  },
  { additionalProperties: false },
);

const FilenameInput = Type.Object(
  {
    fileId: FileId,
    filenameSchema: Type.String({ minLength: 1, maxLength: 200, pattern: '\\{[A-Za-z_][A-Za-z0-9_]*\\}', description: 'The name with `{placeholder}` tags, e.g. `{date}_{vendor}_{invoice_number}`.' }),
    ocrEngine: OcrEngineField,
  },
  { additionalProperties: false, description: 'Fill a filename schema from the first 3 pages of a document.' },
);
const FilenameResult = Type.Object(
  {
    generatedFilename: Type.String({ description: 'The filled schema as a safe filename (no path separators or control characters).' }),
    placeholders: Type.Record(Type.String(), Type.String(), { description: 'Each placeholder → its value (`unknown` when not found).' }),
    ...EngineFields,
  },
  { additionalProperties: false },
);

export const contract = {
  'lens.ocr': { input: OcrInput, result: OcrResult },
  'lens.classify': { input: ClassifyInput, result: ClassifyResult },
  'lens.extract': { input: ExtractInput, result: ExtractResult },
  'lens.generate-filename': { input: FilenameInput, result: FilenameResult },
};

export type OcrParams = Static<typeof OcrInput>;
export type ClassifyParams = Static<typeof ClassifyInput>;
export type ExtractParams = Static<typeof ExtractInput>;
export type FieldSpecBody = Static<typeof FieldSpec>;
export type FilenameParams = Static<typeof FilenameInput>;
