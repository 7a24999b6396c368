// Page resources that chain 30,000 objects deep: a copy refuses them as too complex; actions that never follow the chain complete.
import { deepReferenceChainPdf } from '../../../fixtures/pdfs.js';
import { literal, type HostilePdfCase } from '../../hostile-case.js';

const tooDeep = { failed: 'PDF_TOO_COMPLEX', error: (file: string) => new RegExp(`^${literal(file)} is too deeply nested to copy safely`) };
const deadline = { failed: 'DEADLINE_EXCEEDED', gap: 'lens walks the chain with pdfjs, without the engines/pdf load checks, and may run into its deadline' };

export default {
  title: 'page resources chained 30,000 objects deep',
  make: () => deepReferenceChainPdf(30_000),
  expect: { completed: true },
  byAction: {
    'pdf.merge': tooDeep,
    'pdf.split': tooDeep,
    'pdf.fill-form': { failed: 'PDF_NO_FORM', error: (file) => new RegExp(`^${literal(file)} has no form`) },
    // Whether lens finishes inside the deadline depends on how busy the machine is.
    lens: { anyOf: [{ completed: true }, deadline] },
  },
} satisfies HostilePdfCase;
