// A 3-page PDF cut off after half of its bytes: every action refuses it as unreadable, naming the input.
import { truncatedPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

const unreadable = (detail: string) => ({ failed: 'PDF_UNREADABLE', error: (file: string) => new RegExp(`^${literal(file)} is not a readable PDF${detail}`) });

export default {
  title: 'a truncated file',
  make: truncatedPdf,
  expect: unreadable(': .*truncated'),
  byAction: {
    // qpdf reads it, and says why it gives up.
    'pdf.unlock': unreadable(': .*damaged'),
    lens: unreadable(''),
  },
} satisfies HostilePdfCase;
