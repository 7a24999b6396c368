// Request and result schemas of pdf.merge; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

const MergeInput = Type.Object(
  {
    fileIds: Type.Array(Type.String({ format: 'uuid', description: 'Id of an uploaded PDF (from POST /tools/files/upload).' }), {
      minItems: 2,
      maxItems: 50,
      description: 'The PDFs to merge, 2 to 50, in the order their pages should appear. The same id may appear more than once.',
    }),
  },
  { additionalProperties: false, description: 'Merge several PDFs into one, keeping the given order.' },
);

const MergeResult = Type.Object(
  {
    pageCount: Type.Integer({ minimum: 1, description: 'Pages in the merged PDF.' }),
    sourcePageCounts: Type.Array(Type.Integer({ minimum: 1, description: 'Pages taken from one input.' }), {
      description: 'Pages of each input, in the order of fileIds.',
    }),
  },
  { additionalProperties: false },
);

export const contract = {
  'pdf.merge': { input: MergeInput, result: MergeResult },
};

export type MergeParams = Static<typeof MergeInput>;
export type MergeResultBody = Static<typeof MergeResult>;
