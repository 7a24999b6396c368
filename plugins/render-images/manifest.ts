// render-images: the PNG and JPEG render targets. Document JSON → the PDF of render-pdf → page images (pdfjs + canvas).
import { definePlugin } from '../../sdk/index.js';
import { PAGE_SELECTION_ERRORS } from '../../engines/pdf/page-selection.js';
import { prepareTypstEnvironment } from '../../engines/typst/environment.js';
import { contract } from './contract.js';

// The worker compiles with Typst like render-pdf, so fontconfig must see the same fonts.conf.
prepareTypstEnvironment();

const DESCRIPTION =
  'Renders the document to PDF exactly as render.pdf does and rasterises the pages `image.pages` selects at `image.dpi`. ' +
  'One selected page gives the image; several give a ZIP of page-<n> images.';

export default definePlugin({
  manifest: {
    id: 'render-images',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'render-target',
    description: 'Renders document JSON to page images (PNG or JPEG) of its PDF rendering, at 36 to 600 dpi.',
    actions: [
      { name: 'render.png', export: 'renderImages', target: 'png', summary: 'Render document JSON to PNG page images', description: DESCRIPTION, credits: { perRequest: 1 } },
      { name: 'render.jpeg', export: 'renderImages', target: 'jpeg', summary: 'Render document JSON to JPEG page images', description: DESCRIPTION, credits: { perRequest: 1 } },
    ],
    requires: [],
    // Typst keeps native memory per distinct document (see render-pdf); canvases are freed per page. A job
    // may rasterise up to 500 megapixels, hence the longer deadline.
    pool: { maxThreads: 2, maxQueue: 32, memoryMb: 768, timeoutMs: 180_000, maxBacklog: 500, recycleAfter: 200 },
    errors: {
      PROFILE_UNMET: 'The document cannot meet the requested PDF profile; every offending path is listed.',
      GLYPH_MISSING: 'Under a PDF/A or PDF/UA profile: characters no available font can draw; every place, the characters and the fonts tried are listed.',
      RENDER_FAILED: 'The Typst compiler refused the document; the message says why.',
      ...PAGE_SELECTION_ERRORS,
      IMAGE_TOO_LARGE: 'The selected pages at the requested dpi exceed the pixel limits (100 megapixels a page, 500 in all); the message gives the figures.',
      RASTERISE_FAILED: 'A page of the rendered PDF could not be rasterised; the message names the page.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
