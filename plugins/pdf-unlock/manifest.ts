// pdf-unlock: removes the password protection and encryption of an uploaded PDF with qpdf.
import { definePlugin } from '../../sdk/index.js';
import { PDF_LOAD_ERRORS } from '../../engines/pdf/load.js';
import { QPDF_COMPONENT } from '../../engines/pdf/qpdf.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'pdf-unlock',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Removes the user and owner passwords (RC4-40, RC4-128, AES-128, AES-256 encryption) of a PDF, given one of them.',
    actions: [
      {
        name: 'pdf.unlock',
        export: 'unlock',
        route: { method: 'POST', path: '/tools/pdf/unlock' },
        summary: 'Remove the password of a PDF',
        description:
          'Creates a tools job that decrypts the PDF with `password` (its user or owner password) and returns it without encryption or restrictions (`unlocked.pdf`). ' +
          'A wrong password fails the job with "incorrect password"; a file that is not encrypted completes with `wasEncrypted: false` and comes back unchanged.',
        files: [{ field: 'fileId', accept: ['application/pdf'] }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [QPDF_COMPONENT],
    pool: { maxThreads: 2, maxQueue: 16, memoryMb: 512, timeoutMs: 60_000, maxBacklog: 64, youngGenerationMb: 16 },
    errors: {
      ...PDF_LOAD_ERRORS,
      PDF_PASSWORD_INCORRECT: 'The password is neither the user nor the owner password of the PDF (message: "incorrect password").',
      QPDF_FAILED: 'qpdf could not decrypt the file (it names the reason), or could not be started.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
