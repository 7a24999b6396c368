// Style presets: the preset as the API shows it and its request bodies (checked and merged in document/styles.ts).
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { DefaultsSchema, StringEnum, type Defaults } from './document-json.js';

export const STYLE_LIMITS = {
  nameLength: 100,
  tags: 20,
  tagLength: 40,
  descriptionLength: 1000,
  categoryLength: 50,
  /** Workspace presets one organization may keep. */
  workspacePresets: 500,
} as const;

const L = STYLE_LIMITS;

/** Built-in presets are `system:<slug>`; workspace presets are UUIDs. */
export const SYSTEM_STYLE_PREFIX = 'system:';

export const STYLE_SOURCES = ['workspace', 'system'] as const;
export type StyleSource = (typeof STYLE_SOURCES)[number];
/** `GET /styles?source=` values; `all` (the default) lists both sources. */
export const STYLE_SOURCE_FILTERS = [...STYLE_SOURCES, 'all'] as const;
export type StyleSourceFilter = (typeof STYLE_SOURCE_FILTERS)[number];

const Timestamp = Type.String({ format: 'date-time' });
const Name = Type.String({ minLength: 1, maxLength: L.nameLength, pattern: '\\S', description: `Display name (1 to ${L.nameLength} chars, not only spaces).` });
const Description = Type.String({ maxLength: L.descriptionLength, description: `What the style is for. Max ${L.descriptionLength} chars.` });
const Category = Type.String({ minLength: 1, maxLength: L.categoryLength, description: `A grouping such as report, letter, invoice. Max ${L.categoryLength} chars.` });
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: L.tagLength }), { maxItems: L.tags, description: `Labels for search and filtering: at most ${L.tags}, each 1 to ${L.tagLength} chars.` });
const Definition = Type.Unsafe<Defaults>({
  ...DefaultsSchema,
  description: 'The style definition: a `defaults` object of document JSON (fonts, headings, paragraph, colors, table, header, footer, citationStyle, locale).',
});

export const StylePresetSchema = Type.Object(
  {
    id: Type.String({ description: 'A UUID for a workspace preset; `system:<slug>` for a built-in one.' }),
    source: StringEnum(STYLE_SOURCES, { description: '`workspace` (the organization\'s own) or `system` (built in).' }),
    editable: Type.Boolean({ description: 'False for system presets, which are immutable: copy one to change it.' }),
    name: Type.String(),
    isDefault: Type.Boolean({ description: 'The organization\'s preferred preset (at most one). A marker for clients; renders never apply it implicitly.' }),
    tags: Type.Array(Type.String()),
    definition: Definition,
    orgId: Type.Optional(Type.String({ description: 'Owner of a workspace preset.' })),
    userId: Type.Optional(Type.String({ description: 'Not set by this server (it has no user accounts).' })),
    description: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    previewPath: Type.Optional(Type.String({ description: 'Not set by this server; the built-in presets are pictured in docs/styles.md.' })),
    version: Type.Integer({ minimum: 1, description: '1 when created; every PATCH adds 1.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, description: 'A style preset: a named, reusable `defaults` object.' },
);
export type StylePreset = Static<typeof StylePresetSchema>;

export const StylePresetListSchema = Type.Object({ items: Type.Array(StylePresetSchema, { description: 'System presets first (catalog order), then workspace presets, oldest first.' }) });

export const createFields = {
  name: Name,
  description: Type.Optional(Description),
  category: Type.Optional(Category),
  tags: Type.Optional(Tags),
  isDefault: Type.Optional(Type.Boolean({ description: 'Make this the organization\'s default preset; the previous default stops being it (default false).' })),
} satisfies TProperties;

export const patchFields = {
  name: Type.Optional(Name),
  description: Type.Optional(Type.Union([Description, Type.Null()], { description: `What the style is for (max ${L.descriptionLength} chars); null removes it.` })),
  category: Type.Optional(Type.Union([Category, Type.Null()], { description: `A grouping (max ${L.categoryLength} chars); null removes it.` })),
  tags: Type.Optional(Tags),
  isDefault: Type.Optional(Type.Boolean({ description: 'true makes this the default (clearing the previous one); false unsets it.' })),
} satisfies TProperties;

export const CreateStylePresetSchema = Type.Object({ ...createFields, definition: Definition }, { additionalProperties: false, description: 'A new workspace preset.' });
export type CreateStylePreset = Static<typeof CreateStylePresetSchema>;

export const PatchStylePresetSchema = Type.Object(
  { ...patchFields, definition: Type.Optional(Type.Unsafe<Defaults>({ ...Definition, description: 'Replaces the whole definition (it is not merged into the old one).' })) },
  { additionalProperties: false, minProperties: 1, description: 'The fields to change; at least one. Each change adds 1 to `version`.' },
);
export type PatchStylePreset = Static<typeof PatchStylePresetSchema>;

export const CopyStylePresetSchema = Type.Object(
  { name: Type.Optional(Name) },
  { additionalProperties: false, description: 'Optional: the name of the copy (default: the original\'s name plus " (copy)").' },
);
export type CopyStylePreset = Static<typeof CopyStylePresetSchema>;
