// Worker of pdf.split: one new PDF per page range; several ranges are packed into a ZIP.
import JSZip from 'jszip';
import { PDFDocument } from 'pdf-lib';
import type { WorkerInput, WorkerOutput } from '../../kernel/plugin-api.js';
import { resolveSpecs } from '../lib/page-selection.js';
import { guardPdf, openPdf, savePdf } from '../lib/pdf-load.js';
import type { SplitParams, SplitResultBody } from './contract.js';

export async function split(input: WorkerInput<SplitParams>): Promise<WorkerOutput> {
  const file = input.files.find((f) => f.field === 'fileId') ?? input.files[0];
  if (!file) throw new Error('pdf.split received no input file.');
  const { doc, pageCount, objectStreams } = await openPdf(file.bytes, 'fileId');
  const ranges = input.params.ranges;
  const selections = resolveSpecs('ranges', ranges, pageCount);

  const taken = new Set<string>();
  const parts: SplitResultBody['parts'] = [];
  const outputs: Uint8Array[] = [];
  for (const [i, indices] of selections.entries()) {
    const part = await PDFDocument.create({ updateMetadata: false });
    const pages = await guardPdf('fileId', 'copy', () => part.copyPages(doc, indices));
    for (const page of pages) part.addPage(page);
    outputs.push(await savePdf(part, `the part for ranges[${i}]`, objectStreams));
    const firstPage = indices[0]! + 1;
    const lastPage = indices[indices.length - 1]! + 1;
    parts.push({ range: ranges[i]!, firstPage, lastPage, pageCount: indices.length, filename: uniqueName(partName(firstPage, lastPage), taken) });
  }

  const result: SplitResultBody = { sourcePageCount: pageCount, parts };
  if (outputs.length === 1) {
    return { file: { bytes: outputs[0]!, mimeType: 'application/pdf', filename: parts[0]!.filename }, result };
  }
  const zip = new JSZip();
  outputs.forEach((bytes, i) => zip.file(parts[i]!.filename, bytes, { binary: true }));
  // Stored, not deflated: page content is compressed already, and deflating 200 parts costs more than the split.
  const bytes = await zip.generateAsync({ type: 'uint8array', compression: 'STORE' });
  return { file: { bytes, mimeType: 'application/zip', filename: 'split.zip' }, result };
}

function partName(first: number, last: number): string {
  return first === last ? `page-${first}` : `pages-${first}-${last}`;
}

/** The same range asked for twice still gives two ZIP entries: `pages-1-3.pdf`, `pages-1-3_2.pdf`. */
function uniqueName(base: string, taken: Set<string>): string {
  let name = `${base}.pdf`;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}.pdf`;
  taken.add(name);
  return name;
}
