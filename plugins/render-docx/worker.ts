// Worker of render.docx: document JSON → the resolved office model (shared with ODT) → DOCX bytes.
import type { WarmUpPause, WorkerInput, WorkerOutput } from '../../sdk/index.js';
import { writeDocx } from '../../engines/office/docx-writer.js';
import { renderOffice, warmUpOfficeThread, type OfficeTarget } from '../../engines/office/office-target.js';
import type { RenderDocxParams } from './contract.js';

const DOCX: OfficeTarget = {
  ext: 'docx',
  mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  write: writeDocx,
  warmUp: { document: { type: 'docx' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Warm-up' }, { type: 'table', headerRows: 1, rows: [['a'], ['b']] }] }] },
};

/** Run by the kernel once per thread, before the thread's first job when it can (docs/plugins.md, The worker). */
export const warmUp = (pause: WarmUpPause) => warmUpOfficeThread(DOCX, pause);

export async function renderDocx(input: WorkerInput<RenderDocxParams>): Promise<WorkerOutput> {
  return renderOffice(DOCX, input);
}
