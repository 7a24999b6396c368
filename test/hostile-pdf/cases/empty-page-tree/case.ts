// A well-formed PDF whose page tree is empty: actions that need a page refuse it, those that read the document as a whole complete.
import { emptyPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

const noPages = { failed: 'PDF_NO_PAGES', error: (file: string) => new RegExp(`^${literal(file)} has no pages`) } as const;

export default {
  title: 'an empty page tree',
  make: emptyPdf,
  expect: noPages,
  byAction: {
    // The server counts 0 pages, so range "1" is out of range before any job.
    'pdf.split': { refused: 400, code: 'VALIDATION_FAILED' },
    'pdf.unlock': { completed: true },
    'pdf.metadata': { completed: true },
    lens: { completed: true },
  },
  kernel: { 'pdf.split': noPages },
} satisfies HostilePdfCase;
