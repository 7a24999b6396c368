// The live preview of a form: page 1 of its document with the values typed so far, as a small PNG, rendered on the
// PNG plugin's pool directly as the catalog previews are (no job, no credits; one at a time per form).
import { HttpError } from '../../contracts/errors.js';
import { checkImage } from '../../engines/image/image-check.js';
import { KeyedMutex } from '../../kernel/keyed-mutex.js';
import { resolveAssetPath, resolveTempImagePath } from '../../kernel/temp-images.js';
import { getBytes } from '../../sdk/outbound-http.js';
import type { WorkerFile } from '../../sdk/plugin-api.js';
import type { Kernel } from '../../kernel/kernel.js';
import type { DocumentRecord, FormRecord, FormValue } from '../../kernel/model.js';
import type { Services } from '../composition-root.js';

/** Small enough to come back fast, large enough to read (A4 page 1 is 496 × 702 pixels). */
export const PREVIEW_DPI = 60;
const REMOTE_IMAGE_TIMEOUT_MS = 5000;

const locks = new KeyedMutex();

/** The bytes of an image the document draws, as the render job would load them. */
async function loadImage(kernel: Kernel, orgId: string, src: string): Promise<WorkerFile> {
  const tempId = resolveTempImagePath(src);
  const assetId = tempId ? null : resolveAssetPath(src);
  let bytes: Buffer;
  if (tempId || assetId) {
    const stored = tempId ? await kernel.store.getFile(orgId, tempId) : await kernel.store.getAsset(orgId, assetId!);
    if (!stored) throw new Error(`image ${src} is gone`);
    bytes = await kernel.blobs.get(stored.id);
  } else {
    ({ bytes } = await getBytes(kernel.policy, src, { timeoutMs: REMOTE_IMAGE_TIMEOUT_MS, maxBytes: kernel.config.maxImageBytes, subject: 'the image URL' }));
  }
  const { mimeType } = await checkImage(bytes, { maxPixels: kernel.config.maxImagePixels, maxSide: kernel.config.maxImageSide });
  return { field: 'image', fileId: tempId ?? assetId ?? src, filename: src, mimeType, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/** Page 1 as PNG bytes; throws when the document with these values cannot be rendered. */
export async function renderPreview(kernel: Kernel, services: Services, form: FormRecord, document: DocumentRecord, values: Record<string, FormValue>): Promise<Buffer> {
  return locks.run(form.id, async () => {
    const variables = services.forms.variablesOf(form, document, values) as Record<string, unknown>;
    const { reg, spec } = await services.renders.planDocument(form.orgId, document, { variables, format: 'PNG', image: { format: 'png', dpi: PREVIEW_DPI, pages: ['1'] } }, false, 'the form preview');
    if (!reg.plugin.pool || reg.plugin.state !== 'enabled') throw new HttpError('PLUGIN_UNAVAILABLE', 'Previews need PNG rendering, which is not available on this server.');
    const files: WorkerFile[] = [];
    for (const src of spec.imageSources ?? []) files.push(await loadImage(kernel, form.orgId, src));
    const output = await reg.plugin.pool.run(reg.action.export, { params: spec.params, files, settings: reg.plugin.settings });
    if (!output.file) throw new Error('the preview render gave no file');
    return Buffer.from(output.file.bytes.buffer, output.file.bytes.byteOffset, output.file.bytes.byteLength);
  });
}
