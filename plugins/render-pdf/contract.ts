// Job input and result of render.pdf. The input is built by the kernel's render service (the client's
// request is `{config, pdfProfile, webhook}`, checked with document/validator.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PdfComplianceSchema, renderJobFields, renderWarnings } from '../../contracts/render.js';
export type { PdfCompliance, PdfProfile } from '../../contracts/render.js';

const RenderInput = Type.Object(
  renderJobFields('Creation time of the job; the PDF creation date, so a render is reproducible.'),
  { additionalProperties: false, description: 'Render document JSON to PDF with Typst.' },
);

const RenderResult = Type.Object(
  {
    pageCount: Type.Integer({ minimum: 1 }),
    pdfCompliance: PdfComplianceSchema,
    warnings: renderWarnings('Render-time notes, such as a font that is not installed.'),
  },
  { additionalProperties: false },
);

export const contract = {
  'render.pdf': { input: RenderInput, result: RenderResult },
};

export type RenderParams = Static<typeof RenderInput>;
export type RenderResultBody = Static<typeof RenderResult>;
