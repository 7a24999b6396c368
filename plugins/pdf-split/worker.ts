// Worker of pdf.split: one new PDF per page range; several ranges are packed into a ZIP.
import type { WorkerInput, WorkerOutput } from '../../sdk/index.js';
import { resolveSpecs } from '../../engines/pdf/page-selection.js';
import { guardPdfSync, openPdf } from '../../engines/pdf/load.js';
import { PdfPageWriter } from '../../engines/pdf/page-writer.js';
import type { SplitParams, SplitResultBody } from './contract.js';
import { storedZip } from '../../engines/archive/zip-store.js';

export async function split(input: WorkerInput<SplitParams>): Promise<WorkerOutput> {
  const file = input.files.find((f) => f.field === 'fileId') ?? input.files[0];
  if (!file) throw new Error('pdf.split received no input file.');
  const { doc, pageCount, pageRefs, objectStreams } = await openPdf(file.bytes, 'fileId');
  const ranges = input.params.ranges;
  const selections = resolveSpecs('ranges', ranges, pageCount);

  const taken = new Set<string>();
  const parts: SplitResultBody['parts'] = [];
  const outputs: Uint8Array[] = [];
  for (const [i, indices] of selections.entries()) {
    const part = new PdfPageWriter();
    guardPdfSync('fileId', 'copy', () => part.addPages(doc.context, indices.map((k) => pageRefs[k]!), 'fileId'));
    outputs.push(guardPdfSync(`the part for ranges[${i}]`, 'write', () => part.toBytes(objectStreams)));
    const firstPage = indices[0]! + 1;
    const lastPage = indices[indices.length - 1]! + 1;
    parts.push({ range: ranges[i]!, firstPage, lastPage, pageCount: indices.length, filename: uniqueName(partName(firstPage, lastPage), taken) });
  }

  const result: SplitResultBody = { sourcePageCount: pageCount, parts };
  if (outputs.length === 1) {
    return { file: { bytes: outputs[0]!, mimeType: 'application/pdf', filename: parts[0]!.filename }, result };
  }
  const bytes = storedZip(outputs.map((part, i) => ({ name: parts[i]!.filename, bytes: part })));
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
