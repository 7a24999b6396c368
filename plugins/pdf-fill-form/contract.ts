// Request and result schemas of pdf.fill-form; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

const FillFormInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of the uploaded PDF with an AcroForm (from POST /tools/files/upload).' }),
    fields: Type.Record(
      Type.String({ minLength: 1, maxLength: 512 }),
      Type.Union([Type.String({ maxLength: 100_000 }), Type.Boolean()]),
      {
        minProperties: 1,
        maxProperties: 5000,
        description:
          'Field name (fully qualified, as `POST /tools/pdf/metadata` lists them) to value: a string for text fields, radio groups, dropdowns and list boxes (one of the options, except in an editable dropdown), a boolean for checkboxes.',
      },
    ),
    flatten: Type.Boolean({ default: false, description: 'Draw the fields into the pages and remove the form, so that the values can no longer be edited.' }),
  },
  { additionalProperties: false, description: 'Fill the form fields of a PDF.' },
);

const FillFormResult = Type.Object(
  {
    filledFields: Type.Array(Type.String(), { description: 'The fields that were set, in request order.' }),
    fieldCount: Type.Integer({ minimum: 0, description: 'Fields in the form.' }),
    flattened: Type.Boolean({ description: 'Whether the form was flattened (the output then has no fields).' }),
    xfaRemoved: Type.Boolean({ description: 'The PDF also carried an XFA form, which was removed so that viewers show the AcroForm values.' }),
    pageCount: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

export const contract = {
  'pdf.fill-form': { input: FillFormInput, result: FillFormResult },
};

export type FillFormParams = Static<typeof FillFormInput>;
export type FillFormResultBody = Static<typeof FillFormResult>;
