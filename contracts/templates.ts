// Public shapes of templates (spec "Template", DESIGN §8): the built-in catalog (browse-only) and the organization's
// workspace templates, which seed documents when they are productive.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './document-json.js';

const Timestamp = Type.String({ format: 'date-time' });

/** Most workspace templates an organization keeps. */
export const MAX_TEMPLATES_PER_ORG = 1000;
export const TEMPLATE_SCOPES = ['workspace', 'catalog'] as const;
export type TemplateScope = (typeof TEMPLATE_SCOPES)[number];

const Slug = Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', description: 'Lower-case words joined by hyphens; unique among the organization\'s templates. Default: made from the name.' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Category = Type.String({ minLength: 1, maxLength: 100, description: 'Free text to group templates (`finance`, `legal`, …).' });
const Description = Type.String({ maxLength: 2000 });
const Config = Type.Object({}, { additionalProperties: true, description: 'Document JSON (docs/document-json.md), checked like POST /render.' });

export const CreateTemplateSchema = Type.Object(
  {
    name: Name,
    markdown: Type.Optional(Type.String({ description: 'The template as Extended Markdown (at most 1 MiB); give this or `config`.' })),
    config: Type.Optional(Config),
    productive: Type.Optional(Type.Boolean({ description: 'Whether documents may be created from it (POST /documents {templateId}); default true.' })),
    stylePresetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A style preset (GET /styles) that documents made from it render with.' })),
    slug: Type.Optional(Slug),
    category: Type.Optional(Category),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, description: 'A workspace template from Extended Markdown or document JSON (exactly one of them).' },
);
export type CreateTemplate = Static<typeof CreateTemplateSchema>;

export const UpdateTemplateSchema = Type.Object(
  {
    name: Type.Optional(Name),
    markdown: Type.Optional(CreateTemplateSchema.properties.markdown),
    config: Type.Optional(Config),
    productive: Type.Optional(Type.Boolean()),
    stylePresetId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    slug: Type.Optional(Slug),
    category: Type.Optional(Type.Union([Category, Type.Null()])),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1, description: 'Replaces the fields given (at most one of `markdown` and `config`).' },
);
export type UpdateTemplate = Static<typeof UpdateTemplateSchema>;

export const CopyTemplateSchema = Type.Object(
  { name: Type.Optional(Name), slug: Type.Optional(Slug), productive: Type.Optional(Type.Boolean({ description: 'Default true.' })) },
  { additionalProperties: false, description: 'Optional settings of the workspace copy.' },
);
export type CopyTemplate = Static<typeof CopyTemplateSchema>;

const SummaryFields = {
  id: Type.String({ format: 'uuid' }),
  scope: StringEnum(TEMPLATE_SCOPES),
  productive: Type.Boolean({ description: 'Whether documents may be created from it; catalog templates never are (copy them first).' }),
  name: Type.String(),
  slug: Type.String(),
  category: Type.String({ description: 'Empty when none was given.' }),
  description: Type.Optional(Type.String()),
  stylePresetId: Type.Union([Type.String(), Type.Null()], { description: 'The style preset documents made from it render with.' }),
  format: StringEnum(['markdown', 'json_fallback'] as const),
  previewImage: Type.Optional(Type.String({ description: 'URL of a PNG of page 1 (catalog templates).' })),
  pdfUrl: Type.Optional(Type.String({ description: 'URL of the rendered sample PDF (catalog templates).' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const TemplateSummarySchema = Type.Object(SummaryFields);
export type TemplateSummary = Static<typeof TemplateSummarySchema>;

export const TemplateSchema = Type.Object({
  ...SummaryFields,
  markdown: Type.String({ description: 'The template as Extended Markdown; empty with json_fallback.' }),
  config: Type.Object({}, { additionalProperties: true, description: 'The template as document JSON.' }),
  warning: Type.Optional(Type.String({ description: 'With json_fallback: what could not be written as Markdown.' })),
  version: Type.Optional(Type.Integer({ minimum: 1, description: 'Workspace templates: 1 when created, +1 on every change.' })),
});
export type TemplateView = Static<typeof TemplateSchema>;

export const TemplateListSchema = Type.Object({
  items: Type.Array(TemplateSummarySchema),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
