// Images into a pdf-lib document: its JPEG embedder reads the view's whole ArrayBuffer from its start (a DataView
// over `.buffer`), so a view into a larger buffer (a pooled Buffer, one of several files sent in one message) would
// be read from the wrong place. Both embedders get bytes that own their buffer.
import type { PDFDocument, PDFImage } from 'pdf-lib';

/** The bytes in an ArrayBuffer of their own (a copy when the view is part of a larger buffer). */
export function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

export function embedJpg(doc: PDFDocument, bytes: Uint8Array): Promise<PDFImage> {
  return doc.embedJpg(ownBytes(bytes));
}

export function embedPng(doc: PDFDocument, bytes: Uint8Array): Promise<PDFImage> {
  return doc.embedPng(ownBytes(bytes));
}
