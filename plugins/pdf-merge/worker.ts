// Worker of pdf.merge: writes every page of every input, in request order, into a new PDF.
import type { WorkerInput, WorkerOutput } from '../../sdk/index.js';
import { guardPdfSync, openPdf, type OpenedPdf } from '../../engines/pdf/load.js';
import { PdfPageWriter } from '../../engines/pdf/page-writer.js';
import type { MergeParams, MergeResultBody } from './contract.js';

export async function merge(input: WorkerInput<MergeParams>): Promise<WorkerOutput> {
  const files = input.files.filter((f) => f.field === 'fileIds');
  const writer = new PdfPageWriter();
  const opened: Array<{ bytes: Buffer; pdf: OpenedPdf }> = [];
  const sourcePageCounts: number[] = [];
  let objectStreams = false;
  for (const [i, file] of files.entries()) {
    const label = `fileIds[${i}]`;
    const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
    // A file given again (a cover sheet between chapters) is parsed once; its pages are still written once per mention.
    let pdf = opened.find((o) => o.bytes.equals(bytes))?.pdf;
    if (!pdf) {
      pdf = await openPdf(file.bytes, label);
      opened.push({ bytes, pdf });
    }
    const { doc, pageRefs } = pdf;
    objectStreams ||= pdf.objectStreams;
    guardPdfSync(label, 'copy', () => writer.addPages(doc.context, pageRefs, label));
    sourcePageCounts.push(pageRefs.length);
  }
  const bytes = guardPdfSync('the merged PDF', 'write', () => writer.toBytes(objectStreams));
  const result: MergeResultBody = { pageCount: writer.pageCount, sourcePageCounts };
  return { file: { bytes, mimeType: 'application/pdf', filename: 'merged.pdf' }, result };
}
