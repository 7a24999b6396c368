// Worker of render.pdf: the document compiled by compile.ts, handed out as the job's PDF.
import type { WorkerInput, WorkerOutput } from '../../sdk/index.js';
import type { DocumentJson } from '../../contracts/document-json.js';
import { compileDocument, warmUpCompiler } from '../../engines/typst/compile.js';
import type { RenderParams } from './contract.js';

/** Run by the kernel once per thread, before the thread's first job when it can (docs/plugins.md, The worker). */
export const warmUp = warmUpCompiler;

export async function renderPdf(input: WorkerInput<RenderParams>): Promise<WorkerOutput> {
  const { pdf, result } = compileDocument(input);
  const doc = input.params.document as unknown as DocumentJson;
  const filename = `${doc.document.filename ?? 'document'}.pdf`;
  return { file: { bytes: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength), mimeType: 'application/pdf', filename }, result };
}
