// Worker of render.odt: document JSON → the resolved office model (shared with DOCX) → ODT bytes.
import type { WarmUpPause, WorkerInput, WorkerOutput } from '../../sdk/index.js';
import { writeOdt } from '../../engines/office/odt-writer.js';
import { ODT_MIME } from '../../engines/office/odt-common.js';
import { renderOffice, warmUpOfficeThread, type OfficeTarget } from '../../engines/office/office-target.js';
import type { RenderOdtParams } from './contract.js';

const ODT: OfficeTarget = {
  ext: 'odt',
  mimeType: ODT_MIME,
  write: writeOdt,
  // The equation also warms the Typst compiler that draws formula pictures.
  warmUp: { document: { type: 'odt' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Warm-up' }, { type: 'table', rows: [['a']] }, { type: 'math', latex: 'x^2' }] }] },
};

/** Run by the kernel once per thread, before the thread's first job when it can (docs/plugins.md, The worker). */
export const warmUp = (pause: WarmUpPause) => warmUpOfficeThread(ODT, pause);

export async function renderOdt(input: WorkerInput<RenderOdtParams>): Promise<WorkerOutput> {
  return renderOffice(ODT, input);
}
