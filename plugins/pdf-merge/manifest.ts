// pdf-merge: joins several uploaded PDFs into one, pages in request order.
import { definePlugin } from '../../sdk/index.js';
import { PDF_LOAD_ERRORS } from '../../engines/pdf/load.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'pdf-merge',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Merges 2 to 50 PDFs into one PDF, keeping the order of the request.',
    actions: [
      {
        name: 'pdf.merge',
        export: 'merge',
        route: { method: 'POST', path: '/tools/pdf/merge' },
        summary: 'Merge PDFs',
        description:
          'Creates a tools job that appends the pages of every PDF in `fileIds`, in order, into one PDF (`merged.pdf`). ' +
          'Page content, resources, rotation and annotations are copied unchanged; document-level outlines and forms are not carried over.',
        files: [{ field: 'fileIds', accept: ['application/pdf'] }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    pool: { maxThreads: 2, maxQueue: 16, memoryMb: 512, timeoutMs: 60_000, maxBacklog: 64, youngGenerationMb: 16 },
    errors: { ...PDF_LOAD_ERRORS },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
