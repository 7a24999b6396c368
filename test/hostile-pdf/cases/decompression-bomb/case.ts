// Content streams that inflate to 1 GiB, from 1 MB and from 2 KB under two Flate layers: refused from a bounded inflate, without inflating them.
import { decompressionBombPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

export default {
  title: 'decompression bombs of one and two Flate layers',
  make: () => [decompressionBombPdf(), decompressionBombPdf({ layers: 2 })],
  expect: {
    failed: 'PDF_DECOMPRESSION_BOMB',
    // 1 MB for the one-layer bomb, 2 KB for the two-layer one.
    error: (file) => new RegExp(`^${literal(file)} has a compressed stream \\(object 4 0 R, (1 MB|2 KB)\\) that inflates to more than \\d+ MB: a decompression bomb`),
  },
} satisfies HostilePdfCase;
