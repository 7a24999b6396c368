// Shared JSON Schemas of the public API: webhook, tools job, tool file, problem, credits.
import { Type, type Static } from '@sinclair/typebox';

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' });

export const WebhookSchema = Type.Object(
  {
    webhookUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'URL that receives the POST notification (http or https).' }),
    webhookAuth: Type.Optional(
      Type.Object(
        {
          headerName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", description: 'Name of a custom header sent with the call.' })),
          headerValue: Type.Optional(Type.String({ maxLength: 4096, pattern: '^[^\\r\\n\\u0000]*$', description: 'Value of that header.' })),
          basicAuthUsername: Type.Optional(Type.String({ maxLength: 200, pattern: '^[^:\\r\\n\\u0000]*$', description: 'User name for HTTP Basic authentication.' })),
          basicAuthPassword: Type.Optional(Type.String({ maxLength: 200, pattern: '^[^\\r\\n\\u0000]*$', description: 'Password for HTTP Basic authentication.' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'Per-request webhook: one POST when the job completes or fails.' },
);
export type Webhook = Static<typeof WebhookSchema>;

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const JobStatusSchema = Type.Union([Type.Literal('PENDING'), Type.Literal('PROCESSING'), Type.Literal('COMPLETED'), Type.Literal('FAILED')]);

export const ToolsJobSchema = Type.Object({
  id: Uuid,
  action: Type.String({ description: 'Action performed, e.g. pdf.merge.' }),
  status: JobStatusSchema,
  inputFileIds: Type.Array(Uuid),
  outputFileId: Type.Union([Uuid, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  errorCode: Type.Union([Type.String(), Type.Null()], { description: 'Machine-readable code of the failure (docs/errors.md), set when FAILED.' }),
  createdAt: Timestamp,
  startedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
  downloadUrl: Type.Optional(Type.String({ description: 'Signed, time-limited download URL of the output file; present when COMPLETED with an output file.' })),
  result: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  metadata: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'Deprecated duplicate of result.' }),
  progress: Type.Number({ minimum: 0, maximum: 100 }),
  creditCost: Type.Number({ description: 'Estimated credits; charged only when the job completes.' }),
});
export type ToolsJob = Static<typeof ToolsJobSchema>;

export const ToolFileSchema = Type.Object({
  id: Uuid,
  filename: Type.String(),
  mimeType: Type.String(),
  sizeBytes: Type.Integer(),
  kind: Type.Union([Type.Literal('INPUT'), Type.Literal('OUTPUT')]),
  sourceAction: Type.Union([Type.String(), Type.Null()]),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  pageCount: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'Pages of a PDF, when it could be read.' })),
});
export type ToolFile = Static<typeof ToolFileSchema>;

export const TempImageSchema = Type.Object({
  id: Uuid,
  path: Type.String({ pattern: '^/temp-image/[0-9a-f-]{36}$', description: 'Use as `src` of an image element or image variable: /temp-image/<id>.' }),
  mimeType: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg'), Type.Literal('image/gif'), Type.Literal('image/webp'), Type.Literal('image/svg+xml')], { description: 'Detected from the content.' }),
  sizeBytes: Type.Integer(),
  width: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels (as displayed, EXIF orientation applied); for SVG the declared size in CSS px, null when it declares none.' }),
  height: Type.Union([Type.Integer(), Type.Null()], { description: 'As width.' }),
  expiresAt: Type.String({ format: 'date-time', description: '24 hours after the upload.' }),
  createdAt: Timestamp,
});
export type TempImage = Static<typeof TempImageSchema>;

export const ProblemSchema = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String(),
  requestId: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String(), code: Type.String() }))),
});

export const LedgerEntrySchema = Type.Object({
  id: Uuid,
  amount: Type.Number(),
  kind: Type.Union([Type.Literal('grant'), Type.Literal('charge')]),
  jobId: Type.Union([Uuid, Type.Null()]),
  action: Type.Union([Type.String(), Type.Null()]),
  note: Type.Union([Type.String(), Type.Null()]),
  balanceAfter: Type.Number(),
  createdAt: Timestamp,
});

export const CreditsSchema = Type.Object({
  orgId: Uuid,
  balance: Type.Number(),
  reserved: Type.Number({ description: 'Estimated credits of unfinished jobs.' }),
  available: Type.Number(),
  entries: Type.Array(LedgerEntrySchema),
});

export const ApiKeySchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]),
  prefix: Type.String(),
  createdAt: Timestamp,
  revokedAt: NullableTimestamp,
  key: Type.Optional(Type.String({ description: 'The key itself; only in the creation response.' })),
});

export const CreateApiKeySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]),
  },
  { additionalProperties: false },
);
