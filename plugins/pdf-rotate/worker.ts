// Worker of pdf.rotate: adds the angle to /Rotate of the selected pages and saves the document.
import { PDFName, PDFNumber, degrees } from 'pdf-lib';
import type { WorkerInput, WorkerOutput } from '../../sdk/index.js';
import { resolveSpecs } from '../../engines/pdf/page-selection.js';
import { openPdf, savePdf } from '../../engines/pdf/load.js';
import type { RotateParams, RotateResultBody } from './contract.js';

const ROTATE = PDFName.of('Rotate');

export async function rotate(input: WorkerInput<RotateParams>): Promise<WorkerOutput> {
  const file = input.files.find((f) => f.field === 'fileId') ?? input.files[0];
  if (!file) throw new Error('pdf.rotate received no input file.');
  const { doc, pageCount, objectStreams } = await openPdf(file.bytes, 'fileId');
  const { angle, pages: specs } = input.params;
  const selected = specs ? new Set(resolveSpecs('pages', specs, pageCount).flat()) : null;

  const pages = doc.getPages();
  let rotatedPages = 0;
  pages.forEach((page, index) => {
    if (selected && !selected.has(index)) return;
    page.setRotation(degrees(normalise(currentRotation(doc.context.lookup(page.node.get(ROTATE))) + angle)));
    rotatedPages++;
  });

  const bytes = await savePdf(doc, 'the rotated PDF', objectStreams);
  const result: RotateResultBody = { rotatedPages, pageCount };
  return { file: { bytes, mimeType: 'application/pdf', filename: 'rotated.pdf' }, result };
}

/** /Rotate as stored (the loader moved inherited values onto each page); anything but a number counts as 0. */
function currentRotation(value: unknown): number {
  return value instanceof PDFNumber ? value.asNumber() : 0;
}

/** Any multiple of 90 (even a negative or oversized one in a sloppy file) to 0, 90, 180 or 270. */
function normalise(deg: number): number {
  const quarter = Math.round(deg / 90);
  return (((quarter % 4) + 4) % 4) * 90;
}
