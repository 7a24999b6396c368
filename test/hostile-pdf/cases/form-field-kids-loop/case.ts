// A one-page form whose field /Kids loop back (field 4 → widget 5 → field 4): form readers refuse it, the others never walk the fields.
import { assemblePdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

const loops = { failed: 'PDF_UNREADABLE', error: (file: string) => new RegExp(`^${literal(file)} is not a readable PDF: its form field tree .*loops back on itself`) };

export default {
  title: 'form field /Kids that loop',
  make: () =>
    assemblePdf([
      '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Annots [5 0 R] >>',
      '<< /T (outer) /FT /Tx /Kids [5 0 R] >>',
      '<< /T (inner) /Parent 4 0 R /Kids [4 0 R] /Subtype /Widget /Rect [10 10 100 30] /P 3 0 R >>',
    ]),
  expect: { completed: true },
  byAction: { 'pdf.fill-form': loops, 'pdf.metadata': loops },
} satisfies HostilePdfCase;
