// A page tree whose /Kids loop back on an ancestor: refused on inspection, before the deadline.
import { pageTreeCyclePdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

export default {
  title: 'a page-tree cycle',
  make: pageTreeCyclePdf,
  expect: { failed: 'PDF_UNREADABLE', error: (file) => new RegExp(`^${literal(file)} is not a readable PDF: its page tree loops back on itself`) },
  byAction: {
    // pdfjs meets the loop when lens looks the page up.
    lens: { failed: 'PDF_UNREADABLE', error: (file) => new RegExp(`^${literal(file)} is not a readable PDF: page \\d+ cannot be read \\(.*circular reference`, 'i') },
  },
} satisfies HostilePdfCase;
