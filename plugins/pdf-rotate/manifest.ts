// pdf-rotate: turns selected pages of an uploaded PDF by a multiple of 90 degrees.
import { definePlugin } from '../../sdk/index.js';
import { PDF_LOAD_ERRORS } from '../../engines/pdf/load.js';
import { PAGE_SELECTION_ERRORS } from '../../engines/pdf/page-selection.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'pdf-rotate',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Rotates all or selected pages of a PDF by 90, 180 or 270 degrees (either direction).',
    actions: [
      {
        name: 'pdf.rotate',
        export: 'rotate',
        route: { method: 'POST', path: '/tools/pdf/rotate' },
        summary: 'Rotate PDF pages',
        description:
          'Creates a tools job that adds `angle` to the `/Rotate` of the pages named in `pages` (all pages when omitted) and returns the PDF (`rotated.pdf`). ' +
          'Page content is not re-rendered; viewers and printers apply the rotation.',
        files: [{ field: 'fileId', accept: ['application/pdf'] }],
        pageSpecs: [{ field: 'pages', file: 'fileId' }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    pool: { maxThreads: 2, maxQueue: 16, memoryMb: 512, timeoutMs: 60_000, maxBacklog: 64, youngGenerationMb: 16 },
    errors: { ...PDF_LOAD_ERRORS, ...PAGE_SELECTION_ERRORS },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
