// Multipart upload of one file (busboy with every limit set), streamed to disk, typed by its bytes.
import type { IncomingMessage } from 'node:http';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { HttpError } from '../contracts/errors.js';

export interface ReceivedUpload {
  tempPath: string;
  filename: string;
  sizeBytes: number;
  /** The text parts named in `UploadOptions.fields` (others answer 400); empty when none are accepted. */
  fields: Record<string, string>;
}

export interface UploadOptions {
  /** Text parts the upload may carry beside `file` (a bulk render's `documentId`, `format`, `webhook`). */
  fields?: readonly string[];
  /** Largest text part in bytes (default 1 KiB). */
  fieldSize?: number;
}

/** A display name only: never used as a path. Control characters and path parts are dropped. */
export function displayFilename(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return clean && clean !== '.' && clean !== '..' ? clean : 'upload';
}

export function receiveUpload(req: IncomingMessage, tempPath: string, maxBytes: number, options: UploadOptions = {}): Promise<ReceivedUpload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    return Promise.reject(new HttpError('UNSUPPORTED_MEDIA_TYPE', `Upload the file as multipart/form-data with a part named "file" (got ${type || 'no Content-Type'}).`));
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes + 64 * 1024) {
    req.resume();
    return Promise.reject(new HttpError('PAYLOAD_TOO_LARGE', `The upload is ${declared} bytes; files may be at most ${maxBytes} bytes.`));
  }
  return new Promise<ReceivedUpload>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { fileSize: maxBytes, files: 1, fields: 4, fieldNameSize: 100, fieldSize: options.fieldSize ?? 1024, parts: 5, headerPairs: 20 },
      });
    } catch (err) {
      reject(new HttpError('VALIDATION_FAILED', `The multipart body cannot be read: ${(err as Error).message}.`));
      return;
    }
    const fields: Record<string, string> = {};
    let failure: HttpError | null = null;
    let fileDone: Promise<ReceivedUpload> | null = null;
    const fail = (e: HttpError) => {
      failure ??= e;
    };
    bb.on('file', (name, stream, info) => {
      if (name !== 'file') {
        fail(new HttpError('VALIDATION_FAILED', `The file part must be named "file" (got "${name}").`, [{ path: 'file', message: 'is required', code: 'INVALID_FIELD' }]));
        stream.resume();
        return;
      }
      let size = 0;
      stream.on('data', (d: Buffer) => (size += d.length));
      stream.on('limit', () => fail(new HttpError('PAYLOAD_TOO_LARGE', `The file exceeds the upload limit of ${maxBytes} bytes.`)));
      fileDone = pipeline(stream, createWriteStream(tempPath, { mode: 0o600 })).then(() => ({ tempPath, filename: displayFilename(info.filename), sizeBytes: size, fields }));
      fileDone.catch(() => undefined);
    });
    bb.on('field', (name, value, info) => {
      if (!options.fields) return;
      if (!options.fields.includes(name)) {
        fail(new HttpError('VALIDATION_FAILED', `Unknown form field "${name}"; this upload takes ${['file', ...options.fields].join(', ')}.`, [{ path: name, message: 'is not a field of this upload', code: 'INVALID_FIELD' }]));
      } else if (info.valueTruncated) {
        fail(new HttpError('VALIDATION_FAILED', `The form field "${name}" is longer than ${options.fieldSize ?? 1024} bytes.`, [{ path: name, message: `is longer than ${options.fieldSize ?? 1024} bytes`, code: 'LIMIT_EXCEEDED' }]));
      } else {
        fields[name] = value;
      }
    });
    bb.on('filesLimit', () => fail(new HttpError('VALIDATION_FAILED', 'Send exactly one file per upload.', [{ path: 'file', message: 'only one file is allowed', code: 'INVALID_FIELD' }])));
    bb.on('partsLimit', () => fail(new HttpError('VALIDATION_FAILED', 'Too many multipart parts; send one part named "file".')));
    bb.on('fieldsLimit', () => fail(new HttpError('VALIDATION_FAILED', 'Too many form fields; send one part named "file".')));
    let settled = false;
    const settle = async () => {
      if (settled) return;
      settled = true;
      try {
        // After a failure the file stream may never end; its bytes are discarded anyway.
        const received = failure ? null : fileDone ? await fileDone : null;
        if (failure) throw failure;
        if (!received) throw new HttpError('VALIDATION_FAILED', 'No file part: send the file in a multipart part named "file".', [{ path: 'file', message: 'is required', code: 'INVALID_FIELD' }]);
        if (received.sizeBytes === 0) throw new HttpError('VALIDATION_FAILED', 'The uploaded file is empty.', [{ path: 'file', message: 'is empty', code: 'INVALID_FIELD' }]);
        resolve(received);
      } catch (err) {
        await rm(tempPath, { force: true });
        reject(err instanceof HttpError ? err : new HttpError('VALIDATION_FAILED', `The upload could not be stored: ${(err as Error).message}.`));
      }
    };
    // busboy does not always emit 'close' after 'error' when piped, so an error settles the upload itself.
    bb.on('error', (err) => {
      fail(new HttpError('VALIDATION_FAILED', `The multipart body is malformed: ${(err as Error).message}.`));
      req.unpipe(bb);
      req.resume();
      void settle();
    });
    bb.on('close', () => void settle());
    req.on('aborted', () => fail(new HttpError('VALIDATION_FAILED', 'The upload was aborted by the client.')));
    req.pipe(bb);
  });
}
