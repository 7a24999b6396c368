// Tool files: upload (multipart), record lookup and download (API key or signed token).
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../../contracts/errors.js';
import { ACCEPTED_UPLOAD_TYPES, detectFileType } from '../../kernel/file-type.js';
import { verifyDownloadToken } from '../../kernel/signed-download-token.js';
import type { FileRecord } from '../../kernel/model.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { receiveUpload } from '../upload.js';
import { sendJson } from '../problem.js';
import { toolFileView, type ToolFileRecord } from '../views.js';
import { API_PREFIX } from '../paths.js';
import { ToolFileSchema } from '../../contracts/common.js';

async function upload(ctx: RouteContext): Promise<void> {
  const { kernel, req } = ctx;
  const tempPath = kernel.blobs.tempPath();
  const received = await receiveUpload(req, tempPath, kernel.config.maxUploadBytes);
  try {
    const mimeType = await detectFileType(tempPath, received.filename);
    if (!(ACCEPTED_UPLOAD_TYPES as readonly string[]).includes(mimeType)) {
      throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `The file's content is ${mimeType}; uploads may be ${ACCEPTED_UPLOAD_TYPES.join(', ')}.`);
    }
    const id = randomUUID();
    let pageCount: number | null = null;
    if (mimeType === 'application/pdf') {
      const bytes = await kernel.blobs.readTemp(tempPath);
      pageCount = (await kernel.inspector.inspect(bytes, mimeType)).pageCount;
    }
    await kernel.blobs.adopt(tempPath, id);
    const now = kernel.clock.now();
    const rec: ToolFileRecord = {
      id,
      orgId: ctx.principal!.orgId,
      filename: received.filename,
      mimeType,
      sizeBytes: received.sizeBytes,
      kind: 'INPUT',
      sourceAction: null,
      pageCount,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + kernel.config.fileTtlSeconds * 1000).toISOString(),
    };
    await kernel.store.createFile(rec);
    sendJson(ctx.res, 201, toolFileView(rec), { Location: `${API_PREFIX}/tools/files/${id}` });
  } finally {
    await rm(tempPath, { force: true });
  }
}

/** A live tool file; temporary images (kind IMAGE, POST /images/upload) are not tool files and answer 404. */
async function liveFile(ctx: RouteContext, orgId: string): Promise<ToolFileRecord> {
  const id = ctx.params.fileId!;
  const rec = /^[0-9a-f-]{36}$/.test(id) ? await ctx.kernel.store.getFile(orgId, id) : undefined;
  if (!rec || rec.kind === 'IMAGE' || rec.expiresAt <= ctx.kernel.clock.now().toISOString()) throw new HttpError('NOT_FOUND', `File ${id} was not found (unknown, expired, or another organization's).`);
  return { ...rec, kind: rec.kind };
}

async function getFile(ctx: RouteContext): Promise<void> {
  sendJson(ctx.res, 200, toolFileView(await liveFile(ctx, ctx.principal!.orgId)));
}

async function download(ctx: RouteContext): Promise<void> {
  const orgId = downloadOrg(ctx, ctx.params.fileId!, 'the job');
  const rec = await liveFile(ctx, orgId);
  await sendStoredFile(ctx, rec, rec.filename);
}

/**
 * The organization a download is for: the API key's, or the one the signed `token` names for `scope` (a file id,
 * or a job's scope such as `render:<id>`); 401 when neither holds. `what` is what to fetch again for a fresh link.
 */
export function downloadOrg(ctx: RouteContext, scope: string, what: string): string {
  if (ctx.principal) return ctx.principal.orgId;
  const { kernel } = ctx;
  const orgId = verifyDownloadToken(kernel.secret, ctx.query.get('token') ?? '', scope, Math.floor(kernel.clock.now().getTime() / 1000));
  if (!orgId) throw new HttpError('UNAUTHENTICATED', `The download token is invalid, altered or expired; fetch ${what} again for a fresh downloadUrl, or send an API key.`);
  return orgId;
}

/** Streams a stored file as an attachment named `filename`. */
export async function sendStoredFile(ctx: RouteContext, rec: Pick<FileRecord, 'id' | 'mimeType' | 'sizeBytes'>, filename: string): Promise<void> {
  const { res } = ctx;
  res.statusCode = 200;
  res.setHeader('Content-Type', rec.mimeType);
  res.setHeader('Content-Length', String(rec.sizeBytes));
  res.setHeader('Content-Disposition', contentDisposition(filename));
  res.setHeader('Cache-Control', 'private, no-store');
  await pipeline(await ctx.kernel.blobs.openRead(rec.id), res);
}

/** RFC 6266 with an ASCII fallback and the UTF-8 name. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function fileRoutes(): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/tools/files/upload`,
      auth: 'key',
      idempotent: true,
      // No body rule: a multipart upload is read by its handler (server/upload.ts), whose type and size checks need the stream.
      handler: upload,
      doc: {
        tag: 'Files',
        summary: 'Upload one file for the tools (multipart part `file`)',
        description: 'The type is detected from the content, not the name; the file expires after 24 h by default.',
        body: 'multipart-file',
        responses: { 201: ToolFileSchema },
      },
    },
    { method: 'GET', path: `${API_PREFIX}/tools/files/:fileId`, auth: 'key', handler: getFile, doc: { tag: 'Files', summary: 'A tool file record', responses: { 200: ToolFileSchema } } },
    {
      method: 'GET',
      path: `${API_PREFIX}/tools/files/:fileId/download`,
      auth: 'download',
      handler: download,
      doc: {
        tag: 'Files',
        summary: 'The file bytes; API key or the signed `token` of a downloadUrl',
        query: [{ name: 'token', description: 'Signed, expiring token from downloadUrl (no API key needed with it).', schema: { type: 'string' } }],
        responses: { 200: 'application/octet-stream' },
      },
    },
  ];
}
