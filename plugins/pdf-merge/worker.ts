// Worker of pdf.merge: copies every page of every input, in request order, into a new PDF.
import { PDFDocument } from 'pdf-lib';
import type { WorkerInput, WorkerOutput } from '../../kernel/plugin-api.js';
import { guardPdf, openPdf, savePdf } from '../lib/pdf-load.js';
import type { MergeParams, MergeResultBody } from './contract.js';

export async function merge(input: WorkerInput<MergeParams>): Promise<WorkerOutput> {
  const files = input.files.filter((f) => f.field === 'fileIds');
  const out = await PDFDocument.create({ updateMetadata: false });
  const sourcePageCounts: number[] = [];
  let objectStreams = false;
  for (const [i, file] of files.entries()) {
    const label = `fileIds[${i}]`;
    const { doc, pageCount, objectStreams: packed } = await openPdf(file.bytes, label);
    objectStreams ||= packed;
    const pages = await guardPdf(label, 'copy', () => out.copyPages(doc, Array.from({ length: pageCount }, (_, k) => k)));
    for (const page of pages) out.addPage(page);
    sourcePageCounts.push(pageCount);
  }
  const bytes = await savePdf(out, 'the merged PDF', objectStreams);
  const result: MergeResultBody = { pageCount: out.getPageCount(), sourcePageCounts };
  return { file: { bytes, mimeType: 'application/pdf', filename: 'merged.pdf' }, result };
}
