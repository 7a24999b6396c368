// Document JSON → PDF bytes for every target drawn from the PDF (render.pdf, render.png/jpeg): one Typst compiler
// per thread, a virtual workspace per job, the PDF and its compliance facts out.
import { readFileSync } from 'node:fs';
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import { PluginError, type WarmUpPause, type WorkerInput } from '../../sdk/plugin-api.js';
import { checkReadiness } from '../../document/readiness.js';
import type { DocumentJson } from '../../contracts/document-json.js';
import { buildTypstInput, type LoadedImage } from './typst-data.js';
import { bundledFontFiles } from '../fonts/bundled-fonts.js';
import { BUNDLED_FAMILIES, fontStack } from '../fonts/pdf-fonts.js';
import { glyphMissingMessage, missingGlyphs } from '../fonts/glyph-coverage.js';
import type { PdfCompliance, PdfProfile, RenderJobInput, RenderWarning } from '../../contracts/render.js';

/** What one compile needs: a render job's input (the validated document, the PDF flavour, the job's time: the PDF's date). */
export type CompileParams = RenderJobInput;

/** The facts of a compiled PDF: the render job's result. */
export type CompileResult = {
  pageCount: number;
  pdfCompliance: PdfCompliance;
  warnings: RenderWarning[];
};

/** The compiler's project root. It exists only in memory: documents can read nothing from disk. */
const WORKSPACE = '/quire-render';
const MAIN = `${WORKSPACE}/main.typ`;
const LIBRARY = readFileSync(new URL('../../../engines/typst/assets/quire.typ', import.meta.url), 'utf8');


const STANDARDS: Record<PdfProfile, string | undefined> = { standard: undefined, 'pdfa-1b': 'a-1b', 'pdfa-2b': 'a-2b', 'pdfa-3b': 'a-3b', 'pdfua-1': 'ua-1' };

let compiler: { instance: NodeCompiler; fontKey: string } | null = null;

/**
 * One compiler per thread, with the bundled fonts and the operator's `settings.fontDirs`. The bundled
 * fonts are given as file paths, not bytes: the compiler then reads a file when a document first uses
 * it, and holds that one copy. Read here and handed over as bytes, all 19 files (7.3 MB) were read and
 * copied by every new thread: about 14 MB more memory and 70 ms more CPU a thread, and a recycle starts
 * two (measured: bench notes in docs/benchmarks.md).
 */
function getCompiler(settings: Record<string, unknown>): NodeCompiler {
  const fontDirs = Array.isArray(settings.fontDirs) ? settings.fontDirs.filter((d): d is string => typeof d === 'string') : [];
  const fontKey = fontDirs.join('\0');
  if (compiler?.fontKey !== fontKey) {
    const instance = NodeCompiler.create({ workspace: WORKSPACE, fontArgs: [{ fontPaths: bundledFontFiles() }, ...(fontDirs.length ? [{ fontPaths: fontDirs }] : [])] });
    instance.addSource(MAIN, LIBRARY);
    compiler = { instance, fontKey };
  }
  return compiler.instance;
}

/** How many sample documents a new thread renders in its warm-up (see warmUpCompiler). */
export const WARM_UP_RENDERS = 4;

/**
 * A small business document of the common kinds of content (heading, paragraphs with inline markup, a table
 * with a header row and right-aligned numbers, a list, header and footer with page numbers), varied by `n`.
 */
export function warmUpDocument(n: number): DocumentJson {
  const rows = Array.from({ length: 8 }, (_, i) => [`Line ${i + 1}: ${['planning', 'delivery', 'support', 'licences'][(i + n) % 4]}`, String(1 + ((i + n) % 3)), (95 + i * 12.5 + n).toFixed(2)]);
  return {
    document: { type: 'pdf', title: `Sample ${n}`, size: 'A4' },
    sections: [
      {
        type: 'flow',
        content: [
          { type: 'h1', text: `Statement ${1000 + n}` },
          { type: 'text', text: `**Northwind Traders**\nAccounts department\n${n + 4} Market Street` },
          { type: 'text', text: `Issued on day ${n + 1} · *reference* S-${n}`, align: 'right' },
          { type: 'table', headerRows: 1, columns: [{ width: '3fr' }, { width: '1fr', align: 'right' }, { width: '1fr', align: 'right' }], rows: [['Description', 'Qty', 'Amount'], ...rows] },
          { type: 'list', items: ['Payment within 30 days', `Questions: extension ${200 + n}`] },
        ],
      },
    ],
    defaults: { header: { text: 'Northwind Traders', align: 'right' }, footer: { text: 'Page {{page}} of {{pages}}', align: 'center' } },
  } as DocumentJson;
}

/**
 * Creates the compiler and renders a few sample documents through the same steps as a job. A worker calls it
 * while its new thread is still idle (setImmediate at import), so the first jobs do not pay for it; threads are
 * replaced regularly (recycleAfter), and then the kernel's `pause` spreads the costly steps. Measured on
 * recycled threads (docs/benchmarks.md): with only the library compiled, a new thread's first four invoices
 * took 45–117 ms each against 7 ms once warm (the JavaScript of these steps not yet compiled by V8, fonts read
 * on first use, Typst's first layouts), which showed as a burst of slow jobs after every recycle.
 */
export async function warmUpCompiler(pause: WarmUpPause = () => Promise.resolve()): Promise<void> {
  try {
    getCompiler({});
    for (let n = 0; n < WARM_UP_RENDERS; n++) {
      await pause();
      compileDocument({ params: { document: warmUpDocument(n) as unknown as CompileParams['document'], pdfProfile: 'standard', createdAt: '2026-01-01T00:00:00Z' }, files: [], settings: {} });
    }
  } catch {
    // A failed warm-up only means the first job is slower; that job reports any real problem.
  }
}

/** What a compile gives: the PDF and the facts render.pdf reports about it. */
export interface CompiledPdf {
  pdf: Buffer;
  result: CompileResult;
}

/**
 * Compiles the job's document (checked against its PDF profile first) with the images the kernel loaded.
 * Fails with PluginError PROFILE_UNMET, GLYPH_MISSING or RENDER_FAILED.
 */
export function compileDocument(input: WorkerInput<CompileParams>): CompiledPdf {
  const doc = input.params.document as unknown as DocumentJson;
  const profile = input.params.pdfProfile;
  const problems = profileProblems(doc, profile);
  if (problems.length) {
    throw new PluginError('PROFILE_UNMET', `The document cannot meet ${profile}: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`, { problems });
  }
  checkGlyphs(doc, profile, input.settings);
  const images = new Map<string, LoadedImage>();
  for (const f of input.files) images.set(f.filename, { bytes: f.bytes, mimeType: f.mimeType });
  const { data, files } = buildTypstInput(doc, images);

  const c = getCompiler(input.settings);
  const shadows = [`${WORKSPACE}/doc.json`, ...files.map((f) => `${WORKSPACE}${f.path}`)];
  c.mapShadow(shadows[0]!, Buffer.from(JSON.stringify(data)));
  files.forEach((f, i) => c.mapShadow(shadows[i + 1]!, Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength)));
  let pdf: Buffer;
  try {
    pdf = c.pdf({ mainFilePath: MAIN }, { pdfStandard: STANDARDS[profile] as never, pdfTags: true, creationTimestamp: Math.floor(Date.parse(input.params.createdAt) / 1000) });
  } catch (err) {
    throw typstFailure(err, profile);
  } finally {
    for (const p of shadows) c.unmapShadow(p);
    // Every render, max age 10: evicting only every 5th or 10th render saved eviction time but made the
    // compiles slower by more (a larger cache), see "evictCache" in docs/benchmarks.md.
    c.evictCache(10);
  }
  const pdfCompliance = inspectCompliance(pdf, profile);
  return { pdf, result: { pageCount: countPages(pdf), pdfCompliance, warnings: fontWarnings(doc, input.settings) } };
}

/**
 * What a profile needs that the document lacks, each with its path (checked before rendering). For PDF/UA-1
 * these are exactly the readiness report's errors under pdfua-1, so that a report with status ready
 * promises a render that is not refused for them.
 */
export function profileProblems(doc: DocumentJson, profile: PdfProfile): Array<{ path: string; message: string }> {
  if (profile !== 'pdfua-1') return [];
  return checkReadiness(doc, profile, new Date(0))
    .issues.filter((i) => i.severity === 'error')
    .map((i) => ({ path: i.path, message: `${i.message} PDF/UA-1 requires it: ${i.suggestion}` }));
}

/**
 * PDF/A and PDF/UA require every character to be drawn from an embedded font: a character no font has fails
 * the job with GLYPH_MISSING, every place listed (the render request already warned about each). Without a
 * profile the job completes, with the request's GLYPH_MISSING warnings. Skipped when the operator added font
 * folders: their fonts may have the character, and Typst itself still refuses a PDF/A it cannot draw.
 */
function checkGlyphs(doc: DocumentJson, profile: PdfProfile, settings: Record<string, unknown>): void {
  if (profile === 'standard' || (Array.isArray(settings.fontDirs) && settings.fontDirs.length)) return;
  const missing = missingGlyphs(doc);
  if (!missing.length) return;
  const problems = missing.map((m) => ({ path: `config.${m.path}`, message: glyphMissingMessage(m) }));
  throw new PluginError('GLYPH_MISSING', `The document cannot meet ${profile}, which needs every character drawn from an embedded font: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}.`, { problems });
}

/** Families the document asks for that are neither bundled nor possibly in the operator's font folders. */
function fontWarnings(doc: DocumentJson, settings: Record<string, unknown>): CompileResult['warnings'] {
  if (Array.isArray(settings.fontDirs) && settings.fontDirs.length) return [];
  const known = new Set(BUNDLED_FAMILIES.map((f) => f.toLowerCase()));
  const warnings: CompileResult['warnings'] = [];
  const check = (family: string | undefined, path: string) => {
    const main = family ? fontStack(family)[0]! : undefined;
    if (main && !known.has(main.toLowerCase())) {
      warnings.push({ path, code: 'FONT_NOT_INSTALLED', message: `font "${family}" is not installed on this server; ${fontStack(undefined)[0]} was used. Installed: ${BUNDLED_FAMILIES.join(', ')}` });
    }
  };
  check(doc.defaults?.fonts?.family, 'config.defaults.fonts.family');
  doc.sections.forEach((s, i) => s.content.forEach((el, j) => el.type === 'text' && check(el.style?.fontFamily, `config.sections[${i}].content[${j}].style.fontFamily`)));
  return warnings;
}

/** Typst reports failures in `err.code` as a debug list of diagnostics; keep the messages and hints. */
function typstFailure(err: unknown, profile: PdfProfile): PluginError {
  const raw = String((err as { code?: unknown }).code ?? (err as Error).message ?? err);
  const messages = [...raw.matchAll(/message: "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\"/g, '"'));
  const hints = [...raw.matchAll(/hints: \[((?:"(?:[^"\\]|\\.)*",? ?)*)\]/g)].flatMap((m) => [...m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((h) => h[1]!));
  const text = messages.length ? messages.join('; ') : raw.replace(/^\d+: /, '').slice(0, 500);
  const hint = hints.length ? ` (${[...new Set(hints)].join('; ')})` : '';
  if (/PDF\/(A|UA)/.test(text)) return new PluginError('PROFILE_UNMET', `The document cannot meet ${profile}: ${text}${hint}.`);
  return new PluginError('RENDER_FAILED', `The PDF could not be rendered: ${text}${hint}.`);
}

/** Reads the identification markers the file carries (XMP is stored uncompressed, as PDF/A requires). */
export function inspectCompliance(pdf: Buffer, profile: PdfProfile): PdfCompliance {
  const text = pdf.toString('latin1');
  const attr = (name: string) => new RegExp(`${name}(?:>|=")([^<"]+)`).exec(text)?.[1] ?? null;
  const part = attr('pdfaid:part');
  const uaPart = attr('pdfuaid:part');
  return {
    profile,
    tagged: /\/StructTreeRoot/.test(text) || /\/Marked\s+true/.test(text),
    pdfaPart: part ? Number(part) : null,
    pdfaConformance: attr('pdfaid:conformance'),
    pdfuaPart: uaPart ? Number(uaPart) : null,
    pdfVersion: /^%PDF-(\d\.\d)/.exec(text)?.[1] ?? 'unknown',
  };
}

function countPages(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  let max = 0;
  for (const m of text.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g)) max = Math.max(max, Number(m[1] ?? m[2]));
  if (max) return max;
  return Math.max(1, (text.match(/\/Type\s*\/Page\b/g) ?? []).length);
}
