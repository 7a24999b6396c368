// Worker of pdf.metadata: describes the opened PDF; with `set`, writes the new information (Info and XMP) and describes the result.
import { PDFDict, PDFHexString, PDFName, PDFRawStream, PDFRef, PDFStream, decodePDFRawStream, type PDFDocument } from 'pdf-lib';
import type { WorkerInput, WorkerOutput } from '../../sdk/index.js';
import { readFormFields } from '../../engines/pdf/form.js';
import { guardPdfSync, openPdf, savePdf } from '../../engines/pdf/load.js';
import { pageTurn, visibleBox } from '../../engines/pdf/page-box.js';
import type { MetadataParams, MetadataResultBody, MetadataSetParams, PageSizeRun } from './contract.js';
import { pdfAClaim, pdfUAClaim, updateXmp, type XmpValues } from './xmp.js';

const LABEL = 'fileId';
const N = {
  Version: PDFName.of('Version'),
  MarkInfo: PDFName.of('MarkInfo'),
  Marked: PDFName.of('Marked'),
  Metadata: PDFName.of('Metadata'),
};
/** Largest XMP packet read; real ones are a few kilobytes. */
const MAX_XMP_BYTES = 4 << 20;
/** Named paper sizes in points (portrait), matched within 1 pt in either orientation. */
const PAPER: Array<[string, number, number]> = [
  ['A3', 841.89, 1190.55],
  ['A4', 595.28, 841.89],
  ['A5', 419.53, 595.28],
  ['B5', 498.9, 708.66],
  ['Letter', 612, 792],
  ['Legal', 612, 1008],
  ['Tabloid', 792, 1224],
];

export async function metadata(input: WorkerInput<MetadataParams>): Promise<WorkerOutput> {
  const file = input.files.find((f) => f.field === 'fileId') ?? input.files[0];
  if (!file) throw new Error('pdf.metadata received no input file.');
  const { set } = input.params;
  // Setting needs to write strings, which an encrypted file keeps encrypted: openPdf then asks for unlocking.
  const opened = await openPdf(file.bytes, LABEL, { allowEncrypted: !set, allowEmpty: true });
  const header = headerVersion(file.bytes);
  if (!set) return { result: describe(opened.doc, opened.pageRefs, header) };

  guardPdfSync(LABEL, 'write', () => applySet(opened.doc, set));
  const bytes = await savePdf(opened.doc, 'the PDF with new metadata', opened.objectStreams);
  return { file: { bytes, mimeType: 'application/pdf', filename: 'metadata.pdf' }, result: describe(opened.doc, opened.pageRefs, header) };
}

function describe(doc: PDFDocument, pageRefs: PDFRef[], header: string): MetadataResultBody {
  const context = doc.context;
  const encrypted = context.lookup(context.trailerInfo.Encrypt) !== undefined;
  const warnings: string[] = [];
  const info = (read: () => string | Date | undefined): string | null => {
    if (encrypted) return null;
    try {
      const value = read();
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
      return value ?? null;
    } catch {
      return null; // a malformed entry (wrong type, unparsable date) reads as absent
    }
  };
  const xmp = encrypted ? null : readXmp(doc, warnings);
  if (encrypted) {
    warnings.push('The file is encrypted: its document information, XMP metadata and form fields are encrypted too and were not read; remove the password with POST /tools/pdf/unlock to read them.');
  }
  const markInfo = context.lookup(doc.catalog.get(N.MarkInfo));
  const marked = markInfo instanceof PDFDict ? context.lookup(markInfo.get(N.Marked)) : undefined;
  return {
    title: info(() => doc.getTitle()),
    author: info(() => doc.getAuthor()),
    subject: info(() => doc.getSubject()),
    keywords: info(() => doc.getKeywords()),
    creator: info(() => doc.getCreator()),
    producer: info(() => doc.getProducer()),
    creationDate: info(() => doc.getCreationDate()),
    modificationDate: info(() => doc.getModificationDate()),
    pdfVersion: pdfVersion(doc, header),
    pageCount: pageRefs.length,
    pageSizes: pageSizes(doc, pageRefs),
    encrypted,
    tagged: marked !== undefined && marked.toString() === 'true',
    pdfA: xmp ? pdfAClaim(xmp) : null,
    pdfUA: xmp ? pdfUAClaim(xmp) : null,
    formFields: encrypted ? [] : readFormFields(doc, LABEL),
    warnings,
  };
}

/** `1.7` from `%PDF-1.7` in the first kilobyte. */
function headerVersion(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1');
  return /%PDF-(\d+\.\d+)/.exec(head)?.[1] ?? '1.0';
}

/** The catalog's /Version overrides the header when it is later (an incremental update may raise it). */
function pdfVersion(doc: PDFDocument, header: string): string {
  const version = doc.context.lookup(doc.catalog.get(N.Version));
  const named = version instanceof PDFName ? version.decodeText() : null;
  if (named && /^\d+\.\d+$/.test(named) && Number(named) > Number(header)) return named;
  return header;
}

function readXmp(doc: PDFDocument, warnings: string[]): string | null {
  const stream = doc.context.lookup(doc.catalog.get(N.Metadata));
  if (!(stream instanceof PDFStream)) return null;
  try {
    const data = stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents();
    if (data.byteLength > MAX_XMP_BYTES) {
      warnings.push(`The XMP metadata is larger than ${MAX_XMP_BYTES >> 20} MB and was not read.`);
      return null;
    }
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  } catch (err) {
    warnings.push(`The XMP metadata stream could not be decoded (${err instanceof Error ? err.message : String(err)}); PDF/A and PDF/UA claims were not read.`);
    return null;
  }
}

function pageSizes(doc: PDFDocument, pageRefs: PDFRef[]): PageSizeRun[] {
  const runs: PageSizeRun[] = [];
  let first = 1;
  let last: Omit<PageSizeRun, 'pages'> | null = null;
  const close = (end: number) => {
    if (last) runs.push({ pages: first === end ? String(first) : `${first}-${end}`, ...last });
  };
  pageRefs.forEach((ref, i) => {
    const page = doc.context.lookup(ref) as PDFDict;
    const [x0, y0, x1, y1] = visibleBox(doc.context, page);
    const width = round2(x1 - x0);
    const height = round2(y1 - y0);
    const rotation = pageTurn(doc.context, page);
    const size = { width, height, rotation, name: paperName(width, height) };
    if (last && last.width === width && last.height === height && last.rotation === rotation) return;
    close(i);
    first = i + 1;
    last = size;
  });
  close(pageRefs.length);
  return runs;
}

function paperName(width: number, height: number): string | null {
  const [short, long] = width <= height ? [width, height] : [height, width];
  return PAPER.find(([, w, h]) => Math.abs(w - short) <= 1 && Math.abs(h - long) <= 1)?.[0] ?? null;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Writes the Info entries and, when the file has XMP metadata, the same values there (PDF/A requires them to agree). */
function applySet(doc: PDFDocument, set: MetadataSetParams): void {
  const values: XmpValues = {};
  if (set.title !== undefined) doc.setTitle((values.title = set.title));
  if (set.author !== undefined) doc.setAuthor((values.author = set.author));
  if (set.subject !== undefined) doc.setSubject((values.subject = set.subject));
  if (set.keywords !== undefined) {
    // pdf-lib's setKeywords joins with spaces, which splits keywords that contain one.
    values.keywords = set.keywords.join(', ');
    infoDict(doc).set(PDFName.of('Keywords'), PDFHexString.fromText(values.keywords));
  }
  if (set.creator !== undefined) doc.setCreator((values.creator = set.creator));
  if (set.producer !== undefined) doc.setProducer((values.producer = set.producer));
  if (set.creationDate !== undefined) {
    const date = new Date(set.creationDate);
    doc.setCreationDate(date);
    values.creationDate = date.toISOString();
  }
  if (set.modificationDate !== undefined) {
    const date = new Date(set.modificationDate);
    doc.setModificationDate(date);
    values.modificationDate = date.toISOString();
  }
  const ref = doc.catalog.get(N.Metadata);
  const xml = readXmp(doc, []);
  if (!(ref instanceof PDFRef) || xml === null) return;
  const updated = updateXmp(xml, values);
  if (updated === null) return;
  // Written unfiltered: PDF/A forbids filters on the metadata stream.
  const stream = doc.context.stream(Buffer.from(updated, 'utf8'), { Type: 'Metadata', Subtype: 'XML' });
  doc.context.assign(ref, stream);
}

/** The Info dictionary (created when missing); pdf-lib keeps its own accessor private. */
function infoDict(doc: PDFDocument): PDFDict {
  return (doc as unknown as { getInfoDict(): PDFDict }).getInfoDict();
}
