// Request and result schemas of import.docx; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { DocumentJsonSchema } from '../../contracts/document-json.js';
import { REPORT_CODES } from './report.js';

const ImportDocxInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of an uploaded DOCX file (from POST /tools/files/upload).' }),
    placeholders: Type.Optional(
      Type.String({
        enum: ['variables', 'literal'],
        default: 'variables',
        description:
          '"variables" (default): {{name}} and ${name} in the Word text become live variables, written {{name}}, declared in the document\'s variables with an empty value and listed in report.variables. ' +
          '"literal": they stay literal text, escaped.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Import a Word (DOCX) file as document JSON.' },
);

const ReportCode = Type.String({ enum: Object.keys(REPORT_CODES), description: 'What happened; see docs/import.md for every code.' });

const ImportReportSchema = Type.Object(
  {
    score: Type.Integer({ minimum: 0, maximum: 100, description: '100 when everything was carried over; each warning costs points by its code (capped per code).' }),
    summary: Type.Object(
      {
        paragraphs: Type.Integer({ minimum: 0 }),
        headings: Type.Integer({ minimum: 0 }),
        lists: Type.Integer({ minimum: 0 }),
        tables: Type.Integer({ minimum: 0 }),
        images: Type.Integer({ minimum: 0 }),
        footnotes: Type.Integer({ minimum: 0 }),
        pageBreaks: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false, description: 'What the document holds after the import.' },
    ),
    warnings: Type.Array(
      Type.Object(
        {
          code: ReportCode,
          location: Type.String({ description: 'Part and position in the package, e.g. "word/document.xml paragraph 12" or "word/document.xml table 1 row 2 cell 3".' }),
          message: Type.String(),
        },
        { additionalProperties: false },
      ),
      { maxItems: 200, description: 'Findings one by one (the first 200).' },
    ),
    warningsOmitted: Type.Integer({ minimum: 0, description: 'Findings beyond the 200 listed.' }),
    dropped: Type.Array(Type.Object({ code: ReportCode, count: Type.Integer({ minimum: 1 }), meaning: Type.String() }, { additionalProperties: false }), {
      description: 'Every code that occurred, with its count: what was dropped, simplified or accepted.',
    }),
    variables: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'The variable name, as in {{name}}.' }),
          occurrences: Type.Integer({ minimum: 1, description: 'How many placeholders of this name the text, the header and the footer hold.' }),
        },
        { additionalProperties: false },
      ),
      { description: 'The placeholders made live variables, in order of first use; empty with placeholders "literal".' },
    ),
  },
  { additionalProperties: false },
);

const ImportDocxResult = Type.Object(
  {
    document: DocumentJsonSchema,
    report: ImportReportSchema,
  },
  { additionalProperties: false },
);

export const contract = {
  'import.docx': { input: ImportDocxInput, result: ImportDocxResult },
};

export type ImportDocxParams = Static<typeof ImportDocxInput>;
