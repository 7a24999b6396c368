// Worker of render.docx: document JSON → the resolved office model (shared with ODT) → DOCX bytes.
import { PluginError, type WorkerInput, type WorkerOutput } from '../../kernel/plugin-api.js';
import type { DocumentJson } from '../../contracts/document-json.js';
import type { LoadedImage } from '../lib/render-input.js';
import { resolveDocument, warmUpResolver } from '../lib/office/resolve.js';
import { writeDocx } from '../lib/office/docx-writer.js';
import type { RenderDocxParams, RenderDocxResult } from './contract.js';

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

// A new thread prepares the resolver (fonts, CSL engines, Temml, grammars) and the docx writer while it is
// still idle, so the first job does not pay for it.
setImmediate(() => {
  warmUpResolver()
    .then(() => resolveDocument({ document: { type: 'docx' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Warm-up' }, { type: 'table', headerRows: 1, rows: [['a'], ['b']] }] }] }, new Map(), { createdAt: new Date(0).toISOString() }))
    .then(writeDocx)
    .catch(() => {
      // A failed warm-up only means the first job is slower; that job reports any real problem.
    });
});

export async function renderDocx(input: WorkerInput<RenderDocxParams>): Promise<WorkerOutput> {
  const doc = input.params.document as unknown as DocumentJson;
  const images = new Map<string, LoadedImage>();
  for (const f of input.files) images.set(f.filename, { bytes: f.bytes, mimeType: f.mimeType });
  const fontDirs = Array.isArray(input.settings.fontDirs) ? input.settings.fontDirs.filter((d): d is string => typeof d === 'string') : undefined;
  // resolveDocument throws RenderInputError (INVALID_DOCUMENT, with every path) for what cannot be rendered.
  const office = await resolveDocument(doc, images, { createdAt: input.params.createdAt, fontDirs });
  let bytes: Uint8Array;
  try {
    bytes = await writeDocx(office);
  } catch (err) {
    throw new PluginError('RENDER_FAILED', `The DOCX could not be written: ${(err as Error).message}.`);
  }
  const result: RenderDocxResult = { warnings: office.warnings };
  return { file: { bytes, mimeType: DOCX_MIME, filename: `${doc.document.filename ?? 'document'}.docx` }, result };
}
