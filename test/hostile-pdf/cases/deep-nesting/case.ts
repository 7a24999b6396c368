// Arrays nested 50,000 deep: refused as too complex instead of overflowing the parser's stack.
import { deeplyNestedPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

export default {
  title: 'arrays nested 50,000 deep',
  make: () => deeplyNestedPdf(50_000),
  expect: { failed: 'PDF_TOO_COMPLEX', error: (file) => new RegExp(`^${literal(file)} nests arrays or dictionaries more than 500 levels deep`) },
} satisfies HostilePdfCase;
