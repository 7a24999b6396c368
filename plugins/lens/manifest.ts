// lens: document understanding — OCR to Markdown / document JSON, classification, extraction, filenames; offline
// unless the operator configures an OpenAI-compatible endpoint for classify, extract and filenames.
import { definePlugin } from '../../sdk/index.js';
import { PAGE_SELECTION_ERRORS } from '../../engines/pdf/page-selection.js';
import { PDF_LOAD_ERRORS } from '../../engines/pdf/load.js';
import { contract } from './contract.js';

const INPUTS = ['application/pdf', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/vnd.oasis.opendocument.text', 'text/markdown'];
const MAX_BYTES = 50 * 1024 * 1024;
/** Pages one job may process, by organization plan; Enterprise (and any plan not listed) has no limit. */
const PLAN_LIMITS = { Engine: 20, Editor: 150, Pro: 150, 'Pro trial': 150, Team: 150 };
const files = [{ field: 'fileId', accept: INPUTS, maxBytes: MAX_BYTES }];
/** Ends the descriptions of the three actions either engine may answer. */
const ENGINE_NOTE =
  " `engine` says which engine answered (`llm` when the operator's endpoint is configured and its answer passed the checks, else `builtin`, with `fallbackReason`).";

export default definePlugin({
  manifest: {
    id: 'lens',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'lens',
    description:
      'Document understanding: OCR to Markdown or document JSON, classification, field extraction and filename generation. Offline, unless the operator configures an OpenAI-compatible endpoint for classify, extract and generate-filename.',
    actions: [
      {
        name: 'lens.ocr',
        export: 'ocr',
        route: { method: 'POST', path: '/tools/lens/ocr' },
        summary: 'Read a document as Markdown or document JSON',
        description:
          'Creates a tools job whose `result` holds `outputFormat` and `content`. PDF pages are read from their text layer in reading order (columns, headings, tables; running headers and footers apart); pages without one are recognised with Tesseract at 300 dpi. DOCX, ODT and Markdown give `md` only.',
        files,
        pageSpecs: [{ field: 'pages', file: 'fileId' }],
        pages: { file: 'fileId', specs: 'pages', planLimits: PLAN_LIMITS, pdfOnly: [{ field: 'pages' }, { field: 'outputFormat', values: ['mdd', 'json'] }], onlyWhen: [{ field: 'pages', other: 'outputFormat', values: ['md'] }] },
        credits: { perRequest: 0, perPage: { field: 'outputFormat', values: { md: 2, mdd: 18, json: 18 } } },
      },
      {
        name: 'lens.classify',
        export: 'classify',
        route: { method: 'POST', path: '/tools/lens/classify' },
        summary: 'Classify a document into one of the given categories',
        description: 'Creates a tools job whose `result` holds `category` (always one of `categories`), `confidence` (0 to 1) and `reasoning`. The first 3 pages are read.' + ENGINE_NOTE,
        files,
        pages: { file: 'fileId', firstPages: 3, planLimits: PLAN_LIMITS },
        credits: { perRequest: 6 },
      },
      {
        name: 'lens.extract',
        export: 'extract',
        route: { method: 'POST', path: '/tools/lens/extract' },
        summary: 'Extract typed fields from a document',
        description: 'Creates a tools job whose `result` holds `data` (field → value or null) and `fieldsMissing`. Without `pages`, the first 50 pages of a PDF are read.' + ENGINE_NOTE,
        files,
        pageSpecs: [{ field: 'pages', file: 'fileId' }],
        pages: { file: 'fileId', specs: 'pages', firstPages: 50, planLimits: PLAN_LIMITS, pdfOnly: [{ field: 'pages' }] },
        credits: { perRequest: 0, perPage: 14 },
      },
      {
        name: 'lens.generate-filename',
        export: 'generateFilename',
        route: { method: 'POST', path: '/tools/lens/generate-filename' },
        summary: 'Generate a filename from a document',
        description: 'Creates a tools job whose `result` holds `generatedFilename` and `placeholders`; each `{placeholder}` of `filenameSchema` is filled from the first 3 pages, `unknown` when not found.' + ENGINE_NOTE,
        files,
        pages: { file: 'fileId', firstPages: 3, planLimits: PLAN_LIMITS },
        credits: { perRequest: 6 },
      },
    ],
    requires: [],
    // Classify, extract and generate-filename may ask the operator's endpoint (QUIRE_LLM_*), through the URL policy.
    outbound: true,
    llm: true,
    // threadMemoryMb: a thread reading a scanned A4 page with PP-OCR peaks about 350 MB above its start (the page's
    // bitmaps and the detection network's tensors, most of it native memory; docs/benchmarks.md "Soak"): three slots.
    pool: { maxThreads: 2, maxQueue: 8, memoryMb: 1024, timeoutMs: 600_000, maxBacklog: 32, threadMemoryMb: 384 },
    // PP-OCR's runtime: a second thread could not load it after the first one ended (recycled, or idle and shed).
    nativeModules: ['onnxruntime-node'],
    errors: {
      ...PAGE_SELECTION_ERRORS,
      PDF_UNREADABLE: 'The PDF cannot be parsed.',
      PDF_ENCRYPTED: 'The PDF is password-protected.',
      PDF_TOO_COMPLEX: PDF_LOAD_ERRORS.PDF_TOO_COMPLEX,
      PDF_DECOMPRESSION_BOMB: PDF_LOAD_ERRORS.PDF_DECOMPRESSION_BOMB,
      IMAGE_TOO_LARGE: 'A scanned page holds an image whose header declares more than 50 megapixels or 20,000 pixels on a side; it is not decoded.',
      DOCUMENT_UNREADABLE: 'The DOCX or ODT file cannot be read.',
      NOT_UTF8: 'The Markdown file is not valid UTF-8.',
      OUTPUT_INVALID: 'The document JSON built from the PDF does not validate (a bug; the message names the problem).',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
