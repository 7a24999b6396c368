// Job input and result of render.png and render.jpeg (one shape for both). The input is built by the kernel's render
// service from POST /render/images or POST /render/markdown/images, defaults of `image` filled in.
import { Type, type Static } from '@sinclair/typebox';
import { IMAGE_DPI, IMAGE_FORMATS, renderJobFields, renderWarnings } from '../../contracts/render.js';
import { StringEnum } from '../../contracts/document-json.js';

const ImageInput = Type.Object(
  {
    ...renderJobFields('Creation time of the job; the creation date of the PDF the pages come from.'),
    image: Type.Object(
      {
        format: StringEnum(IMAGE_FORMATS),
        dpi: Type.Number({ minimum: IMAGE_DPI.minimum, maximum: IMAGE_DPI.maximum }),
        pages: Type.Array(Type.String(), { minItems: 1, description: 'Page specs; `["1-"]` is every page.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'Render document JSON to page images.' },
);

const ImageResult = Type.Object(
  {
    pageCount: Type.Integer({ minimum: 1, description: 'Pages of the rendered PDF.' }),
    selectedPages: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, description: 'The pages rasterised, ascending (1-based).' }),
    warnings: renderWarnings('Render-time notes, such as a font that is not installed.'),
  },
  { additionalProperties: false },
);

export const contract = {
  'render.png': { input: ImageInput, result: ImageResult },
  'render.jpeg': { input: ImageInput, result: ImageResult },
};

export type ImageParams = Static<typeof ImageInput>;
export type ImageResultBody = Static<typeof ImageResult>;
