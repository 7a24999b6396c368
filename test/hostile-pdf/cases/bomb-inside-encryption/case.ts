// A decompression bomb inside an encrypted PDF: unlock decrypts it and then refuses the bomb; the others stop at the encryption.
import { decompressionBombPdf, encryptedPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

export default {
  title: 'a decompression bomb hidden inside encryption',
  // The body's password for unlock is "pw".
  make: () => encryptedPdf({ password: 'pw', source: decompressionBombPdf() }),
  expect: { failed: 'PDF_ENCRYPTED', error: (file) => new RegExp(`^${literal(file)} is encrypted.*remove its password first`) },
  byAction: {
    'pdf.unlock': { failed: 'PDF_DECOMPRESSION_BOMB', error: (file) => new RegExp(`^${literal(file)} has a compressed stream .* a decompression bomb`) },
    // Metadata reads the unencrypted document information and never inflates the content stream.
    'pdf.metadata': { completed: true },
    lens: { failed: 'PDF_ENCRYPTED', error: (file) => new RegExp(`^${literal(file)} is password-protected`) },
  },
} satisfies HostilePdfCase;
