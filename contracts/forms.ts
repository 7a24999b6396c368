// JSON Schemas of interactive forms and their records (DESIGN §8, docs/forms.md): a form made from a saved document's
// variables, changed, revoked or given a new link; the records its public page stores, read and exported.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, VARIABLE_NAME_PATTERN } from './document-json.js';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

/** The kinds of field (kernel/model.ts FORM_FIELD_KINDS; contracts import nothing of the kernel). */
export const FIELD_KINDS = ['text', 'textarea', 'number', 'date', 'boolean', 'choice', 'image', 'list', 'table'] as const;
export const FORM_FORMATS = ['PDF', 'DOCX', 'ODT'] as const;
/** The languages of the page's own texts. */
export const FORM_LOCALES = ['en', 'de', 'fr', 'es'] as const;
/** Most fields a form has (a document has at most 500 variables). */
export const MAX_FORM_FIELDS = 500;
/** Longest text a field with a `pattern` accepts: the pattern runs on nothing longer. */
export const MAX_PATTERN_TEXT = 2000;

const VariableName = Type.String({ pattern: VARIABLE_NAME_PATTERN, description: "A variable of the document: the field's input name." });
const DateOrNumber = Type.Union([Type.Number(), Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), Type.Null()], { description: 'A number (number fields) or a YYYY-MM-DD date (date fields).' });
const Count = Type.Union([Type.Integer({ minimum: 0, maximum: 50_000 }), Type.Null()]);

const ChoiceSchema = Type.Object({ value: Type.String({ minLength: 1, maxLength: 500 }), label: Type.String({ minLength: 1, maxLength: 500 }) });
const ColumnSchema = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), label: Type.String({ minLength: 1, maxLength: 200 }), kind: StringEnum(['text', 'number', 'date'] as const), required: Type.Boolean() });

export const FieldOverrideSchema = Type.Object(
  {
    name: VariableName,
    include: Type.Optional(Type.Boolean({ description: 'false leaves the variable out of the form (it keeps the document\'s value).' })),
    kind: Type.Optional(StringEnum(FIELD_KINDS, { description: 'Text variables may be text, textarea, date, number, boolean or choice; numbers number, text or choice; images, lists and tables only themselves.' })),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    help: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    placeholder: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    required: Type.Optional(Type.Boolean()),
    min: Type.Optional(DateOrNumber),
    max: Type.Optional(DateOrNumber),
    minLength: Type.Optional(Count),
    maxLength: Type.Optional(Count),
    pattern: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 500, description: 'JavaScript syntax, matched with the u flag against the whole text; refused when it can backtrack catastrophically.' }))),
    patternMessage: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    choices: Type.Optional(Type.Array(Type.Object({ value: Type.String({ minLength: 1, maxLength: 500 }), label: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false }), { minItems: 1, maxItems: 200, description: 'choice fields: the values offered (label default: the value).' })),
    columns: Type.Optional(
      Type.Array(
        Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), kind: Type.Optional(StringEnum(['text', 'number', 'date'] as const)), required: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        { minItems: 1, maxItems: 50, description: "table fields: each column of the table variable, by name, with what changes (label, kind, required); columns left out stay as derived." },
      ),
    ),
    minItems: Type.Optional(Count),
    maxItems: Type.Optional(Count),
    trueText: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    falseText: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: false, description: 'What the owner changes of the field derived from the variable `name`.' },
);
export type FieldOverride = Static<typeof FieldOverrideSchema>;

const formInput = {
  title: Type.String({ minLength: 1, maxLength: 200, description: "The page's heading; default the document's name." }),
  description: Type.String({ maxLength: 2000, description: 'Shown under the title (plain text).' }),
  fields: Type.Array(FieldOverrideSchema, { maxItems: MAX_FORM_FIELDS, description: 'Overrides of the derived fields, by variable name (docs/forms.md).' }),
  autoRender: Type.Boolean({ description: 'Render each record at once (its job has `filloutId` = the record id). Default false.' }),
  format: StringEnum(FORM_FORMATS, { description: 'Format of those renders; default PDF.' }),
  locale: StringEnum(FORM_LOCALES, { description: "Language of the page's own texts; default en." }),
  labels: Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ maxLength: 500 }), { maxProperties: 100, description: "Replacements of the page's own texts by key (docs/forms.md)." }),
  submissionsPerMinute: Type.Integer({ minimum: 1, maximum: 600, description: 'Submissions the page accepts per minute; default 10.' }),
  recordIp: Type.Boolean({ description: "Keep the submitter's IP address on each record; default false." }),
};

/** Every setting optional: what a create may give and a change may replace. */
const Settings = Type.Partial(Type.Object(formInput));

export const CreateFormSchema = Type.Object(
  { ...Settings.properties, expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the link stops working (410); in the future.' })) },
  { additionalProperties: false, description: "A form of the document: one field per variable (docs/forms.md), changed by `fields`." },
);
export type CreateForm = Static<typeof CreateFormSchema>;

export const UpdateFormSchema = Type.Object(
  {
    ...Settings.properties,
    description: Type.Optional(Type.Union([formInput.description, Type.Null()])),
    fields: Type.Optional(Type.Array(FieldOverrideSchema, { maxItems: MAX_FORM_FIELDS, description: "The fields derived again from the document's current variables, with these overrides." })),
    expiresAt: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: 'A new expiry (in the future), or null for none.' })),
  },
  { additionalProperties: false, minProperties: 1, description: 'Replaces the fields given; the version goes up by one.' },
);
export type UpdateForm = Static<typeof UpdateFormSchema>;

const FieldValue = Type.Unknown({ description: 'By kind: a string (text, textarea, date, choice), number, boolean, string[] (list), row objects (table), or an image.' });

export const FormFieldSchema = Type.Object({
  name: Type.String(),
  kind: StringEnum(FIELD_KINDS),
  label: Type.String(),
  help: Type.Union([Type.String(), Type.Null()]),
  placeholder: Type.Union([Type.String(), Type.Null()]),
  required: Type.Boolean(),
  min: Type.Union([Type.Number(), Type.String(), Type.Null()]),
  max: Type.Union([Type.Number(), Type.String(), Type.Null()]),
  minLength: Type.Union([Type.Integer(), Type.Null()]),
  maxLength: Type.Union([Type.Integer(), Type.Null()]),
  pattern: Type.Union([Type.String(), Type.Null()]),
  patternMessage: Type.Union([Type.String(), Type.Null()]),
  choices: Type.Union([Type.Array(ChoiceSchema), Type.Null()]),
  columns: Type.Union([Type.Array(ColumnSchema), Type.Null()]),
  minItems: Type.Union([Type.Integer(), Type.Null()]),
  maxItems: Type.Union([Type.Integer(), Type.Null()]),
  trueText: Type.Union([Type.String(), Type.Null()]),
  falseText: Type.Union([Type.String(), Type.Null()]),
  defaultValue: FieldValue,
});

export const FormStatusSchema = StringEnum(['ACTIVE', 'REVOKED', 'EXPIRED'] as const, { description: 'REVOKED after POST …/revoke (until the next rotate-token); EXPIRED once `expiresAt` passed.' });

export const FormSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  documentId: Type.String(),
  title: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  fields: Type.Array(FormFieldSchema),
  autoRender: Type.Boolean(),
  format: StringEnum(FORM_FORMATS),
  locale: Type.String(),
  labels: Type.Record(Type.String(), Type.String()),
  submissionsPerMinute: Type.Integer(),
  recordIp: Type.Boolean(),
  expiresAt: Type.Union([Timestamp, Type.Null()]),
  revokedAt: Type.Union([Timestamp, Type.Null()]),
  status: FormStatusSchema,
  publicUrl: Type.String({ description: 'The public page with its signed token: anyone with it can fill the form. A new token (rotate-token) ends every earlier link.' }),
  version: Type.Integer({ minimum: 1 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type FormView = Static<typeof FormSchema>;

export const FormListSchema = Type.Object({ items: Type.Array(FormSchema, { description: 'Newest first.' }), nextCursor: Type.Union([Type.String(), Type.Null()]) });

export const RecordImageSchema = Type.Object({
  assetId: Type.String(),
  mimeType: Type.String(),
  sizeBytes: Type.Integer(),
  filename: Type.String(),
  url: Type.String({ description: 'GET it with an API key: /api/v1/dev/images/<assetId>.' }),
});

export const RecordSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The `filloutId` of its renders.' }),
  formId: Type.String(),
  documentId: Type.String(),
  values: Type.Record(Type.String(), FieldValue, { description: 'By field name, as checked; images as {assetId, mimeType, sizeBytes, filename, url}. Fields left empty are absent.' }),
  submitter: Type.Object({ userAgent: Type.Union([Type.String(), Type.Null()]), locale: Type.Union([Type.String(), Type.Null()]), ip: Type.Union([Type.String(), Type.Null()], { description: 'Only when the form has recordIp.' }) }),
  jobId: Type.Union([Type.String(), Type.Null()], { description: 'The render the submission started (autoRender).' }),
  renderError: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], { description: 'Why that render could not be queued (e.g. no credits left).' }),
  createdAt: Timestamp,
});
export type RecordView = Static<typeof RecordSchema>;

export const RecordListSchema = Type.Object({ items: Type.Array(RecordSchema, { description: 'Newest first.' }), nextCursor: Type.Union([Type.String(), Type.Null()]) });
