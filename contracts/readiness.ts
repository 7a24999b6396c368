// The readiness report's contracts: the request and report schemas. The checks themselves are in document/readiness.ts.
import { Type, type Static } from '@sinclair/typebox';
import { DocumentJsonSchema, StringEnum } from './document-json.js';
import { WebhookSchema } from './common.js';
import { PDF_PROFILES } from './render.js';

// The profiles are the render request's; one enum keyword (not its union of literals) so a wrong value's error lists them.
export const PdfProfileSchema = StringEnum(PDF_PROFILES, {
  default: 'standard',
  description: 'PDF flavour: standard, PDF/A (pdfa-1b, pdfa-2b, pdfa-3b) or PDF/UA-1 (pdfua-1). Default standard.',
});

export const ReadinessRequestSchema = Type.Object(
  {
    config: DocumentJsonSchema,
    pdfProfile: Type.Optional(PdfProfileSchema),
    webhook: Type.Optional(WebhookSchema),
  },
  { additionalProperties: false },
);

const CapabilitySchema = Type.Object({
  status: StringEnum(['foundation', 'available', 'not_available'] as const, {
    description: 'foundation: checked at source level by this report; available: the renderer provides it; not_available: not provided.',
  }),
  description: Type.String(),
});

export const ReadinessReportSchema = Type.Object({
  scope: Type.Literal('semantic_source', { description: 'What was checked: the document JSON, not a rendered file.' }),
  scoreLabel: Type.Literal('semantic_source_score'),
  requiresRenderInspection: Type.Boolean({ description: 'Always true: the rendered PDF still needs a check by a PDF/UA or PDF/A validator.' }),
  status: StringEnum(['ready', 'not_ready'] as const, { description: 'ready when no issue has severity error.' }),
  score: Type.Integer({ minimum: 0, maximum: 100, description: '100 − 20 per error − 5 per warning − 1 per info, at least 0.' }),
  checkedAt: Type.String({ format: 'date-time' }),
  summary: Type.Object({
    errors: Type.Integer(),
    warnings: Type.Integer(),
    images: Type.Integer({ description: 'image elements and variableRefs of image variables' }),
    tables: Type.Integer({ description: 'table elements and variableRefs of table variables' }),
    headings: Type.Integer({ description: 'h1–h6 elements' }),
  }),
  issues: Type.Array(
    Type.Object({
      code: Type.String({ description: 'One of the codes in docs/api.md, Readiness.' }),
      severity: StringEnum(['error', 'warning', 'info'] as const),
      path: Type.String({ description: 'JSON path of the field, e.g. config.sections[0].content[3].alt.' }),
      message: Type.String(),
      suggestion: Type.String(),
    }),
  ),
  capabilities: Type.Object({
    semanticSourceChecks: CapabilitySchema,
    renderedOutputChecks: CapabilitySchema,
    pdfA: CapabilitySchema,
    pdfUa: CapabilitySchema,
    taggedPdf: CapabilitySchema,
  }),
});
export type ReadinessReport = Static<typeof ReadinessReportSchema>;
export type ReadinessIssue = ReadinessReport['issues'][number];
