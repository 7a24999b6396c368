// pdf-split: cuts one uploaded PDF into page ranges, one PDF per range (zipped when there are several).
import { definePlugin } from '../../sdk/index.js';
import { PDF_LOAD_ERRORS } from '../../engines/pdf/load.js';
import { PAGE_SELECTION_ERRORS } from '../../engines/pdf/page-selection.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'pdf-split',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Splits a PDF into page ranges: one range gives a PDF, several give a ZIP with one PDF per range.',
    actions: [
      {
        name: 'pdf.split',
        export: 'split',
        route: { method: 'POST', path: '/tools/pdf/split' },
        summary: 'Split a PDF into page ranges',
        description:
          'Creates a tools job that copies the pages of each range in `ranges` (`n`, `a-b`, `a-`) into its own PDF. ' +
          'One range gives that PDF (`application/pdf`); several give a ZIP (`application/zip`) with one PDF per range, named `page-<n>.pdf` or `pages-<a>-<b>.pdf`.',
        files: [{ field: 'fileId', accept: ['application/pdf'] }],
        pageSpecs: [{ field: 'ranges', file: 'fileId' }],
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
