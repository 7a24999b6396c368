// render-docx: the DOCX render target. Document JSON → the resolved office model → native Word structures (docx).
import { definePlugin } from '../../sdk/index.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'render-docx',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'render-target',
    description: 'Renders document JSON to an editable Word document (DOCX): heading styles, numbered lists, tables, Office Math, footnotes, TOC fields.',
    actions: [
      {
        name: 'render.docx',
        export: 'renderDocx',
        target: 'docx',
        summary: 'Render document JSON to DOCX',
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    // Pure JavaScript (no native engine keeping memory), so threads need no recycling.
    pool: { maxThreads: 2, maxQueue: 64, memoryMb: 512, timeoutMs: 60_000, maxBacklog: 2000 },
    errors: {
      INVALID_DOCUMENT: 'The document cannot be rendered as given (a field names what to change).',
      RENDER_FAILED: 'The DOCX could not be written; the message says why.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
