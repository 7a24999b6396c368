// A 2 KB stream that hides the bomb under two Flate layers: the bound holds for every layer.
import { decompressionBombPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

export default {
  title: 'a decompression bomb under two Flate layers',
  make: () => decompressionBombPdf({ layers: 2 }),
  expect: {
    failed: 'PDF_DECOMPRESSION_BOMB',
    error: (file) => new RegExp(`^${literal(file)} has a compressed stream \\(object 4 0 R, 2 KB\\) that inflates to more than \\d+ MB: a decompression bomb`),
  },
  byAction: {
    lens: { failed: 'DEADLINE_EXCEEDED', gap: 'lens inflates with pdfjs, without the engines/pdf bomb check, until its deadline stops it' },
  },
} satisfies HostilePdfCase;
