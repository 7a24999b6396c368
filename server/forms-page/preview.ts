// The live preview of a form: page 1 of its document with the values typed so far, as a small PNG, rendered on the
// PNG plugin's pool directly as the catalog previews are (no job, no credits; one at a time per form).
import { HttpError } from '../../contracts/errors.js';
import { KeyedMutex } from '../../kernel/keyed-mutex.js';
import { loadRenderImage, type RenderImageSources } from '../../kernel/render-images.js';
import type { WorkerFile } from '../../sdk/plugin-api.js';
import type { DocumentRecord, FormRecord, FormValue } from '../../kernel/model.js';
import type { Services } from '../composition-root.js';

/** Small enough to come back fast, large enough to read (A4 page 1 is 496 × 702 pixels). */
export const PREVIEW_DPI = 60;
/** A preview waits less than a render job (15 s) for an image the document fetches from a URL. */
const REMOTE_IMAGE_TIMEOUT_MS = 5000;

const locks = new KeyedMutex();

/** Page 1 as PNG bytes; throws when the document with these values cannot be rendered. */
export async function renderPreview(kernel: RenderImageSources, services: Services, form: FormRecord, document: DocumentRecord, values: Record<string, FormValue>): Promise<Buffer> {
  return locks.run(form.id, async () => {
    const variables = services.forms.variablesOf(form, document, values) as Record<string, unknown>;
    const { reg, spec } = await services.renders.planDocument(form.orgId, document, { variables, format: 'PNG', image: { format: 'png', dpi: PREVIEW_DPI, pages: ['1'] } }, false, 'the form preview');
    if (!reg.plugin.pool || reg.plugin.state !== 'enabled') throw new HttpError('PLUGIN_UNAVAILABLE', 'Previews need PNG rendering, which is not available on this server.');
    const files: WorkerFile[] = [];
    for (const src of spec.imageSources ?? []) files.push(await loadRenderImage(kernel, form.orgId, src, REMOTE_IMAGE_TIMEOUT_MS));
    const output = await reg.plugin.pool.run(reg.action.export, { params: spec.params, files, settings: reg.plugin.settings });
    if (!output.file) throw new Error('the preview render gave no file');
    return Buffer.from(output.file.bytes.buffer, output.file.bytes.byteOffset, output.file.bytes.byteLength);
  });
}
