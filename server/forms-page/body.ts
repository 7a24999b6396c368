// Reads a public form's POST body (URL-encoded, or multipart when the form takes images) into name → texts and
// files, within fixed limits; anything over them is refused as a whole (413) before it is parsed further.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { displayFilename } from '../upload.js';
import { MAX_FORM_IMAGE_BYTES, type RawFile, type RawSubmission } from '../../services/forms/form-values.js';

export const FORM_BODY_LIMITS = {
  /** A URL-encoded body. */
  urlencodedBytes: 1024 * 1024,
  /** One uploaded file. */
  fileBytes: MAX_FORM_IMAGE_BYTES,
  /** A whole multipart body. */
  totalBytes: 25 * 1000 * 1000,
  /** Text inputs (table cells count one each). */
  fields: 2000,
  /** File inputs sent. */
  files: 20,
} as const;

/** Why a body was not read: too large (413), not a form body (415), or malformed (400). */
export class BodyRefused extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

function add<T>(map: Map<string, T[]>, name: string, value: T): void {
  const list = map.get(name);
  if (list) list.push(value);
  else map.set(name, [value]);
}

async function readUrlEncoded(req: IncomingMessage): Promise<RawSubmission> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_BODY_LIMITS.urlencodedBytes) {
      req.resume();
      throw new BodyRefused(413, `The form body exceeds ${FORM_BODY_LIMITS.urlencodedBytes} bytes.`);
    }
    chunks.push(chunk);
  }
  const fields = new Map<string, string[]>();
  let count = 0;
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
    if (++count > FORM_BODY_LIMITS.fields) throw new BodyRefused(413, `The form sends more than ${FORM_BODY_LIMITS.fields} fields.`);
    add(fields, name, value);
  }
  return { fields, files: new Map() };
}

function readMultipart(req: IncomingMessage): Promise<RawSubmission> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { fileSize: FORM_BODY_LIMITS.fileBytes, files: FORM_BODY_LIMITS.files, fields: FORM_BODY_LIMITS.fields, fieldSize: FORM_BODY_LIMITS.urlencodedBytes, fieldNameSize: 200, parts: FORM_BODY_LIMITS.fields + FORM_BODY_LIMITS.files, headerPairs: 20 },
      });
    } catch (err) {
      reject(new BodyRefused(400, `The multipart body cannot be read: ${(err as Error).message}.`));
      return;
    }
    const fields = new Map<string, string[]>();
    const files = new Map<string, RawFile[]>();
    let failure: BodyRefused | null = null;
    let total = 0;
    const fail = (e: BodyRefused) => {
      if (failure) return;
      failure = e;
      req.unpipe(bb);
      req.resume();
      reject(e);
    };
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > FORM_BODY_LIMITS.totalBytes) fail(new BodyRefused(413, `The form body exceeds ${FORM_BODY_LIMITS.totalBytes} bytes.`));
    });
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('limit', () => fail(new BodyRefused(413, `A file exceeds ${FORM_BODY_LIMITS.fileBytes} bytes.`)));
      stream.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (bytes.length > 0 || info.filename) add(files, name, { bytes, filename: displayFilename(info.filename) });
      });
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated) fail(new BodyRefused(413, `The field ${name.slice(0, 50)} is too long.`));
      else add(fields, name, value);
    });
    bb.on('filesLimit', () => fail(new BodyRefused(413, `The form sends more than ${FORM_BODY_LIMITS.files} files.`)));
    bb.on('fieldsLimit', () => fail(new BodyRefused(413, `The form sends more than ${FORM_BODY_LIMITS.fields} fields.`)));
    bb.on('partsLimit', () => fail(new BodyRefused(413, 'The form sends too many parts.')));
    bb.on('error', (err) => fail(new BodyRefused(400, `The multipart body is malformed: ${(err as Error).message}.`)));
    bb.on('close', () => {
      if (!failure) resolve({ fields, files });
    });
    req.on('aborted', () => fail(new BodyRefused(400, 'The request was aborted.')));
    req.pipe(bb);
  });
}

/** The submission, or BodyRefused. A declared length over the limit is refused before a byte is read. */
export async function readFormBody(req: IncomingMessage): Promise<RawSubmission> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (type === 'application/x-www-form-urlencoded') {
    if (declared > FORM_BODY_LIMITS.urlencodedBytes) throw new BodyRefused(413, `The form body is ${declared} bytes; the limit is ${FORM_BODY_LIMITS.urlencodedBytes}.`);
    return readUrlEncoded(req);
  }
  if (type === 'multipart/form-data') {
    if (declared > FORM_BODY_LIMITS.totalBytes) throw new BodyRefused(413, `The form body is ${declared} bytes; the limit is ${FORM_BODY_LIMITS.totalBytes}.`);
    return readMultipart(req);
  }
  throw new BodyRefused(415, `A form is sent as application/x-www-form-urlencoded or multipart/form-data (got ${type || 'no Content-Type'}).`);
}
