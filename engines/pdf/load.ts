// Opens untrusted PDF bytes with pdf-lib so that hostile files fail with a declared code instead of hanging or crashing.
import {
  PDFArray,
  PDFCatalog,
  PDFDict,
  PDFDocument,
  PDFInvalidObject,
  PDFName,
  PDFNumber,
  PDFPageLeaf,
  PDFPageTree,
  PDFParser,
  PDFRef,
  PDFStream,
  PDFStreamWriter,
  PDFWriter,
  type PDFContext,
  type PDFObject,
} from 'pdf-lib';
import { PluginError } from '../../sdk/plugin-api.js';
import { cachePdfNames } from './name-cache.js';
import { MIN_OBJECTS_FOR_OBJECT_STREAMS, OBJECTS_PER_STREAM } from './page-writer.js';
import { BOMB_FLOOR_BYTES, MAX_INFLATE_RATIO, MAX_OBJECT_NESTING, findDecompressionBomb, scanRawPdf } from './prescan.js';

/** The error codes this module throws, with what each means; manifests spread it into `errors`. */
export const PDF_LOAD_ERRORS = {
  PDF_UNREADABLE: 'An input is not a readable PDF: not a PDF at all, damaged, truncated, or its page tree is broken (for example it loops back on itself).',
  PDF_ENCRYPTED: 'An input is password-protected or encrypted; remove its password first with POST /tools/pdf/unlock and use the unlocked file.',
  PDF_NO_PAGES: 'An input PDF has no pages.',
  PDF_TOO_COMPLEX: 'An input PDF nests its objects or page tree too deeply to process safely.',
  PDF_DECOMPRESSION_BOMB: `An input PDF has a compressed stream that inflates far beyond any real content (over ${BOMB_FLOOR_BYTES / 2 ** 20} MB and ${MAX_INFLATE_RATIO} times its size): a decompression bomb.`,
} as const;

/** Deepest page tree accepted; real page trees are a handful of levels deep. */
export const MAX_PAGE_TREE_DEPTH = 256;

const UNLOCK_HINT = 'remove its password first with POST /tools/pdf/unlock';

export interface OpenedPdf {
  doc: PDFDocument;
  pageCount: number;
  /** The pages in order: the kids of the flat page tree openPdf leaves in place of the original one. */
  pageRefs: PDFRef[];
  /** Whether the file packs objects into object streams; outputs follow their inputs (as qpdf's default does). */
  objectStreams: boolean;
}

export interface OpenPdfOptions {
  /** Open encrypted files anyway (only their structure is readable); default false → PDF_ENCRYPTED. */
  allowEncrypted?: boolean;
  /** Accept a document with no pages; default false → PDF_NO_PAGES. */
  allowEmpty?: boolean;
}

const N = {
  Type: PDFName.of('Type'),
  Pages: PDFName.of('Pages'),
  Page: PDFName.of('Page'),
  Kids: PDFName.of('Kids'),
  Count: PDFName.of('Count'),
  Parent: PDFName.of('Parent'),
  Contents: PDFName.of('Contents'),
};
const INHERITABLE = PDFPageLeaf.InheritableEntries.map((k) => PDFName.of(k));

// pdf-lib declares its document constructor private; we call it after making the parsed context safe.
const DocumentFromContext = PDFDocument as unknown as new (context: PDFContext, ignoreEncryption: boolean, updateMetadata: boolean) => PDFDocument;

/**
 * Parses `bytes` and replaces its page tree with a flat, verified one, so that later pdf-lib calls
 * (getPages, copyPages, save) cannot loop or recurse without bound. `label` names the input in
 * messages, e.g. `fileIds[1]`. Throws PluginError with a PDF_LOAD_ERRORS code.
 */
export async function openPdf(bytes: Uint8Array, label: string, opts: OpenPdfOptions = {}): Promise<OpenedPdf> {
  await prescreenPdf(bytes, label);
  cachePdfNames();
  const context = await guardPdf(label, 'read', () => parseQuietly(bytes));
  const encrypted = context.lookup(context.trailerInfo.Encrypt) !== undefined;
  if (encrypted && !opts.allowEncrypted) {
    throw new PluginError('PDF_ENCRYPTED', `${label} is encrypted; ${UNLOCK_HINT} and send the unlocked file.`, { input: label });
  }
  let pageRefs: PDFRef[];
  try {
    pageRefs = guardPdfSync(label, 'read', () => flattenPageTree(context, label));
  } catch (err) {
    // Pages kept in encrypted object streams look missing to a reader without the key.
    if (encrypted && err instanceof PluginError && err.code === 'PDF_UNREADABLE') {
      throw new PluginError('PDF_ENCRYPTED', `${label} is encrypted, and even its pages cannot be read without the password; ${UNLOCK_HINT} and send the unlocked file.`, { input: label });
    }
    throw err;
  }
  const pageCount = pageRefs.length;
  if (pageCount === 0 && !opts.allowEmpty) {
    throw new PluginError('PDF_NO_PAGES', `${label} has no pages.`, { input: label });
  }
  const doc = new DocumentFromContext(context, true, false);
  return { doc, pageCount, pageRefs, objectStreams: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('/ObjStm') };
}

/**
 * The checks openPdf makes before any parser sees the bytes: a %PDF- header, object nesting within
 * MAX_OBJECT_NESTING, and no Flate stream that inflates like a bomb. For tools that hand the file to
 * another program (qpdf) rather than to pdf-lib. Throws PluginError with a PDF_LOAD_ERRORS code.
 */
export async function prescreenPdf(bytes: Uint8Array, label: string): Promise<void> {
  if (!hasPdfHeader(bytes)) throw unreadable(label, 'it does not start with a %PDF- header');
  const scan = scanRawPdf(bytes);
  if (scan.tooDeep) {
    throw new PluginError('PDF_TOO_COMPLEX', `${label} nests arrays or dictionaries more than ${MAX_OBJECT_NESTING} levels deep; it cannot be processed safely.`, { input: label });
  }
  // Before parsing: pdf-lib inflates object streams while it parses, without any bound.
  const bomb = await findDecompressionBomb(bytes, scan.flateCandidates);
  if (bomb) {
    const where = bomb.object ? ` (object ${bomb.object}, ${formatBytes(bomb.compressedBytes)})` : ` (${formatBytes(bomb.compressedBytes)})`;
    throw new PluginError(
      'PDF_DECOMPRESSION_BOMB',
      `${label} has a compressed stream${where} that inflates to more than ${formatBytes(bomb.limitBytes)}: a decompression bomb. It was not processed.`,
      { input: label, object: bomb.object },
    );
  }
}

/** The page count of a PDF, verified as in openPdf (encrypted files are counted when their structure is readable). */
export async function countPdfPages(bytes: Uint8Array): Promise<number> {
  const { pageCount } = await openPdf(bytes, 'the file', { allowEncrypted: true, allowEmpty: true });
  return pageCount;
}

/**
 * Writes the whole document with pdf-lib (pdf.rotate keeps everything, outlines and forms included;
 * merge and split write only pages, with PdfPageWriter), without yielding to the event loop.
 * Object streams make a file about a third smaller but cost time, so they are used when the
 * input had them (as qpdf's default does) and the output has enough objects to gain from them.
 */
export async function savePdf(doc: PDFDocument, label: string, objectStreams: boolean): Promise<Uint8Array> {
  return guardPdf(label, 'write', async () => {
    await doc.flush();
    const packed = objectStreams && doc.context.largestObjectNumber >= MIN_OBJECTS_FOR_OBJECT_STREAMS;
    const writer = packed
      ? PDFStreamWriter.forContext(doc.context, Number.POSITIVE_INFINITY, true, OBJECTS_PER_STREAM)
      : PDFWriter.forContext(doc.context, Number.POSITIVE_INFINITY);
    return writer.serializeToBuffer();
  });
}

/**
 * Runs a pdf-lib step on an input: a stack overflow (deeply nested or chained objects) becomes
 * PDF_TOO_COMPLEX and any other pdf-lib failure PDF_UNREADABLE, both naming the input.
 */
export async function guardPdf<T>(label: string, step: 'read' | 'copy' | 'write', fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw recode(err, label, step);
  }
}

/** guardPdf for a step that does not await. */
export function guardPdfSync<T>(label: string, step: 'read' | 'copy' | 'write', fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw recode(err, label, step);
  }
}

function recode(err: unknown, label: string, step: string): Error {
  if (err instanceof PluginError) return err;
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return new PluginError('PDF_TOO_COMPLEX', `${label} is too deeply nested to ${step} safely (its objects refer to each other too many levels deep).`, { input: label });
  }
  const reason = err instanceof Error ? err.message : String(err);
  if (step === 'write') return new PluginError('PDF_UNREADABLE', `${label} could not be written: ${reason}`, { input: label });
  return unreadable(label, `${reason.replace(/\.$/, '')} (the file may be damaged or truncated)`);
}

function unreadable(label: string, reason: string): PluginError {
  return new PluginError('PDF_UNREADABLE', `${label} is not a readable PDF: ${reason}.`, { input: label });
}

function formatBytes(n: number): string {
  return n >= 2 ** 20 ? `${Math.round(n / 2 ** 20)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`;
}

function hasPdfHeader(bytes: Uint8Array): boolean {
  // The header may follow some junk; readers look within the first kilobyte.
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-');
}

async function parseQuietly(bytes: Uint8Array): Promise<PDFContext> {
  // pdf-lib reports every object it skips with console.warn; the failure we raise later is what matters.
  const warn = console.warn;
  console.warn = () => {};
  try {
    return await PDFParser.forBytesWithOptions(bytes, Number.POSITIVE_INFINITY, false, false).parseDocument();
  } finally {
    console.warn = warn;
  }
}

/** The chain of page tree nodes from the root down to a frame, kept only to explain a revisit. */
interface TreePath {
  tag: string;
  up: TreePath | null;
}

interface TreeFrame {
  ref: PDFRef;
  depth: number;
  path: TreePath | null;
  /** Inheritable entries (Resources, MediaBox, CropBox, Rotate) in force at this node. */
  inherited: Map<PDFName, PDFObject>;
}

/**
 * Walks the page tree from the catalog with an explicit stack (no recursion), refusing cycles,
 * shared nodes, missing nodes and excessive depth; then replaces it by one flat /Pages node whose
 * kids are the leaves in order, each carrying the entries it used to inherit. Returns those kids.
 */
function flattenPageTree(context: PDFContext, label: string): PDFRef[] {
  const rootRef = context.trailerInfo.Root;
  const root = rootRef ? context.lookup(rootRef) : undefined;
  if (!(rootRef instanceof PDFRef) || !(root instanceof PDFDict)) throw unreadable(label, 'it has no document catalog (the file may be truncated)');
  const catalog = root instanceof PDFCatalog ? root : PDFCatalog.fromMapWithContext(new Map(root.entries()), context);
  if (catalog !== root) context.assign(rootRef, catalog);

  const pagesRef = catalog.get(N.Pages);
  if (!(pagesRef instanceof PDFRef)) throw unreadable(label, 'its catalog has no /Pages reference');

  const seen = new Set<string>();
  const treeNodes: PDFRef[] = [];
  const leaves: Array<{ ref: PDFRef; dict: PDFDict; inherited: Map<PDFName, PDFObject> }> = [];
  const stack: TreeFrame[] = [{ ref: pagesRef, depth: 0, path: null, inherited: new Map() }];
  while (stack.length) {
    const { ref, depth, path, inherited } = stack.pop()!;
    if (seen.has(ref.tag)) {
      let ancestor = path;
      while (ancestor && ancestor.tag !== ref.tag) ancestor = ancestor.up;
      throw unreadable(label, ancestor ? `its page tree loops back on itself (object ${ref.tag} is its own ancestor)` : `its page tree lists object ${ref.tag} twice`);
    }
    seen.add(ref.tag);
    const node = context.lookup(ref);
    if (!(node instanceof PDFDict)) {
      throw unreadable(label, `its page tree refers to object ${ref.tag}, which is ${node === undefined ? 'missing (the file may be truncated)' : 'not a dictionary'}`);
    }
    const type = node.get(N.Type);
    const isTree = type === N.Pages || (type !== N.Page && node.has(N.Kids));
    if (!isTree) {
      checkContents(context, node, leaves.length + 1, label);
      leaves.push({ ref, dict: node, inherited });
      continue;
    }
    if (depth >= MAX_PAGE_TREE_DEPTH) {
      throw new PluginError('PDF_TOO_COMPLEX', `${label} has a page tree more than ${MAX_PAGE_TREE_DEPTH} levels deep; it cannot be processed safely.`, { input: label });
    }
    treeNodes.push(ref);
    const kids = context.lookup(node.get(N.Kids));
    if (!(kids instanceof PDFArray)) throw unreadable(label, `page tree node ${ref.tag} has no /Kids array`);
    const here = new Map(inherited);
    const below: TreePath = { tag: ref.tag, up: path };
    for (const key of INHERITABLE) {
      const value = node.get(key);
      if (value !== undefined) here.set(key, value);
    }
    // Push in reverse so the stack pops kids in document order.
    for (let k = kids.size() - 1; k >= 0; k--) {
      const kid = kids.get(k);
      if (!(kid instanceof PDFRef)) throw unreadable(label, `page tree node ${ref.tag} lists a kid that is not an object reference`);
      stack.push({ ref: kid, depth: depth + 1, path: below, inherited: here });
    }
  }

  const flat = PDFPageTree.withContext(context);
  // Reuse the root node's number when it is a tree node; a catalog pointing straight at a page gets a new root.
  const flatRef = treeNodes[0] === pagesRef ? pagesRef : context.nextRef();
  const kids = flat.Kids();
  for (const { ref, dict, inherited } of leaves) {
    const leaf = dict instanceof PDFPageLeaf ? dict : PDFPageLeaf.fromMapWithContext(new Map(dict.entries()), context);
    for (const [key, value] of inherited) if (!leaf.has(key)) leaf.set(key, value);
    leaf.set(N.Type, N.Page);
    leaf.set(N.Parent, flatRef);
    if (leaf !== dict) context.assign(ref, leaf);
    kids.push(ref);
  }
  flat.set(N.Count, PDFNumber.of(leaves.length));
  for (const ref of treeNodes) if (ref !== flatRef) context.delete(ref);
  context.assign(flatRef, flat);
  catalog.set(N.Pages, flatRef);
  return leaves.map((leaf) => leaf.ref);
}

/** A page whose content stream is missing or broken would be copied as a silently blank page. */
function checkContents(context: PDFContext, page: PDFDict, pageNumber: number, label: string): void {
  const contents = page.get(N.Contents);
  if (contents === undefined) return;
  const resolved = contents instanceof PDFRef ? context.lookup(contents) : contents;
  const parts = resolved instanceof PDFArray ? resolved.asArray() : [contents];
  for (const part of parts) {
    const stream = part instanceof PDFRef ? context.lookup(part) : part;
    if (stream instanceof PDFStream) continue;
    const what = part instanceof PDFRef ? `object ${part.tag}` : 'its /Contents entry';
    const why = stream === undefined ? 'is missing (the file may be truncated)' : stream instanceof PDFInvalidObject ? 'cannot be parsed' : 'is not a stream';
    throw unreadable(label, `the content of page ${pageNumber} (${what}) ${why}`);
  }
}
