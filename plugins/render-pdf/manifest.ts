// render-pdf: the PDF render target. Document JSON → Typst → tagged PDF (standard, PDF/A or PDF/UA).
import { definePlugin } from '../../sdk/index.js';
import { contract } from './contract.js';
import { prepareTypstEnvironment } from '../../engines/typst/environment.js';

prepareTypstEnvironment();

export default definePlugin({
  manifest: {
    id: 'render-pdf',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'render-target',
    description: 'Renders document JSON to PDF with Typst: tagged, with PDF/A-1b/2b/3b and PDF/UA-1 profiles.',
    actions: [
      {
        name: 'render.pdf',
        export: 'renderPdf',
        target: 'pdf',
        summary: 'Render document JSON to PDF',
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    // Typst keeps native memory per distinct document; threads are replaced after `recycleAfter` renders.
    // Three threads on the two-core reference machine: with two, a core sat idle whenever a render thread
    // waited for the main thread to take its PDF and hand it the next job (under load: up to 32 % more renders
    // a second and a lower p99, RSS band still 55-66 MB over 20,000 renders; docs/benchmarks.md, 26 November).
    pool: { maxThreads: 3, maxQueue: 64, memoryMb: 512, timeoutMs: 60_000, maxBacklog: 2000, recycleAfter: 500, warmAtBoot: true },
    errors: {
      INVALID_DOCUMENT: 'The document cannot be rendered as given (a field names what to change).',
      PROFILE_UNMET: 'The document cannot meet the requested PDF profile; every offending path is listed.',
      GLYPH_MISSING: 'Under a PDF/A or PDF/UA profile: characters no available font can draw; every place, the characters and the fonts tried are listed.',
      RENDER_FAILED: 'The Typst compiler refused the document; the message says why.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
