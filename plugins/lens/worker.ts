// Worker of the Lens actions: reads the document (PDF text layer or OCR, DOCX, ODT, Markdown) and answers.
import { PluginError, type WorkerFile, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import { validateDocument } from '../../document/validator.js';
import { resolveSpecs } from '../../engines/pdf/page-selection.js';
import type { Block, PageText } from './layout.js';
import { docxBlocks, odtBlocks } from './office-text.js';
import { normaliseMarkdown, toDocumentJson, toExtendedMarkdown, toMarkdown } from './output.js';
import { openPdf, readPdf, type PdfText } from './pdf-text.js';
import { classify as classifyText, documentLines, extractField, letterhead, placeholderType, safePart, type FieldValue, type TextLine } from './understand.js';
import { answer } from './engine.js';
import { extractFields } from './fields.js';
import type { OcrEngine } from './ocr.js';
import { classifyByLlm, extractByLlm, placeholdersByLlm, type FieldRequest } from './llm.js';
import type { ClassifyParams, ExtractParams, FilenameParams, OcrParams } from './contract.js';

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const ODT = 'application/vnd.oasis.opendocument.text';
/** Generate-filename and classify read this many first pages; extract without `pages` at most EXTRACT_PAGES. */
const FIRST_PAGES = 3;
const EXTRACT_PAGES = 50;

function inputFile(input: WorkerInput<unknown>): WorkerFile {
  const file = input.files.find((f) => f.field === 'fileId');
  if (!file) throw new Error('lens received no input file.');
  return file;
}

/** Which 0-based pages to read: the specs' pages (in order, each once), else the first `first` pages. */
function selectPages(pageCount: number, specs: string[] | undefined, first: number): number[] {
  if (specs?.length) return [...new Set(resolveSpecs('pages', specs, pageCount).flat())];
  return Array.from({ length: Math.min(pageCount, first) }, (_, i) => i);
}

/** The document as Lens pages; a non-PDF input is one page. */
async function readPages(file: WorkerFile, specs: string[] | undefined, first: number, engine: OcrEngine = 'auto'): Promise<{ pages: PageText[]; pdf?: PdfText }> {
  if (file.mimeType === PDF) {
    const doc = await openPdf(file.bytes, 'fileId');
    try {
      const pdf = await readPdf(doc, selectPages(doc.numPages, specs, first), engine);
      return { pages: pdf.pages, pdf };
    } finally {
      await doc.destroy();
    }
  }
  const blocks = file.mimeType === DOCX ? await docxBlocks(file.bytes, 'fileId') : file.mimeType === ODT ? await odtBlocks(file.bytes, 'fileId') : markdownBlocks(utf8(file));
  return { pages: [{ blocks, header: [], footer: [], source: 'text-layer', bodySize: 11 }] };
}

function utf8(file: WorkerFile): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(file.bytes);
  } catch {
    throw new PluginError('NOT_UTF8', 'fileId is not valid UTF-8 Markdown; save it as UTF-8 and upload it again.');
  }
}

/** Markdown read for understanding (not for output): headings, table rows as cells, other lines as text without markup. */
function markdownBlocks(md: string): Block[] {
  const blocks: Block[] = [];
  const body = md.replace(/^\uFEFF/, '').replace(/^---\n[\s\S]*?\n---\n/, '');
  let previous = '';
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    const before = previous;
    previous = line;
    if (!line || /^\|?\s*:?-{3,}/.test(line) || /^(-{3,}|\*{3,}|:::.*|```.*)$/.test(line)) continue;
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) blocks.push({ kind: 'heading', level: h[1]!.length, text: plain(h[2]!) });
    else if (line.startsWith('|')) {
      // Consecutive rows are one table, so a header row stays above its values.
      const row = line.replace(/^\||\|$/g, '').split('|').map((c) => plain(c.trim()));
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'table' && before.startsWith('|')) last.rows.push(row);
      else blocks.push({ kind: 'table', rows: [row] });
    } else blocks.push({ kind: 'paragraph', text: plain(line.replace(/^([-*+]|\d+[.)])\s+/, '')) });
  }
  return blocks;
}

function plain(text: string): string {
  return text.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_`~]+/g, '').replace(/\\(.)/g, '$1');
}

export async function ocr(input: WorkerInput<OcrParams>): Promise<WorkerOutput> {
  const file = inputFile(input);
  const { outputFormat, pages: specs, ocrEngine } = input.params;
  if (file.mimeType === 'text/markdown') return { result: { outputFormat, content: normaliseMarkdown(utf8(file)) } };
  const { pages, pdf } = await readPages(file, specs, Infinity, ocrEngine);
  if (outputFormat === 'md' || !pdf) return { result: { outputFormat, content: toMarkdown(pages) } };
  const facts = { pageSize: pdf.pageSize, title: pdf.title, bodySize: pages[0]?.bodySize ?? 11 };
  if (outputFormat === 'mdd') return { result: { outputFormat, content: toExtendedMarkdown(pages, facts) } };
  const doc = toDocumentJson(pages, facts);
  const check = validateDocument(doc);
  if (!check.valid) throw new PluginError('OUTPUT_INVALID', `The document JSON read from the PDF does not validate: ${check.errors.slice(0, 3).map((e) => `${e.path} ${e.message}`).join('; ')}.`);
  return { result: { outputFormat, content: JSON.stringify(doc) } };
}

/** The lines as text for the model and the evidence checks: one line per document line, cells joined by ` | `. */
function linesText(lines: TextLine[]): string {
  return lines.map((l) => l.join(' | ')).join('\n');
}

/** Which pages a job read, said for the model. */
function scopeOf(file: WorkerFile, specs: string[] | undefined, first: number): string {
  if (file.mimeType !== PDF) return 'the whole document';
  return specs?.length ? `pages ${specs.join(', ')}` : `at most the first ${first} pages`;
}

export async function classify(input: WorkerInput<ClassifyParams>): Promise<WorkerOutput> {
  const file = inputFile(input);
  const { pages } = await readPages(file, undefined, FIRST_PAGES, input.params.ocrEngine);
  const lines = documentLines(pages);
  const { categories } = input.params;
  return answer(input, {
    text: linesText(lines),
    scope: scopeOf(file, undefined, FIRST_PAGES),
    llm: async (job) => ({ result: { ...(await classifyByLlm(job, categories)) } }),
    builtin: () => ({ ...classifyText(lines.map((l) => l.join(' ')).join('\n'), categories) }),
  });
}

export async function extract(input: WorkerInput<ExtractParams>): Promise<WorkerOutput> {
  const file = inputFile(input);
  const { pages } = await readPages(file, input.params.pages, EXTRACT_PAGES, input.params.ocrEngine);
  const lines = documentLines(pages);
  const fields = input.params.fields as Record<string, FieldRequest>;
  return answer(input, {
    text: linesText(lines),
    scope: scopeOf(file, input.params.pages, EXTRACT_PAGES),
    llm: async (job) => {
      const { data, fieldsMissing, unsupported } = await extractByLlm(job, fields);
      return { result: { data, fieldsMissing }, unsupported };
    },
    builtin: () => ({ ...extractFields(pages, fields, input.params.locale) }),
  });
}

export async function generateFilename(input: WorkerInput<FilenameParams>): Promise<WorkerOutput> {
  const file = inputFile(input);
  const { pages } = await readPages(file, undefined, FIRST_PAGES, input.params.ocrEngine);
  const lines = documentLines(pages);
  const schema = input.params.filenameSchema;
  const names = [...new Set([...schema.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!))];
  const types = Object.fromEntries(names.map((n) => [n, placeholderType(n)]));
  // Both engines find raw values; the same rule turns them into a safe filename.
  const fill = (found: Record<string, FieldValue>) => {
    const placeholders: Record<string, string> = {};
    for (const name of names) {
      const value = found[name] ?? null;
      placeholders[name] = value === null ? 'unknown' : safePart(Array.isArray(value) ? value.join('-') : String(value));
    }
    const generatedFilename = safeFilename(schema.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, n: string) => placeholders[n]!));
    return { generatedFilename, placeholders };
  };
  return answer(input, {
    text: linesText(lines),
    scope: scopeOf(file, undefined, FIRST_PAGES),
    llm: async (job) => {
      const { values, unsupported } = await placeholdersByLlm(job, schema, types);
      return { result: fill(values), unsupported };
    },
    builtin: () => {
      const found: Record<string, FieldValue> = {};
      for (const name of names) {
        found[name] = extractField(lines, name, types[name]!) ?? (types[name] === 'string' ? letterhead(pages, name) : null);
        // A title is the first heading when no line is labelled with it.
        if (found[name] === null && /^(title|subject|heading)$/i.test(name)) found[name] = pages.flatMap((p) => p.blocks).find((b) => b.kind === 'heading')?.text ?? null;
      }
      return fill(found);
    },
  });
}

/** The whole name: the schema's own text is cleaned like a value, keeping dots for an extension. */
function safeFilename(name: string): string {
  const cleaned = name.normalize('NFKC').replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').replace(/\s+/g, '_').replace(/^[.\s]+/, '').slice(0, 200);
  return cleaned || 'unknown';
}
