// Request and result schemas of convert.image-to-pdf; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

const ImageToPdfInput = Type.Object(
  {
    fileIds: Type.Array(Type.String({ format: 'uuid', description: 'Id of an uploaded PNG, JPEG, GIF or BMP image (from POST /tools/files/upload).' }), {
      minItems: 1,
      maxItems: 50,
      description: 'The images, 1 to 50, one page each, in this order. The same id may appear more than once.',
    }),
  },
  { additionalProperties: false, description: 'Convert images to one PDF, one page per image, scaled to fit keeping the aspect ratio.' },
);

const PageSummary = Type.Object(
  {
    width: Type.Integer({ minimum: 1, description: 'Pixel width of the image as shown (after its EXIF orientation).' }),
    height: Type.Integer({ minimum: 1, description: 'Pixel height of the image as shown.' }),
    orientation: Type.Integer({ minimum: 1, maximum: 8, description: 'EXIF orientation applied (1 = none).' }),
    reencoded: Type.Boolean({ description: 'false when the JPEG or PNG bytes were embedded unchanged; true for GIF and BMP (converted to PNG).' }),
  },
  { additionalProperties: false },
);

const ImageToPdfResult = Type.Object(
  {
    pageCount: Type.Integer({ minimum: 1, description: 'Pages in the PDF, one per image.' }),
    pages: Type.Array(PageSummary, { description: 'One entry per page, in the order of fileIds.' }),
  },
  { additionalProperties: false },
);

export const contract = {
  'convert.image-to-pdf': { input: ImageToPdfInput, result: ImageToPdfResult },
};

export type ImageToPdfParams = Static<typeof ImageToPdfInput>;
export type ImageToPdfResultBody = Static<typeof ImageToPdfResult>;
