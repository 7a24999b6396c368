// Job input and result of render.docx. The input is built by the kernel's render service, as for render.pdf;
// `pdfProfile` is part of every render job's input and has no meaning for DOCX (the service refuses any
// profile but `standard` for this target, see docs/rendering.md#docx-output).
import { Type, type Static } from '@sinclair/typebox';
import { renderJobFields, renderWarnings } from '../../contracts/render.js';

const RenderInput = Type.Object(
  renderJobFields("Creation time of the job; the DOCX's creation date, so a render is reproducible."),
  { additionalProperties: false, description: 'Render document JSON to DOCX.' },
);

const RenderResult = Type.Object(
  {
    warnings: renderWarnings('Render-time notes, such as an equation that could not be converted to Office Math.'),
  },
  { additionalProperties: false },
);

export const contract = {
  'render.docx': { input: RenderInput, result: RenderResult },
};

export type RenderDocxParams = Static<typeof RenderInput>;
export type RenderDocxResult = Static<typeof RenderResult>;
