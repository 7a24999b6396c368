// pdf-metadata: reports a PDF's document information, version, pages, encryption, tagging, PDF/A and PDF/UA claims and form fields; optionally sets the information.
import { definePlugin } from '../../sdk/index.js';
import { PDF_LOAD_ERRORS } from '../../engines/pdf/load.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'pdf-metadata',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Reads the metadata of a PDF (information, version, page sizes, encryption, tagging, PDF/A and PDF/UA, form fields) and optionally sets title, author and the rest.',
    actions: [
      {
        name: 'pdf.metadata',
        export: 'metadata',
        route: { method: 'POST', path: '/tools/pdf/metadata' },
        summary: 'Read or set the metadata of a PDF',
        description:
          'Creates a tools job whose `result` holds the document information (title, author, subject, keywords, creator, producer, dates), the PDF version, page count and sizes, ' +
          'whether it is encrypted or tagged, its PDF/A and PDF/UA identification and its form fields. No file is produced unless `set` is given: then the job returns the PDF with the new information (`metadata.pdf`).',
        files: [{ field: 'fileId', accept: ['application/pdf'] }],
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
