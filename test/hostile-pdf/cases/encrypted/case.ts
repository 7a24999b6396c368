// A password-protected PDF: every action but unlock asks for the password to be removed; unlock with a wrong password says so.
import { encryptedPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

export default {
  title: 'an encrypted file',
  make: () => encryptedPdf('secret'),
  expect: { failed: 'PDF_ENCRYPTED', error: (file) => new RegExp(`^${literal(file)} is encrypted.*remove its password first`) },
  byAction: {
    'pdf.unlock': { failed: 'PDF_PASSWORD_INCORRECT', error: (file) => new RegExp(`^${literal(file)}: incorrect password`) },
    lens: { failed: 'PDF_ENCRYPTED', error: (file) => new RegExp(`^${literal(file)} is password-protected`) },
  },
} satisfies HostilePdfCase;
