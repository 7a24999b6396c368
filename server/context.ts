// What every route handler gets: the request, the kernel and the services, the caller and a request-scoped logger.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Kernel } from '../kernel/kernel.js';
import type { Services } from './composition-root.js';
import type { Logger } from '../kernel/logger.js';
import type { Principal } from './auth.js';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  kernel: Kernel;
  services: Services;
  requestId: string;
  log: Logger;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Set for routes with auth 'key'; for 'download' when an API key was used. */
  principal: Principal | null;
}

export type AuthMode = 'none' | 'key' | 'download';

/** What the OpenAPI document says about a route; written once, next to the handler. */
export interface RouteDoc {
  summary: string;
  description?: string;
  tag: string;
  /** JSON body schema, or 'multipart-file' for an upload. */
  body?: object | 'multipart-file';
  query?: Array<{ name: string; description: string; schema: object; required?: boolean }>;
  /** Status → schema (object), the MIME type(s) of a binary body (string or string[]), or null for no body. */
  responses: Record<number, object | string | string[] | null>;
  /** Hidden from the document (e.g. a disabled plugin's route). */
  hidden?: boolean;
}

export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  auth: AuthMode;
  handler: (ctx: RouteContext) => Promise<void>;
  doc?: RouteDoc;
}
