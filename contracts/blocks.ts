// Public shapes of reusable blocks (spec "Reusable block", DESIGN §8): named pieces of Extended Markdown with an
// immutable version history, a status (DRAFT, ACTIVE, ARCHIVED) and optional variables described by a JSON Schema.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './document-json.js';

const Timestamp = Type.String({ format: 'date-time' });

/** Most blocks an organization keeps. */
export const MAX_BLOCKS_PER_ORG = 1000;
/** Most versions one block keeps (restores count: each is a new version). */
export const MAX_BLOCK_VERSIONS = 200;
/** Largest Markdown of one version, in UTF-8 bytes. */
export const MAX_BLOCK_MARKDOWN_BYTES = 256 * 1024;
/** Largest `schema` of one version, as JSON in UTF-8 bytes. */
export const MAX_BLOCK_SCHEMA_BYTES = 64 * 1024;

export const BLOCK_STATUSES = ['DRAFT', 'ACTIVE', 'ARCHIVED'] as const;
export type BlockStatus = (typeof BLOCK_STATUSES)[number];

/** The status moves allowed (DESIGN §8); every other move, staying put included, is 409 INVALID_TRANSITION. */
export const BLOCK_TRANSITIONS: Readonly<Record<BlockStatus, readonly BlockStatus[]>> = {
  DRAFT: ['ACTIVE', 'ARCHIVED'],
  ACTIVE: ['ARCHIVED'],
  ARCHIVED: ['ACTIVE'],
};

const Slug = Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', description: "Lower-case words joined by hyphens; unique among the organization's blocks. Default: made from the name." });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Category = Type.String({ minLength: 1, maxLength: 100, description: 'Free text to group blocks (`legal`, `footer`, …).' });
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20, description: 'At most 20 tags of at most 50 characters; duplicates are dropped.' });
const Description = Type.String({ maxLength: 2000 });
const Title = Type.String({ minLength: 1, maxLength: 200 });
const Markdown = Type.String({ description: 'Extended Markdown content (at most 256 KiB), checked like a document\'s; front matter is allowed and checked, but the block\'s variables are `variables` and `schema`.' });
const JsonSchema = Type.Object({}, { additionalProperties: true, description: 'A JSON Schema (draft 7 / 2019-09 keywords, at most 64 KiB, local `#` references only) describing the block\'s variables.' });
const Variables = Type.Object({}, { additionalProperties: true, description: 'Default values of the block\'s variables; checked against `schema` when both are given.' });
const ChangeNote = Type.String({ maxLength: 2000 });

const VersionContent = {
  title: Title,
  markdown: Markdown,
  schema: Type.Optional(JsonSchema),
  variables: Type.Optional(Variables),
};

export const CreateBlockSchema = Type.Object(
  {
    name: Name,
    slug: Type.Optional(Slug),
    category: Type.Optional(Category),
    tags: Type.Optional(Tags),
    description: Type.Optional(Description),
    ...VersionContent,
  },
  { additionalProperties: false, description: 'A block with its first version; it starts as DRAFT.' },
);
export type CreateBlock = Static<typeof CreateBlockSchema>;

export const UpdateBlockSchema = Type.Object(
  {
    name: Type.Optional(Name),
    slug: Type.Optional(Slug),
    category: Type.Optional(Type.Union([Category, Type.Null()])),
    tags: Type.Optional(Tags),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1, description: 'Replaces the fields given; content changes are new versions (POST /reusable-blocks/{id}/versions).' },
);
export type UpdateBlock = Static<typeof UpdateBlockSchema>;

export const CreateBlockVersionSchema = Type.Object(
  { ...VersionContent, changeNote: Type.Optional(ChangeNote) },
  { additionalProperties: false, description: 'The content of a new version; earlier versions stay as they are.' },
);
export type CreateBlockVersion = Static<typeof CreateBlockVersionSchema>;

export const BlockStatusChangeSchema = Type.Object(
  { status: StringEnum(BLOCK_STATUSES) },
  { additionalProperties: false, description: 'DRAFT→ACTIVE, DRAFT→ARCHIVED, ACTIVE→ARCHIVED, ARCHIVED→ACTIVE.' },
);
export type BlockStatusChange = Static<typeof BlockStatusChangeSchema>;

export const BlockVersionSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  blockId: Type.String({ format: 'uuid' }),
  version: Type.Integer({ minimum: 1 }),
  title: Type.String(),
  markdown: Type.String(),
  schema: Type.Object({}, { additionalProperties: true, description: '`{}` when none was given.' }),
  variables: Type.Object({}, { additionalProperties: true, description: '`{}` when none were given.' }),
  createdAt: Timestamp,
  changeNote: Type.Optional(Type.String()),
  restoredFromVersion: Type.Optional(Type.Integer({ minimum: 1, description: 'Set on a version made by restore: the version it copies.' })),
  createdByUserId: Type.Optional(Type.String({ description: 'Who made the version: the caller\'s principal (`key:<API key id>` or `rt:<token id>`); Quire has no user accounts.' })),
});
export type BlockVersionView = Static<typeof BlockVersionSchema>;

const SummaryFields = {
  id: Type.String({ format: 'uuid' }),
  orgId: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  category: Type.String({ description: 'Empty when none was given.' }),
  tags: Type.Array(Type.String()),
  status: StringEnum(BLOCK_STATUSES),
  currentVersion: Type.Integer({ minimum: 1 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  description: Type.Optional(Type.String()),
  createdByUserId: Type.Optional(Type.String({ description: 'Who made the block: the caller\'s principal (`key:<API key id>`).' })),
  current: BlockVersionSchema,
};

export const BlockSummarySchema = Type.Object(SummaryFields);
export type BlockSummary = Static<typeof BlockSummarySchema>;

export const BlockSchema = Type.Object({ ...SummaryFields, versions: Type.Array(BlockVersionSchema, { description: 'Every version, oldest first.' }) });
export type BlockView = Static<typeof BlockSchema>;

export const BlockListSchema = Type.Object({
  items: Type.Array(BlockSummarySchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
