// Request and result schemas of pdf.watermark; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

export const POSITIONS = ['center', 'top-left', 'top', 'top-right', 'left', 'right', 'bottom-left', 'bottom', 'bottom-right', 'tile'] as const;
export const LAYERS = ['over', 'under'] as const;

const WatermarkInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of the uploaded PDF to watermark (from POST /tools/files/upload).' }),
    text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Text of the watermark; `\\n` starts a new line. Drawn in Helvetica when all of it is Windows-1252, otherwise in embedded subsets of the bundled Noto Sans (Latin, Greek, Cyrillic, Devanagari), Noto Sans Hebrew, Noto Sans Arabic, Noto Emoji, Noto Sans Thai and Noto Sans SC, TC, JP or KR (Chinese, Japanese, Korean); characters none of them has fail the job. Give `text` or `imageFileId`, not both.',
      }),
    ),
    imageFileId: Type.Optional(Type.String({ format: 'uuid', description: 'Id of an uploaded PNG or JPEG to use as the watermark instead of text.' })),
    pages: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 32, description: 'A page spec: `n`, `a-b` or `a-`; pages count from 1.' }), {
        minItems: 1,
        maxItems: 100,
        description: 'Pages to watermark; all pages when omitted.',
      }),
    ),
    layer: Type.Unsafe<(typeof LAYERS)[number]>({ type: 'string', enum: [...LAYERS], default: 'over', description: '`over` the page content (default) or `under` it (hidden wherever the page paints an opaque background).' }),
    position: Type.Unsafe<(typeof POSITIONS)[number]>({
      type: 'string',
      enum: [...POSITIONS],
      default: 'center',
      description: 'Where on the page, as the reader sees it (page rotation taken into account); `tile` repeats the watermark across the whole page.',
    }),
    rotation: Type.Number({ minimum: -360, maximum: 360, default: 0, description: 'Degrees counter-clockwise, as the reader sees the page (45 runs the text diagonally upwards).' }),
    opacity: Type.Number({ minimum: 0, maximum: 1, default: 0.5, description: '0 (invisible) to 1 (opaque).' }),
    fontSize: Type.Number({ minimum: 4, maximum: 500, default: 48, description: 'Text size in points.' }),
    color: Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', default: '#808080', description: 'Text colour, `#RRGGBB`.' }),
    imageWidth: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 14_400, description: 'Width of the image in points (height keeps the aspect ratio); default: its pixel size at 72 dpi, reduced to at most half the page.' }),
    ),
    margin: Type.Number({ minimum: 0, maximum: 1000, default: 36, description: 'Distance in points from the page edges for the edge and corner positions.' }),
    tileGap: Type.Number({ minimum: 0, maximum: 2000, default: 72, description: 'Space in points between tiles (position `tile`).' }),
  },
  { additionalProperties: false, description: 'Stamp text or an image on pages of a PDF.' },
);

const WatermarkResult = Type.Object(
  {
    watermarkedPages: Type.Integer({ minimum: 0, description: 'Pages that received the watermark.' }),
    pageCount: Type.Integer({ minimum: 1 }),
    kind: Type.Union([Type.Literal('text'), Type.Literal('image')]),
  },
  { additionalProperties: false },
);

export const contract = {
  'pdf.watermark': { input: WatermarkInput, result: WatermarkResult },
};

export type WatermarkParams = Static<typeof WatermarkInput>;
export type WatermarkResultBody = Static<typeof WatermarkResult>;
