// Six randomly damaged copies and three cut-off copies of a 3-page PDF: each job completes or fails with a PDF code, never a crash or a timeout.
import { makePdf } from '../../../fixtures/pdfs.js';
import type { HostilePdfCase } from '../../hostile-case.js';

async function variants(): Promise<Uint8Array[]> {
  const source = Buffer.from(await makePdf(3, { label: 'Fuzz', objectStreams: false }));
  // A fixed seed: the same damaged bytes every run.
  let seed = 20261124;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: Uint8Array[] = [];
  for (let v = 0; v < 6; v++) {
    const bytes = Buffer.from(source);
    for (let k = 0; k < 12; k++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
    out.push(bytes);
  }
  for (const fraction of [0.3, 0.7, 0.95]) out.push(source.subarray(0, Math.floor(source.length * fraction)));
  return out;
}

export default {
  title: 'fuzzed and cut-off files',
  make: variants,
  expect: { anyOf: [{ completed: true }, { failed: /^(PDF_|FORM_|QPDF_)[A-Z_]+$/ }] },
  // The PDF tools only: lens OCRs every readable variant (seconds each) and reaches no code the truncated and cycle cases do not.
  appliesTo: (action) => action.kind === 'tool',
} satisfies HostilePdfCase;
