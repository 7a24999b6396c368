// Reads a JSON request body with a size limit and checks it by the route's rule; malformed, oversized or
// mismatching bodies are client errors.
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../contracts/errors.js';
import { compileSchema, formatAjvErrors } from '../contracts/schema.js';
import type { RouteDefinition } from './context.js';

/**
 * The body reader of a route, its schema compiled now (at registration), or null for a route without a body
 * rule. It reads the body, then checks it: the compiled schema (400 with the route's `mismatch` detail), or
 * the rule's own check.
 */
export function bodyReader(route: RouteDefinition, defaultLimit: number): ((req: IncomingMessage) => Promise<unknown>) | null {
  const rule = route.body;
  if (!rule) return null;
  const check = rule.check ?? schemaCheck(route);
  const limit = rule.limit ?? defaultLimit;
  return async (req) => check(rule.optional && hasNoBody(req) ? {} : await readJsonBody(req, limit));
}

function schemaCheck(route: RouteDefinition): (body: unknown) => unknown {
  const schema = route.body?.schema ?? route.doc?.body;
  const mismatch = route.body?.mismatch;
  if (!schema || schema === 'multipart-file' || !mismatch) throw new Error(`${route.method} ${route.path}: a body rule needs a JSON schema and a mismatch detail, or a check.`);
  const validate = compileSchema(schema);
  return (body) => {
    if (!validate(body)) throw new HttpError('VALIDATION_FAILED', mismatch, formatAjvErrors(validate.errors));
    return body;
  };
}

function hasNoBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return length === '0' || (length === undefined && req.headers['transfer-encoding'] === undefined);
}

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
