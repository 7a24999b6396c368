// Reads a JSON request body with a size limit; malformed or oversized bodies are client errors.
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../contracts/errors.js';

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `Send the body as application/json (got ${type || 'no Content-Type'}).`);
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new HttpError('PAYLOAD_TOO_LARGE', `The JSON body is ${declared} bytes; the limit is ${limit} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new HttpError('PAYLOAD_TOO_LARGE', `The JSON body exceeds the limit of ${limit} bytes.`);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw new HttpError('VALIDATION_FAILED', 'The request body is empty; send a JSON object.', [{ path: '(body)', message: 'is required', code: 'INVALID_FIELD' }]);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError('VALIDATION_FAILED', `The request body is not valid JSON: ${(err as Error).message}.`, [{ path: '(body)', message: 'is not valid JSON', code: 'INVALID_JSON' }]);
  }
}
