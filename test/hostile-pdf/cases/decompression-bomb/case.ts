// A 1 MB content stream that inflates to 1 GiB: refused from a bounded inflate, without inflating it all.
import { decompressionBombPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

export default {
  title: 'a decompression bomb',
  make: () => decompressionBombPdf(),
  expect: {
    failed: 'PDF_DECOMPRESSION_BOMB',
    error: (file) => new RegExp(`^${literal(file)} has a compressed stream \\(object 4 0 R, 1 MB\\) that inflates to more than \\d+ MB: a decompression bomb`),
  },
  byAction: {
    lens: { failed: 'DEADLINE_EXCEEDED', gap: 'lens inflates with pdfjs, without the engines/pdf bomb check, until its deadline stops it' },
  },
} satisfies HostilePdfCase;
