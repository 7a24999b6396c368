// Request and result schemas of pdf.rotate; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

export const ANGLES = [90, 180, 270, -90, -180, -270] as const;

const RotateInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of the uploaded PDF to rotate (from POST /tools/files/upload).' }),
    angle: Type.Unsafe<(typeof ANGLES)[number]>({
      type: 'integer',
      enum: [...ANGLES],
      description: 'Degrees to turn the selected pages clockwise (negative: counter-clockwise); added to each page\'s current rotation.',
    }),
    pages: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 32, description: 'A page spec: `n`, `a-b` or `a-`; pages count from 1.' }), {
        minItems: 1,
        maxItems: 100,
        description: 'Pages to rotate; all pages when omitted. A page named by several specs is rotated once.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Rotate pages of a PDF.' },
);

const RotateResult = Type.Object(
  {
    rotatedPages: Type.Integer({ minimum: 0, description: 'Number of pages whose rotation was changed.' }),
    pageCount: Type.Integer({ minimum: 1, description: 'Pages in the PDF.' }),
  },
  { additionalProperties: false },
);

export const contract = {
  'pdf.rotate': { input: RotateInput, result: RotateResult },
};

export type RotateParams = Static<typeof RotateInput>;
export type RotateResultBody = Static<typeof RotateResult>;
