// Job input and result of render.odt. The input is built by the kernel's render service, as for render.pdf;
// `pdfProfile` is part of every render job's input and has no meaning for ODT (only `standard` is accepted
// for an editable target, see docs/rendering.md#odt-output).
import { Type, type Static } from '@sinclair/typebox';
import { renderJobFields, renderWarnings } from '../../contracts/render.js';

const RenderInput = Type.Object(
  renderJobFields("Creation time of the job; the ODT's creation date and zip entry times, so a render is reproducible."),
  { additionalProperties: false, description: 'Render document JSON to ODT (OpenDocument Text).' },
);

const RenderResult = Type.Object(
  {
    warnings: renderWarnings('Render-time notes, such as an equation that could not be converted to MathML.'),
  },
  { additionalProperties: false },
);

export const contract = {
  'render.odt': { input: RenderInput, result: RenderResult },
};

export type RenderOdtParams = Static<typeof RenderInput>;
export type RenderOdtResult = Static<typeof RenderResult>;
