// RFC 9457 problem+json responses from HttpError (anything else becomes a logged 500).
import type { ServerResponse } from 'node:http';
import { ERROR_TABLE, HttpError } from '../contracts/errors.js';

export function sendProblem(res: ServerResponse, err: unknown, requestId: string): { status: number; code: string } {
  const e = err instanceof HttpError ? err : new HttpError('INTERNAL', 'An unexpected error occurred; report the requestId.');
  const def = ERROR_TABLE[e.code];
  const body: Record<string, unknown> = {
    type: `https://quire.dev/errors/${e.code.toLowerCase().replace(/_/g, '-')}`,
    title: def.title,
    status: e.status,
    detail: e.message,
    code: e.code,
    requestId,
  };
  if (e.errors?.length) body.errors = e.errors;
  if (!res.headersSent) {
    for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
    res.statusCode = e.status;
    res.setHeader('Content-Type', 'application/problem+json');
    res.setHeader('Cache-Control', 'no-store');
    res.end(JSON.stringify(body));
  } else {
    res.destroy();
  }
  return { status: e.status, code: e.code };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(JSON.stringify(body));
}
