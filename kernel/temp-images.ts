// Images of documents: temporary ones (POST /images/upload, `/temp-image/<id>`, a fixed lifetime) and permanent
// assets (`/image/<id>`, made when a document is saved).

/** The spec's "Temporary images valid 24 hours"; not the tool files' configurable TTL. */
export const TEMP_IMAGE_TTL_SECONDS = 24 * 3600;

export function tempImagePath(id: string): string {
  return `/temp-image/${id}`;
}

/**
 * The file id behind an image `src` of the form `/temp-image/<uuid>`, or null for any other source.
 * The caller still looks the id up in the caller's organization and checks `kind: 'IMAGE'` and expiry.
 */
export function resolveTempImagePath(src: string): string | null {
  const m = /^\/temp-image\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(src);
  return m ? m[1]!.toLowerCase() : null;
}

export function assetPath(id: string): string {
  return `/image/${id}`;
}

/** The asset id behind an image `src` of the form `/image/<uuid>`, or null; the caller looks it up in its organization. */
export function resolveAssetPath(src: string): string | null {
  const m = /^\/image\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(src);
  return m ? m[1]!.toLowerCase() : null;
}
