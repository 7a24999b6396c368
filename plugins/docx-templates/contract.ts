// Request and result schemas of docx.replace-placeholders; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

/** Variable names as placeholders can write them; `.` is kept for table columns (`{{items.price}}`). */
export const VARIABLE_NAME = '^[A-Za-z_][A-Za-z0-9_-]{0,99}$';

const TextValue = Type.String({ maxLength: 100_000, description: 'Text variable: replaces the placeholder; a line feed becomes a line break, a tab a tab.' });

const ImageValue = Type.Object(
  {
    type: Type.Literal('image'),
    src: Type.String({ format: 'uuid', description: 'Id of an image uploaded with POST /tools/files/upload: PNG, JPEG, GIF, BMP or SVG.' }),
    width: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 10_000, default: 200, description: 'Width in pixels (1/96 inch).' })),
    height: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 10_000, default: 200, description: 'Height in pixels (1/96 inch).' })),
    caption: Type.Optional(Type.String({ maxLength: 1000, description: 'Alternative text of the picture.' })),
  },
  { additionalProperties: false, description: 'Image variable: the placeholder becomes the picture, in line with the text.' },
);

const ListValue = Type.Object(
  {
    type: Type.Literal('list'),
    items: Type.Array(Type.String({ maxLength: 10_000 }), { maxItems: 1000 }),
    ordered: Type.Optional(Type.Boolean({ default: false, description: 'true: numbered `1.`, `2.`, …; false: bulleted `•`.' })),
  },
  { additionalProperties: false, description: 'List variable: one item per line with its prefix, in the formatting of the placeholder.' },
);

const TableValue = Type.Object(
  {
    type: Type.Literal('table'),
    rows: Type.Array(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 10_000 })), {
      maxItems: 10_000,
      description: 'One object per data row, mapping column names to text; the keys must equal the columns the template row uses.',
    }),
  },
  { additionalProperties: false, description: 'Table variable: the template row holding `{{<name>.<column>}}` placeholders is repeated once per row.' },
);

export const VariableValue = Type.Union([TextValue, ImageValue, ListValue, TableValue]);

const ReplaceInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of the uploaded DOCX or ODT template (from POST /tools/files/upload).' }),
    variables: Type.Record(Type.String({ pattern: VARIABLE_NAME }), VariableValue, {
      minProperties: 1,
      maxProperties: 1000,
      // A name placeholders cannot write (spaces, dots) is refused rather than silently never used.
      additionalProperties: false,
      description: 'Values of the placeholders `{{name}}` / `${name}`, by name: text, image, list or table (at least one entry).',
    }),
    outputFormat: Type.Optional(
      Type.Union([Type.Literal('pdf'), Type.Literal('docx'), Type.Literal('odt')], { description: 'Format of the output file; default: the format of the template. PDF and the other office format are made by LibreOffice.' }),
    ),
  },
  { additionalProperties: false, description: 'Fill the placeholders of a DOCX or ODT template.' },
);

const ReplaceResult = Type.Object(
  {
    replacedVariables: Type.Integer({ minimum: 0, description: 'Placeholders replaced (each occurrence, each table cell of each row).' }),
    outputFormat: Type.Union([Type.Literal('pdf'), Type.Literal('docx'), Type.Literal('odt')]),
    unresolvedPlaceholders: Type.Array(Type.String(), { description: 'Names of placeholders that no variable fills, in document order; they are left as they were.' }),
    unusedVariables: Type.Array(Type.String(), { description: 'Variables that no placeholder of the template uses.' }),
  },
  { additionalProperties: false },
);

export const contract = {
  'docx.replace-placeholders': { input: ReplaceInput, result: ReplaceResult },
};

export type ReplaceParams = Static<typeof ReplaceInput>;
export type ReplaceResultBody = Static<typeof ReplaceResult>;
export type VariableValueT = Static<typeof VariableValue>;
