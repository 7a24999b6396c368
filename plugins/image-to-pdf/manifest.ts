// image-to-pdf: one PDF page per uploaded image, in request order, scaled to fit an A4 page.
import { definePlugin } from '../../sdk/index.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'image-to-pdf',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Converts 1 to 50 PNG, JPEG, GIF or BMP images into one PDF, one page per image.',
    actions: [
      {
        name: 'convert.image-to-pdf',
        export: 'imageToPdf',
        route: { method: 'POST', path: '/tools/convert/image-to-pdf' },
        summary: 'Convert images to PDF',
        description:
          'Creates a tools job that writes one page per image of `fileIds`, in order, into one PDF (`images.pdf`). ' +
          'Each page is A4, portrait for upright or square images and landscape for wide ones, with a 10 mm margin; the image is centred and ' +
          'scaled down to fit, keeping its aspect ratio, and never drawn larger than its size at 96 dpi. EXIF orientation is honoured. ' +
          'JPEG and PNG are embedded without re-encoding; GIF (first frame) and BMP are converted to PNG. Images over the pixel limits ' +
          '(default 50 megapixels, 20,000 pixels on a side, read from the header before decoding) fail the job with IMAGE_TOO_LARGE.',
        files: [{ field: 'fileIds', accept: ['image/png', 'image/jpeg', 'image/gif', 'image/bmp'] }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    pool: { maxThreads: 1, maxQueue: 8, memoryMb: 1024, timeoutMs: 120_000, maxBacklog: 32 },
    errors: {
      IMAGE_INVALID: 'An image is damaged, truncated or cannot be decoded.',
      IMAGE_TOO_LARGE: 'An image has more pixels than the limit (read from its header, before decoding).',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
