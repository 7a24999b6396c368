// The images a render draws, loaded for the worker: a temporary image, an organization's asset, or a URL fetched under
// the outbound policy, each checked as an upload is (type by content, pixel limits, safe SVG). The render job and the
// form page's preview both load them here, so a preview draws exactly what the render would.
import { JobError } from '../contracts/errors.js';
import { checkImage } from '../engines/image/image-check.js';
import { getBytes } from '../sdk/outbound-http.js';
import { resolveAssetPath, resolveTempImagePath } from './temp-images.js';
import type { WorkerFile } from '../sdk/plugin-api.js';
import type { UrlPolicy } from '../sdk/url-policy.js';
import type { Clock } from './clock.js';
import type { QuireConfig } from './config.js';
import type { Store } from './store/store.js';
import type { BlobStore } from './store/blob-store.js';

export interface RenderImageSources {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  policy: UrlPolicy;
  config: Pick<QuireConfig, 'maxImageBytes' | 'maxImagePixels' | 'maxImageSide'>;
}

/**
 * An image a render draws, as a worker file whose `filename` is its `src`; JobError INPUT_MISSING when it is gone,
 * cannot be fetched within `remoteTimeoutMs`, or is not a usable image.
 */
export async function loadRenderImage(from: RenderImageSources, orgId: string, src: string, remoteTimeoutMs: number): Promise<WorkerFile> {
  const tempId = resolveTempImagePath(src);
  const assetId = tempId ? null : resolveAssetPath(src);
  let bytes: Buffer;
  if (tempId || assetId) {
    const stored = tempId ? await from.store.getFile(orgId, tempId) : await from.store.getAsset(orgId, assetId!);
    const usable = stored && (!('kind' in stored) || (stored.kind === 'IMAGE' && stored.expiresAt > from.clock.now().toISOString()));
    if (!usable) {
      throw new JobError('INPUT_MISSING', tempId ? `Image ${src} expired or was deleted before the render ran; upload it again.` : `Image ${src} was deleted (with the last document that used it) before the render ran.`);
    }
    try {
      bytes = await from.blobs.get(stored.id);
    } catch {
      throw new JobError('INPUT_MISSING', `Image ${src} is no longer stored; upload it again.`);
    }
  } else {
    try {
      ({ bytes } = await getBytes(from.policy, src, { timeoutMs: remoteTimeoutMs, maxBytes: from.config.maxImageBytes, subject: 'the image URL' }));
    } catch (err) {
      throw new JobError('INPUT_MISSING', `Image ${src} could not be fetched: ${(err as Error).message}.`);
    }
  }
  // The upload's checks, for fetched images too: type by content, pixel limits (decompression bombs), safe SVG.
  let mimeType: string;
  try {
    ({ mimeType } = await checkImage(bytes, { maxPixels: from.config.maxImagePixels, maxSide: from.config.maxImageSide }));
  } catch (err) {
    throw new JobError('INPUT_MISSING', `Image ${src} cannot be used: ${(err as Error).message}`);
  }
  return { field: 'image', fileId: tempId ?? assetId ?? src, filename: src, mimeType, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}
