// Temporary images for documents: upload (multipart) → a /temp-image/<id> path valid 24 hours.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { checkImage } from '../../engines/image/image-check.js';
import { TEMP_IMAGE_TTL_SECONDS, tempImagePath } from '../../kernel/temp-images.js';
import type { FileRecord } from '../../kernel/model.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { receiveUpload } from '../upload.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';
import { TempImageSchema, type TempImage } from '../../contracts/common.js';

async function upload(ctx: RouteContext): Promise<void> {
  const { kernel, req } = ctx;
  const { config } = kernel;
  const tempPath = kernel.blobs.tempPath();
  const received = await receiveUpload(req, tempPath, config.maxImageBytes);
  try {
    const bytes = await kernel.blobs.readTemp(tempPath);
    const image = await checkImage(bytes, { maxPixels: config.maxImagePixels, maxSide: config.maxImageSide });
    const id = randomUUID();
    await kernel.blobs.adopt(tempPath, id);
    const now = kernel.clock.now();
    // Kept as a file record of its own kind: the tools endpoints never show or accept it.
    const rec: FileRecord = {
      id,
      orgId: ctx.principal!.orgId,
      filename: received.filename,
      mimeType: image.mimeType,
      sizeBytes: received.sizeBytes,
      kind: 'IMAGE',
      sourceAction: null,
      pageCount: null,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + TEMP_IMAGE_TTL_SECONDS * 1000).toISOString(),
    };
    await kernel.store.createFile(rec);
    const body: TempImage = {
      id,
      path: tempImagePath(id),
      mimeType: image.mimeType,
      sizeBytes: rec.sizeBytes,
      width: image.width,
      height: image.height,
      expiresAt: rec.expiresAt,
      createdAt: rec.createdAt,
    };
    sendJson(ctx.res, 201, body);
  } finally {
    await rm(tempPath, { force: true });
  }
}

export function imageRoutes(): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/images/upload`,
      auth: 'key',
      idempotent: true,
      // No body rule: a multipart upload is read by its handler (server/upload.ts), whose type and size checks need the stream.
      handler: upload,
      doc: {
        tag: 'Images',
        summary: 'Upload an image for documents (multipart part `file`) → a /temp-image/<id> path valid 24 hours',
        description:
          'PNG, JPEG, GIF, WebP or SVG, decided by the content. Refused: other types (415), files over QUIRE_MAX_IMAGE_BYTES (413, default 20 MiB), ' +
          'raster images over QUIRE_MAX_IMAGE_PIXELS (default 50 megapixels) or QUIRE_MAX_IMAGE_SIDE pixels on a side (default 20,000) by their header (400 LIMIT_EXCEEDED), ' +
          'and SVG with DOCTYPE/ENTITY declarations, scripts, event handlers or references outside the file (400 UNSAFE_SVG). ' +
          'These images are not tool files: /tools/files/{id} answers 404 for them. No credits are charged.',
        body: 'multipart-file',
        responses: { 201: TempImageSchema },
      },
    },
  ];
}
