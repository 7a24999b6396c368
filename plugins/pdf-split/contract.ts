// Request and result schemas of pdf.split; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

const SplitInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of the uploaded PDF to split (from POST /tools/files/upload).' }),
    ranges: Type.Array(Type.String({ minLength: 1, maxLength: 32, description: 'A page spec: `n` (one page), `a-b` (pages a to b inclusive) or `a-` (page a to the end); pages count from 1.' }), {
      minItems: 1,
      maxItems: 100,
      description: 'One output PDF per page spec, in this order. One spec gives a PDF; several give a ZIP with one PDF per spec.',
    }),
  },
  { additionalProperties: false, description: 'Split a PDF into page ranges.' },
);

const SplitPart = Type.Object(
  {
    range: Type.String({ description: 'The page spec as sent.' }),
    firstPage: Type.Integer({ minimum: 1, description: 'First page of the source in this part (1-based).' }),
    lastPage: Type.Integer({ minimum: 1, description: 'Last page of the source in this part (1-based, inclusive).' }),
    pageCount: Type.Integer({ minimum: 1, description: 'Pages in this part.' }),
    filename: Type.String({ description: 'Name of this part: the output file itself for one range, otherwise its entry in the ZIP.' }),
  },
  { additionalProperties: false },
);

const SplitResult = Type.Object(
  {
    sourcePageCount: Type.Integer({ minimum: 1, description: 'Pages in the source PDF.' }),
    parts: Type.Array(SplitPart, { description: 'One entry per range, in request order.' }),
  },
  { additionalProperties: false },
);

export const contract = {
  'pdf.split': { input: SplitInput, result: SplitResult },
};

export type SplitParams = Static<typeof SplitInput>;
export type SplitResultBody = Static<typeof SplitResult>;
