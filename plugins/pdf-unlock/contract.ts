// Request and result schemas of pdf.unlock; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

export const ENCRYPTION_NAMES = ['RC4-40', 'RC4-128', 'AES-128', 'AES-256'] as const;

const UnlockInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of the uploaded, password-protected PDF (from POST /tools/files/upload).' }),
    password: Type.Optional(
      Type.String({
        maxLength: 256,
        pattern: '^[^\\u0000]*$',
        default: '',
        description:
          'The user (open) password or the owner (permissions) password. Empty or omitted for a file that opens without a password and only restricts printing, copying or editing.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Remove the password protection and encryption of a PDF.' },
);

const UnlockResult = Type.Object(
  {
    wasEncrypted: Type.Boolean({ description: 'false when the file was not encrypted; it is then returned unchanged.' }),
    encryption: Type.Union([Type.String(), Type.Null()], {
      description: 'The encryption that was removed: `RC4-40`, `RC4-128` (or another RC4 key length, e.g. `RC4-56`), `AES-128` or `AES-256`; null when the file was not encrypted.',
    }),
    passwordMatched: Type.Union([Type.Literal('user'), Type.Literal('owner'), Type.Literal('none'), Type.Null()], {
      description: '`owner` or `user`: which password `password` was; `none`: the file opened without a password; null when it was not encrypted.',
    }),
    pageCount: Type.Integer({ minimum: 0, description: 'Pages in the unlocked PDF.' }),
  },
  { additionalProperties: false },
);

export const contract = {
  'pdf.unlock': { input: UnlockInput, result: UnlockResult },
};

export type UnlockParams = Static<typeof UnlockInput>;
export type UnlockResultBody = Static<typeof UnlockResult>;
