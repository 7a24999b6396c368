// pdf-watermark: stamps text or an image on selected pages of a PDF, over or under their content.
import { definePlugin } from '../../sdk/index.js';
import { PDF_LOAD_ERRORS } from '../../engines/pdf/load.js';
import { PAGE_SELECTION_ERRORS } from '../../engines/pdf/page-selection.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'pdf-watermark',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Adds a text or image watermark (size, colour, opacity, rotation, position or tiling) to selected pages of a PDF, over or under the content.',
    actions: [
      {
        name: 'pdf.watermark',
        export: 'watermark',
        route: { method: 'POST', path: '/tools/pdf/watermark' },
        summary: 'Watermark a PDF with text or an image',
        description:
          'Creates a tools job that draws `text` (or the image `imageFileId`) on the pages named in `pages` (all when omitted), `over` or `under` their content, and returns the PDF (`watermarked.pdf`). ' +
          'The watermark is one shared object drawn on each page, so the file grows by its size once, not per page.',
        files: [
          { field: 'fileId', accept: ['application/pdf'] },
          { field: 'imageFileId', accept: ['image/png', 'image/jpeg'] },
        ],
        pageSpecs: [{ field: 'pages', file: 'fileId' }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    pool: { maxThreads: 2, maxQueue: 16, memoryMb: 512, timeoutMs: 60_000, maxBacklog: 64, youngGenerationMb: 16 },
    errors: {
      ...PDF_LOAD_ERRORS,
      ...PAGE_SELECTION_ERRORS,
      WATERMARK_INVALID: 'The watermark cannot be made as asked: neither or both of `text` and `imageFileId`, characters no bundled font has (Helvetica, Noto Sans, Noto Sans Hebrew, Noto Sans Arabic, Noto Emoji, Noto Sans Thai, Noto Sans SC/TC/JP/KR), or tiling too dense; the message says which.',
      IMAGE_UNREADABLE: 'The watermark image is damaged or larger than the pixel limit.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
