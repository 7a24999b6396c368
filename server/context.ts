// What every route handler gets: the request, the kernel and the services, the caller, a request-scoped logger and
// the checked JSON body; and what a route declares: its body rule, its pre-validation and its OpenAPI doc.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Kernel } from '../kernel/kernel.js';
import type { Services } from './composition-root.js';
import type { Logger } from '../kernel/logger.js';
import type { Principal } from './auth.js';

export interface RouteContext<Body = unknown> {
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
  /** The JSON body, read and checked by the app before the handler runs (routes with a `body` rule); undefined otherwise. */
  body: Body;
}

/** 'operator': an operator key only (docs/operators.md); the other key modes refuse operator keys unless `operatorMayCall`. */
export type AuthMode = 'none' | 'key' | 'download' | 'operator';

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
  /** Kept for compatibility; clients should move to the replacement the description names. */
  deprecated?: boolean;
  /** Hidden from the document (e.g. a disabled plugin's route); a function is asked each time the document is built. */
  hidden?: boolean | (() => boolean);
}

/**
 * How the app reads a route's JSON body and checks it, once, before the handler runs (Fastify-style: the route
 * validates, the service trusts). The schema is compiled when the route is registered. Multipart uploads read
 * their own body (their size and type checks need the stream) and have no rule.
 */
export interface BodyRule<Body = unknown> {
  /** The 400 detail when the body does not match the schema (the route's words; it may name the route). */
  mismatch?: string;
  /** The schema the body must match, when it is not `doc.body` (which the OpenAPI document shows). */
  schema?: object;
  /**
   * Instead of `schema` and `mismatch`: a check with its own messages (it throws the 400), for bodies a schema
   * cannot describe alone (a style preset's `definition` goes through the document validator).
   */
  check?: (body: unknown) => Body;
  /** Largest body in bytes; default the configured `maxJsonBodyBytes`. */
  limit?: number;
  /** No body at all (Content-Length 0, or neither a length nor chunks) stands for `{}`. */
  optional?: boolean;
}

export interface RouteDefinition<Body = unknown, Pre = unknown> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  auth: AuthMode;
  /** The JSON body, checked before the handler; the handler finds it in `ctx.body`. */
  body?: BodyRule<Body>;
  /**
   * Checks that answer before the body is read (Fastify's preValidation): the query, the caller's role, the
   * addressed resource, the plugin's state. What it returns is the handler's second argument.
   */
  preValidation?(ctx: RouteContext): Promise<Pre> | Pre;
  handler(ctx: RouteContext<Body>, pre: Pre): Promise<void>;
  /**
   * Takes an `Idempotency-Key` (server/idempotency.ts, docs/idempotency.md): set on every POST that creates a job or a
   * resource (auth 'key'); the OpenAPI document shows the header and the 409 and 422 answers. Elsewhere the header is ignored.
   */
  idempotent?: boolean;
  /** An operator key may call this route too (a read of nothing an organization owns, e.g. the plugin listing). */
  operatorMayCall?: boolean;
  doc?: RouteDoc;
}
