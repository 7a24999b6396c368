// render-odt: the ODT render target. Document JSON → the resolved office model → OpenDocument Text (ODF 1.2).
import { definePlugin } from '../../sdk/index.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'render-odt',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'render-target',
    description: 'Renders document JSON to an editable OpenDocument Text file (ODT): outline headings, lists, tables, MathML formulas, footnotes, pre-filled indexes.',
    actions: [
      {
        name: 'render.odt',
        export: 'renderOdt',
        target: 'odt',
        summary: 'Render document JSON to ODT',
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    // Typst draws the pictures of equations and keeps native memory per distinct formula until its thread
    // exits, so threads are replaced after `recycleAfter` renders (as render-pdf's).
    pool: { maxThreads: 2, maxQueue: 64, memoryMb: 512, timeoutMs: 60_000, maxBacklog: 2000, recycleAfter: 500 },
    errors: {
      INVALID_DOCUMENT: 'The document cannot be rendered as given (a field names what to change).',
      RENDER_FAILED: 'The ODT could not be written; the message says why.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
