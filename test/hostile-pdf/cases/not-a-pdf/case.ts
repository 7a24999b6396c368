// PNG bytes sent where a PDF is expected: the server refuses them by their detected type; the workers' own check stays tested through the kernel.
import { notAPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

const unreadable = { failed: 'PDF_UNREADABLE', error: (file: string) => new RegExp(`^${literal(file)} is not a readable PDF`) };

export default {
  title: 'a PNG sent as a PDF',
  make: notAPdf,
  expect: { refused: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  kernel: { 'pdf.merge': unreadable, 'pdf.split': unreadable, 'pdf.rotate': unreadable },
} satisfies HostilePdfCase;
