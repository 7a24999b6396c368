// A one-page form whose field /Parent chain loops (4 → 5 → 4), which a fully-qualified-name walk would follow forever.
import { assemblePdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

const loops = { failed: 'PDF_UNREADABLE', error: (file: string) => new RegExp(`^${literal(file)} is not a readable PDF: the /Parent links of its form fields loop`) };

export default {
  title: 'a form field /Parent chain that loops',
  make: () =>
    assemblePdf([
      '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Annots [4 0 R] >>',
      '<< /T (name) /FT /Tx /Parent 5 0 R /Subtype /Widget /Rect [10 10 100 30] /P 3 0 R >>',
      '<< /T (loop) /Parent 4 0 R >>',
    ]),
  expect: { completed: true },
  byAction: { 'pdf.fill-form': loops, 'pdf.metadata': loops },
} satisfies HostilePdfCase;
