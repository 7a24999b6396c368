// A one-page form whose one field sits 40 levels down a chain of parent fields: form readers refuse it as too complex.
import { assemblePdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

const DEPTH = 40;

function deepFieldTreePdf(): Uint8Array {
  const first = 4;
  const fields = Array.from({ length: DEPTH }, (_, k) => {
    const parent = k === 0 ? '' : ` /Parent ${first + k - 1} 0 R`;
    return k + 1 < DEPTH ? `<< /T (f${k})${parent} /Kids [${first + k + 1} 0 R] >>` : `<< /T (leaf)${parent} /FT /Tx /Subtype /Widget /Rect [10 10 100 30] /P 3 0 R >>`;
  });
  return assemblePdf([
    `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${first} 0 R] >> >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Annots [${first + DEPTH - 1} 0 R] >>`,
    ...fields,
  ]);
}

const tooDeep = { failed: 'PDF_TOO_COMPLEX', error: (file: string) => new RegExp(`^${literal(file)} nests its form fields more than 32 levels deep`) };

export default {
  title: 'form fields nested 40 levels deep',
  make: deepFieldTreePdf,
  expect: { completed: true },
  byAction: { 'pdf.fill-form': tooDeep, 'pdf.metadata': tooDeep },
} satisfies HostilePdfCase;
