// Writes chosen pages of opened PDFs into a new PDF straight from their parsed objects, renumbering references instead of cloning objects.
import zlib from 'node:zlib';
import {
  PDFArray,
  PDFDict,
  PDFInvalidObject,
  PDFName,
  PDFNumber,
  PDFPageLeaf,
  PDFRef,
  PDFStream,
  type PDFContext,
  type PDFObject,
} from 'pdf-lib';
import { PluginError } from '../../sdk/plugin-api.js';

/**
 * Longest chain of references followed from a page (counted breadth-first, so it is the shortest
 * path to each object). Real files stay within a few dozen; pdf-lib's recursive copy, which this
 * writer replaces, overflowed its stack between 8,000 and 12,000.
 */
export const MAX_REFERENCE_DEPTH = 8_000;

/** Object streams pay off once a file has a few dozen small objects; a one-page part has about eight. */
export const MIN_OBJECTS_FOR_OBJECT_STREAMS = 50;
/** Objects per object stream: qpdf's default; pdf-lib's 50 means twice the deflate setups. */
export const OBJECTS_PER_STREAM = 100;

const CATALOG_NUMBER = 1;
const PAGES_NUMBER = 2;
const FIRST_FREE_NUMBER = 3;
const PARENT = PDFName.of('Parent');
const LENGTH = PDFName.of('Length');
// The second line's bytes above 127 tell transfer tools the file is binary.
const HEADER = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n\n';

/** One object of the output: its body as latin1 text, and for streams (or unparsable objects) the bytes that follow. */
interface OutObject {
  text: string;
  /** Stream contents (written after `stream`), or the raw bytes of an object pdf-lib could not parse. */
  data: Uint8Array | null;
  kind: 'plain' | 'stream' | 'raw';
}

/**
 * Collects pages from one or more parsed documents and writes them as one PDF whose page tree is a
 * single flat /Pages node. Each page brings every object it reaches (resources, fonts, images,
 * annotations), written once per `addPages` call however many pages share it. Objects are never
 * cloned: their text is produced directly with references renumbered, and stream data is written
 * from the input bytes as it is (still compressed).
 */
export class PdfPageWriter {
  readonly #objects: OutObject[] = [];
  readonly #pageNumbers: number[] = [];

  get pageCount(): number {
    return this.#pageNumbers.length;
  }

  /**
   * Adds `pageRefs` (pages of `context`'s flat page tree, as openPdf leaves it) in order. A page
   * referred to from another added page (a link) points at its copy; references to pages not added
   * bring that page along as an unlisted object, as pdf-lib's copyPages did. Throws PDF_TOO_COMPLEX,
   * naming `label`, when references chain deeper than MAX_REFERENCE_DEPTH.
   */
  addPages(context: PDFContext, pageRefs: readonly PDFRef[], label: string): void {
    const numbers = new Map<PDFRef, number>();
    const queue: Array<{ ref: PDFRef; number: number; isPage: boolean }> = [];
    for (const ref of pageRefs) {
      const number = this.#reserve();
      if (!numbers.has(ref)) numbers.set(ref, number);
      this.#pageNumbers.push(number);
      queue.push({ ref, number, isPage: true });
    }
    // Breadth-first: every object one reference further than those before the mark.
    let depth = 0;
    let levelEnd = queue.length;
    const refText = (ref: PDFRef): string => {
      let number = numbers.get(ref);
      if (number === undefined) {
        // A reference to a missing object means null; writing null keeps the output free of dangling numbers.
        if (context.lookup(ref) === undefined) return 'null';
        if (depth + 1 > MAX_REFERENCE_DEPTH) {
          throw new PluginError(
            'PDF_TOO_COMPLEX',
            `${label} is too deeply nested to copy safely (its objects refer to each other more than ${MAX_REFERENCE_DEPTH} levels deep).`,
            { input: label },
          );
        }
        number = this.#reserve();
        numbers.set(ref, number);
        queue.push({ ref, number, isPage: false });
      }
      return `${number} 0 R`;
    };
    for (let i = 0; i < queue.length; i++) {
      if (i === levelEnd) {
        depth++;
        levelEnd = queue.length;
      }
      const { ref, number, isPage } = queue[i]!;
      this.#objects[number - FIRST_FREE_NUMBER] = toOutObject(context.lookup(ref)!, isPage, refText);
    }
  }

  /**
   * The finished file. Non-stream objects go into compressed object streams (with a cross-reference
   * stream) when `objectStreams` is set and there are enough of them to gain; otherwise a classic
   * cross-reference table is written.
   */
  toBytes(objectStreams: boolean): Uint8Array {
    const kids = this.#pageNumbers.map((n) => `${n} 0 R`).join(' ');
    const all: Array<{ number: number; object: OutObject }> = [
      { number: CATALOG_NUMBER, object: { text: `<</Type /Catalog/Pages ${PAGES_NUMBER} 0 R>>`, data: null, kind: 'plain' } },
      { number: PAGES_NUMBER, object: { text: `<</Type /Pages/Kids [${kids}]/Count ${this.#pageNumbers.length}>>`, data: null, kind: 'plain' } },
    ];
    this.#objects.forEach((object, i) => all.push({ number: i + FIRST_FREE_NUMBER, object }));
    const sink = new ByteSink();
    sink.text(HEADER);
    const packed = objectStreams && all.length >= MIN_OBJECTS_FOR_OBJECT_STREAMS;
    return packed ? writePacked(sink, all) : writePlain(sink, all);
  }

  #reserve(): number {
    this.#objects.push({ text: '', data: null, kind: 'plain' });
    return this.#objects.length - 1 + FIRST_FREE_NUMBER;
  }
}

function toOutObject(value: PDFObject, isPage: boolean, refText: (ref: PDFRef) => string): OutObject {
  if (value instanceof PDFStream) {
    const data = value.getContents();
    // The stream's own /Length may be wrong or indirect; the length written is that of the data.
    return { text: `${dictText(value.dict, refText, LENGTH)}/Length ${data.length}>>`, data, kind: 'stream' };
  }
  if (value instanceof PDFInvalidObject) {
    const data = new Uint8Array(value.sizeInBytes());
    value.copyBytesInto(data, 0);
    return { text: '', data, kind: 'raw' };
  }
  if (value instanceof PDFPageLeaf) {
    // A page that is not in the new page tree (reached through a link) loses its /Parent, as with copyPages.
    return { text: `${dictText(value, refText, PARENT)}${isPage ? `/Parent ${PAGES_NUMBER} 0 R` : ''}>>`, data: null, kind: 'plain' };
  }
  return { text: directText(value, refText), data: null, kind: 'plain' };
}

/** `<<` and the entries of `dict` except `skip`, without the closing `>>`. */
function dictText(dict: PDFDict, refText: (ref: PDFRef) => string, skip: PDFName | null): string {
  let text = '<<';
  for (const [key, value] of dict.entries()) {
    if (key === skip) continue;
    text += `${key.toString()} ${directText(value, refText)}`;
  }
  return text;
}

function directText(value: PDFObject, refText: (ref: PDFRef) => string): string {
  if (value instanceof PDFName || value instanceof PDFNumber) return value.toString();
  if (value instanceof PDFRef) return refText(value);
  if (value instanceof PDFArray) {
    const items = value.asArray();
    let text = '[';
    for (let i = 0; i < items.length; i++) text += (i ? ' ' : '') + directText(items[i]!, refText);
    return `${text}]`;
  }
  if (value instanceof PDFStream) return 'null'; // a stream inside another object is not PDF; readers could not use it either
  if (value instanceof PDFDict) return `${dictText(value, refText, null)}>>`;
  return value.toString(); // strings, hex strings, booleans, null: their source text
}

/** Text collected before it is turned into bytes; far below V8's string length limit. */
const FLUSH_TEXT_AT = 1 << 22;

/** Builds the file from latin1 text and binary chunks, knowing its length (the offset of what comes next). */
class ByteSink {
  readonly #chunks: Uint8Array[] = [];
  #pending = '';
  #flushed = 0;

  get length(): number {
    // latin1: one byte per UTF-16 unit, which is what pdf-lib's own writer stores too.
    return this.#flushed + this.#pending.length;
  }

  text(s: string): void {
    this.#pending += s;
    if (this.#pending.length >= FLUSH_TEXT_AT) this.#flushText();
  }

  bytes(b: Uint8Array): void {
    this.#flushText();
    this.#chunks.push(b);
    this.#flushed += b.length;
  }

  /** One Uint8Array owning its whole buffer, so the worker can move it rather than copy it. */
  finish(): Uint8Array {
    this.#flushText();
    const out = new Uint8Array(this.#flushed);
    let at = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  #flushText(): void {
    if (!this.#pending) return;
    const b = Buffer.from(this.#pending, 'latin1');
    this.#chunks.push(b);
    this.#flushed += b.length;
    this.#pending = '';
  }
}

function writeObject(sink: ByteSink, number: number, object: OutObject): void {
  if (object.kind === 'raw') {
    sink.text(`${number} 0 obj\n`);
    sink.bytes(object.data!);
    sink.text('\nendobj\n');
  } else if (object.kind === 'stream') {
    sink.text(`${number} 0 obj\n${object.text}\nstream\n`);
    sink.bytes(object.data!);
    sink.text('\nendstream\nendobj\n');
  } else {
    sink.text(`${number} 0 obj\n${object.text}\nendobj\n`);
  }
}

function writePlain(sink: ByteSink, all: Array<{ number: number; object: OutObject }>): Uint8Array {
  const offsets: number[] = [];
  for (const { number, object } of all) {
    offsets[number] = sink.length;
    writeObject(sink, number, object);
  }
  const size = offsets.length;
  const xrefOffset = sink.length;
  let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) {
    const offset = offsets[n];
    table += offset === undefined ? '0000000000 00000 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`;
  }
  sink.text(`${table}trailer\n<</Size ${size}/Root ${CATALOG_NUMBER} 0 R>>\nstartxref\n${xrefOffset}\n%%EOF\n`);
  return sink.finish();
}

/** Cross-reference stream entry: type 1 at a file offset, type 2 inside object stream `where` at `index`. */
interface XrefEntry {
  type: 1 | 2;
  where: number;
  index: number;
}

function writePacked(sink: ByteSink, all: Array<{ number: number; object: OutObject }>): Uint8Array {
  const entries: XrefEntry[] = [];
  let nextNumber = all.reduce((max, { number }) => Math.max(max, number), 0) + 1;
  let chunk: Array<{ number: number; text: string }> = [];
  const flush = () => {
    const streamNumber = nextNumber++;
    let header = '';
    let body = '';
    chunk.forEach(({ number, text }, index) => {
      header += `${number} ${body.length} `;
      body += `${text}\n`;
      entries[number] = { type: 2, where: streamNumber, index };
    });
    const data = zlib.deflateSync(Buffer.from(header + body, 'latin1'));
    entries[streamNumber] = { type: 1, where: sink.length, index: 0 };
    writeObject(sink, streamNumber, {
      text: `<</Type /ObjStm/N ${chunk.length}/First ${header.length}/Filter /FlateDecode/Length ${data.length}>>`,
      data,
      kind: 'stream',
    });
    chunk = [];
  };
  for (const { number, object } of all) {
    if (object.kind === 'plain') {
      chunk.push({ number, text: object.text });
      if (chunk.length === OBJECTS_PER_STREAM) flush();
    } else {
      entries[number] = { type: 1, where: sink.length, index: 0 };
      writeObject(sink, number, object);
    }
  }
  if (chunk.length) flush();

  const xrefNumber = nextNumber++;
  const xrefOffset = sink.length;
  entries[xrefNumber] = { type: 1, where: xrefOffset, index: 0 };
  const size = nextNumber;
  const w2 = byteWidth(Math.max(xrefOffset, size));
  const w3 = 2; // object 0's generation, 65535
  const rowWidth = 1 + w2 + w3;
  const rows = Buffer.alloc(size * rowWidth);
  rows.writeUIntBE(0xffff, w2 + 1, w3); // object 0: head of the free list
  for (let n = 1; n < size; n++) {
    const entry = entries[n];
    if (!entry) continue; // a free entry: all zero
    const at = n * rowWidth;
    rows[at] = entry.type;
    rows.writeUIntBE(entry.where, at + 1, w2);
    rows.writeUIntBE(entry.index, at + 1 + w2, w3);
  }
  const data = zlib.deflateSync(rows);
  writeObject(sink, xrefNumber, {
    text: `<</Type /XRef/Size ${size}/Root ${CATALOG_NUMBER} 0 R/W [1 ${w2} ${w3}]/Filter /FlateDecode/Length ${data.length}>>`,
    data,
    kind: 'stream',
  });
  sink.text(`startxref\n${xrefOffset}\n%%EOF\n`);
  return sink.finish();
}

function byteWidth(max: number): number {
  let width = 1;
  while (max >= 2 ** (8 * width)) width++;
  return width;
}
