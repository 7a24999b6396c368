// Worker of import.docx: a DOCX package → validated document JSON plus a quality report; images go back to the kernel to store.
import { PluginError, pendingImagePath, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import { checkImage, DEFAULT_IMAGE_LIMITS } from '../../engines/image/image-check.js';
import { validateDocument } from '../../document/validator.js';
import { DOCUMENT_LIMITS, type DocumentJson, type Element, type Section } from '../../contracts/document-json.js';
import type { Inline } from '../../document/inline-markup.js';
import { PackageError, type PackageLimits } from '../../engines/office-package/zip.js';
import { XmlPartError, kid, kids, type XmlElement } from '../../engines/office-package/xml.js';
import { DocxPackage, REL } from './package.js';
import { ImportReport } from './report.js';
import { Numbering, Styles } from './styles.js';
import { notesById, type ImportContext } from './context.js';
import { BodyConverter } from './convert.js';
import { paragraphPieces } from './inline.js';
import { coreProperties, headerFooter, pageSettings } from './settings.js';
import type { ImportDocxParams } from './contract.js';

/** Package limits: DOCX files of real documents stay far below them; zip bombs do not. */
const LIMITS: PackageLimits = { maxEntries: 2000, maxUncompressedBytes: 200 * 1024 * 1024, maxCompressionRatio: 200 };

export async function importDocx(input: WorkerInput<ImportDocxParams>): Promise<WorkerOutput> {
  const file = input.files.find((f) => f.field === 'fileId')!;
  const label = `fileId (${file.filename})`;
  try {
    return await convert(file.bytes, file.filename, input.settings, input.params.placeholders !== 'literal');
  } catch (err) {
    if (err instanceof PackageError) {
      throw new PluginError(err.reason === 'LIMIT' ? 'DOCX_TOO_LARGE' : 'DOCX_INVALID', `${label} ${err.message} Save it again with Word or LibreOffice as .docx and upload it.`);
    }
    if (err instanceof XmlPartError) throw new PluginError('DOCX_INVALID', `${label}: ${err.message}. Save it again with Word or LibreOffice as .docx and upload it.`);
    throw err;
  }
}

async function convert(bytes: Uint8Array, filename: string, settings: Record<string, unknown>, livePlaceholders: boolean): Promise<WorkerOutput> {
  const pkg = new DocxPackage(bytes, LIMITS);
  const packageRels = [...pkg.rels('').values()];
  const main = packageRels.find((r) => r.type === REL.officeDocument && !r.external)?.target;
  if (!main || !pkg.has(main)) throw new PackageError('INVALID', 'has no main document part (word/document.xml); it is not a Word document.');
  if (main !== 'word/document.xml') throw new PackageError('INVALID', `keeps its main document at ${main}; Quire reads word/document.xml.`);
  const report = new ImportReport();
  const part = (suffix: string) => {
    const name = pkg.related(main, suffix);
    return name && pkg.has(name) ? { name, xml: pkg.xml(name) } : undefined;
  };
  const footnotesPart = part(REL.footnotes);
  const endnotesPart = part(REL.endnotes);
  const footnotes = notesById(footnotesPart?.xml, 'w:footnote');
  const endnotes = notesById(endnotesPart?.xml, 'w:endnote');
  const ctx: ImportContext = {
    pkg,
    rels: pkg.rels(main),
    styles: new Styles(part(REL.styles)?.xml),
    numbering: new Numbering(part(REL.numbering)?.xml),
    report,
    location: () => main,
    flag: () => false,
    footnote: (id) => noteContent(ctx, footnotes.get(id), footnotesPart?.name),
    endnote: (id) => noteContent(ctx, endnotes.get(id), endnotesPart?.name),
    livePlaceholders,
    inTable: false,
  };
  report.locate(() => ctx.location());
  const document = pkg.xml(main);
  const body = kid(document, 'w:body');
  if (!body) throw new PackageError('INVALID', `has no w:body in ${main}.`);
  const converter = new BodyConverter(ctx, main);
  converter.body(body);
  const sectPr = kid(body, 'w:sectPr');

  // Images: type and pixel limits checked here, so one unusable picture is a warning, not a failed import.
  const limits = { maxPixels: intSetting(settings.maxImagePixels, DEFAULT_IMAGE_LIMITS.maxPixels), maxSide: intSetting(settings.maxImageSide, DEFAULT_IMAGE_LIMITS.maxSide) };
  const images: NonNullable<WorkerOutput['images']> = [];
  const refused = new Set<string>();
  for (const placed of converter.images) {
    const data = pkg.bytes(placed.part);
    try {
      await checkImage(data, limits);
      images.push({ ref: placed.ref, bytes: new Uint8Array(data) });
    } catch (err) {
      refused.add(placed.ref);
      report.warn('IMAGE_UNSUPPORTED', placed.part, `The image ${placed.part} was left out: ${(err as Error).message}`);
    }
  }
  const refusedPaths = new Set([...refused].map(pendingImagePath));
  const elements = converter.elements.filter((e) => !(e.type === 'image' && refusedPaths.has(e.src)));

  const doc: DocumentJson = {
    document: {
      type: 'pdf',
      ...fileStem(filename),
      ...coreProperties(pkg, packageRels.find((r) => r.type === REL.coreProperties)?.target),
      ...pageSettings(sectPr, report, `${main} sectPr`),
    },
    sections: sectionsOf(elements, report, main),
  };
  const header = headerFooter(pkg, sectPr, 'header', report, livePlaceholders);
  const footer = headerFooter(pkg, sectPr, 'footer', report, livePlaceholders);
  if (header || footer) doc.defaults = { ...(header ? { header } : {}), ...(footer ? { footer } : {}) };
  // Each live placeholder is declared with an empty value: the document validates and renders without
  // UNKNOWN_VARIABLE warnings, and `variables` lists what a caller fills in before rendering.
  const names = report.variableNames();
  if (names.length) doc.variables = Object.fromEntries(names.map((name) => [name, '']));

  const checked = validateDocument(doc);
  if (!checked.valid) {
    const first = checked.errors.slice(0, 3).map((e) => `${e.path} ${e.message}`).join('; ');
    throw new PluginError('DOCX_CONVERSION_FAILED', `The converted document does not validate (${first}); this is a bug in the importer, please report it with the file.`);
  }
  const counts = { ...converter.counts, images: elements.filter((e) => e.type === 'image').length };
  return { result: { document: doc, report: report.toJSON(counts) }, images };
}

/** A footnote's paragraphs as inline content (its own reference mark skipped), converted with its part's relationships. */
function noteContent(ctx: ImportContext, note: XmlElement | undefined, partName: string | undefined): Inline[] | undefined {
  if (!note || !partName) return undefined;
  const saved = { rels: ctx.rels, inTable: ctx.inTable };
  ctx.rels = ctx.pkg.rels(partName);
  ctx.inTable = true; // images cannot go into a footnote either
  const out: Inline[] = [];
  for (const p of kids(note, 'w:p')) {
    const nodes = paragraphPieces(p, ctx).flatMap((x) => (x.k === 'inline' && x.node.t !== 'footnote' ? [x.node] : []));
    if (nodes.length && out.length) out.push({ t: 'text', v: ' ' });
    out.push(...nodes);
  }
  Object.assign(ctx, saved);
  // Word starts a note with a space after its mark.
  if (out[0]?.t === 'text') out[0] = { t: 'text', v: out[0].v.replace(/^\s+/, '') };
  return out;
}

/** Flow sections of at most 5,000 elements; a long body continues in the next section without a page break. */
function sectionsOf(elements: Element[], report: ImportReport, main: string): Section[] {
  const max = DOCUMENT_LIMITS.flowElements;
  if (elements.length <= max) return [{ type: 'flow', content: elements }];
  report.warn('CONTENT_SPLIT', main, `The body has ${elements.length} elements; it was split into sections of ${max}.`);
  const out: Section[] = [];
  for (let i = 0; i < elements.length && out.length < DOCUMENT_LIMITS.sections; i += max) {
    out.push({ type: 'flow', ...(i > 0 ? { newPage: false } : {}), content: elements.slice(i, i + max) });
  }
  return out;
}

function fileStem(filename: string): { filename?: string } {
  const stem = filename.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, DOCUMENT_LIMITS.filenameLength);
  return stem ? { filename: stem } : {};
}

function intSetting(v: unknown, d: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : d;
}
