// A planned page-image render run at once on its plugin's pool, with no job and no credits: the public form page's
// preview and the editor's (POST /render/markdown/preview) both draw their page here, as the catalog previews do.
import { HttpError } from '../contracts/errors.js';
import { loadRenderImage, type RenderImageSources } from '../kernel/render-images.js';
import type { WorkerFile } from '../sdk/plugin-api.js';
import type { PlannedRender } from './render-service.js';

/** A preview waits less than a render job (15 s) for an image the document fetches from a URL. */
const REMOTE_IMAGE_TIMEOUT_MS = 5000;

/** The image bytes of `planned` (a single page image); HttpError when its plugin cannot run it here. */
export async function renderPreviewNow(sources: RenderImageSources, orgId: string, planned: PlannedRender): Promise<Buffer> {
  const { reg, spec } = planned;
  if (!reg.plugin.pool || reg.plugin.state !== 'enabled') throw new HttpError('PLUGIN_UNAVAILABLE', 'Previews need PNG rendering, which is not available on this server.', undefined, { 'Retry-After': '3600' });
  const files: WorkerFile[] = [];
  for (const src of spec.imageSources ?? []) files.push(await loadRenderImage(sources, orgId, src, REMOTE_IMAGE_TIMEOUT_MS));
  const output = await reg.plugin.pool.run(reg.action.export, { params: spec.params, files, settings: reg.plugin.settings });
  if (!output.file) throw new Error('the preview render gave no file');
  return Buffer.from(output.file.bytes.buffer, output.file.bytes.byteOffset, output.file.bytes.byteLength);
}
