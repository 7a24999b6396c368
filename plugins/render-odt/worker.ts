// Worker of render.odt: document JSON → the resolved office model (shared with DOCX) → ODT bytes.
import { PluginError, type WorkerInput, type WorkerOutput } from '../../kernel/plugin-api.js';
import type { DocumentJson } from '../../contracts/document-json.js';
import type { LoadedImage } from '../lib/render-input.js';
import { resolveDocument, warmUpResolver } from '../lib/office/resolve.js';
import { writeOdt } from '../lib/office/odt-writer.js';
import { ODT_MIME } from '../lib/office/odt-common.js';
import type { RenderOdtParams, RenderOdtResult } from './contract.js';

// A new thread loads what the first document would otherwise pay for (fonts, CSL engines, grammars, the
// writer's code paths, jszip and the Typst compiler that draws equations) while it is still idle; a failed warm-up only means a slower first job, which reports any real problem.
setImmediate(() => {
  const tiny = { document: { type: 'odt' as const }, sections: [{ type: 'flow' as const, content: [{ type: 'h1' as const, text: 'Warm-up' }, { type: 'table' as const, rows: [['a']] }, { type: 'math' as const, latex: 'x^2' }] }] };
  warmUpResolver()
    .then(() => resolveDocument(tiny, new Map(), { createdAt: new Date(0).toISOString() }))
    .then((office) => writeOdt(office))
    .catch(() => undefined);
});

export async function renderOdt(input: WorkerInput<RenderOdtParams>): Promise<WorkerOutput> {
  const doc = input.params.document as unknown as DocumentJson;
  const images = new Map<string, LoadedImage>();
  for (const f of input.files) images.set(f.filename, { bytes: f.bytes, mimeType: f.mimeType });
  const fontDirs = Array.isArray(input.settings.fontDirs) ? input.settings.fontDirs.filter((d): d is string => typeof d === 'string') : undefined;
  // resolveDocument throws RenderInputError (INVALID_DOCUMENT, with every path) for what cannot be rendered.
  const office = await resolveDocument(doc, images, { createdAt: input.params.createdAt, fontDirs });
  let bytes: Uint8Array;
  try {
    bytes = await writeOdt(office);
  } catch (err) {
    throw new PluginError('RENDER_FAILED', `The ODT could not be written: ${(err as Error).message}.`);
  }
  const result: RenderOdtResult = { warnings: office.warnings };
  return { file: { bytes, mimeType: ODT_MIME, filename: `${doc.document.filename ?? 'document'}.odt` }, result };
}
