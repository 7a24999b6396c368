// The HTTP layer: polka routes, request ids, auth, rate limits and problem responses around every handler.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import polka, { type Request as PolkaRequest } from 'polka';
import { HttpError } from '../contracts/errors.js';
import type { Quire } from './composition-root.js';
import { authenticate, checkOperatorAccess } from './auth.js';
import { sendProblem } from './problem.js';
import { bodyReader } from './json-body.js';
import { answerIdempotently, idempotencyKeyOf, tapRequestBody, type Answer } from './idempotency.js';
import type { RouteContext, RouteDefinition } from './context.js';
import { fileRoutes } from './routes/files.js';
import { imageRoutes } from './routes/images.js';
import { readinessRoutes } from './routes/readiness.js';
import { jobRoutes } from './routes/jobs.js';
import { toolRoutes } from './routes/tools.js';
import { systemRoutes } from './routes/system.js';
import { accountRoutes } from './routes/account.js';
import { docsRoutes } from './routes/docs.js';
import { consoleRoutes } from './routes/console.js';
import { oauthRoutes } from './routes/oauth.js';
import { renderRoutes } from './routes/render.js';
import { markdownRoutes } from './routes/markdown.js';
import { styleRoutes } from './routes/styles.js';
import { documentRoutes } from './routes/documents.js';
import { bulkRoutes } from './routes/bulk.js';
import { templateRoutes } from './routes/templates.js';
import { blockRoutes } from './routes/blocks.js';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.js';
import { formRoutes } from './routes/forms.js';
import { publicFormRoutes } from './routes/public-forms.js';
import { metricsRoutes } from './routes/metrics.js';
import { operatorRoutes } from './routes/operator.js';

export { API_PREFIX } from './paths.js';

/** Where the handler of a matched route leaves its pattern on the request, for the request's metrics (`unmatched` without). */
const MATCHED_ROUTE = Symbol('quire.matchedRoute');
type RoutedRequest = http.IncomingMessage & { [MATCHED_ROUTE]?: string };

function routePattern(path: string): RegExp {
  return new RegExp('^' + path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+') + '/?$');
}

export interface QuireServer {
  server: http.Server;
  /** Stops accepting, lets running jobs finish (bounded), closes the kernel and the services. */
  shutdown(): Promise<boolean>;
}

export function createServer(quire: Quire): QuireServer {
  const { kernel, services, metrics } = quire;
  const limiter = quire.rateLimiter;
  let shuttingDown = false;

  const app = polka({
    onNoMatch: (req, res) => {
      const requestId = (res.getHeader('X-Request-Id') as string) ?? randomUUID();
      const allowed = routes.filter((r) => routePattern(r.path).test(req.path)).map((r) => r.method);
      if (allowed.length) {
        const allow = [...new Set(allowed)].join(', ');
        sendProblem(res, new HttpError('METHOD_NOT_ALLOWED', `${req.path} accepts ${allow}, not ${req.method}.`, undefined, { Allow: allow }), requestId);
        return;
      }
      sendProblem(res, new HttpError('NOT_FOUND', `No route ${req.method} ${req.path}.`), requestId);
    },
  });

  // Each route's body schema is compiled here, once, when the route is registered.
  const wrap = (route: RouteDefinition) => {
    const readBody = bodyReader(route, kernel.config.maxJsonBodyBytes);
    // What an idempotent request's body may be at most: the JSON rule's limit, or (an upload) the largest upload.
    const bodyLimit = route.body ? (route.body.limit ?? kernel.config.maxJsonBodyBytes) : kernel.config.maxUploadBytes + 64 * 1024;
    return async (req: PolkaRequest, res: http.ServerResponse) => {
      (req as RoutedRequest)[MATCHED_ROUTE] = route.path;
      const requestId = res.getHeader('X-Request-Id') as string;
      const log = kernel.log.child({ requestId });
      const ctx: RouteContext = { req, res, kernel, services, requestId, log, params: req.params ?? {}, query: new URLSearchParams(req.search ?? ''), principal: null, body: undefined };
      const fail = (err: unknown) => {
        if (!(err instanceof HttpError)) log.error({ err, method: req.method, path: req.path }, 'unhandled error');
        if (!req.complete) req.resume();
        sendProblem(res, err, requestId);
      };
      const answer: Answer = async (send) => {
        try {
          await send();
        } catch (err) {
          fail(err);
        }
      };
      const handle = async () => {
        const pre = await route.preValidation?.(ctx);
        if (readBody) ctx.body = await readBody(req);
        await route.handler(ctx, pre);
      };
      try {
        if (shuttingDown && route.auth !== 'none') {
          throw new HttpError('SHUTTING_DOWN', 'The server is shutting down and accepts no new requests.', undefined, { 'Retry-After': '5', Connection: 'close' });
        }
        const useKey = route.auth === 'key' || route.auth === 'operator' || (route.auth === 'download' && !ctx.query.get('token'));
        if (useKey) {
          ctx.principal = await authenticate(req, kernel);
          checkOperatorAccess(route, ctx.principal);
          if (limiter.enabled) {
            const d = await limiter.take(ctx.principal.subject);
            res.setHeader('RateLimit-Limit', String(d.limit));
            res.setHeader('RateLimit-Remaining', String(d.remaining));
            res.setHeader('RateLimit-Reset', String(d.resetSeconds));
            res.setHeader('RateLimit-Policy', `${d.limit};w=60`);
            if (!d.allowed) {
              throw new HttpError('RATE_LIMITED', `More than ${d.limit} requests per minute with this key; retry in ${d.retryAfterSeconds} s.`, undefined, { 'Retry-After': String(d.retryAfterSeconds) });
            }
          }
        }
        // Authenticated and within its rate limit (a 401 or 429 is never stored): an idempotent route's key applies.
        const key = route.idempotent ? idempotencyKeyOf(req) : undefined;
        if (key === undefined) await answer(handle);
        else await answerIdempotently(ctx, key, bodyLimit, handle, answer);
      } catch (err) {
        fail(err);
      }
    };
  };

  app.use((req, res, next) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && /^[A-Za-z0-9._-]{8,128}$/.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      kernel.log.info({ requestId, method: req.method, path: req.path, status: res.statusCode, ms }, 'request');
      metrics.httpRequest(req.method!, (req as RoutedRequest)[MATCHED_ROUTE] ?? 'unmatched', res.statusCode, ms / 1000);
    });
    next();
  });

  const routes: RouteDefinition[] = [
    ...systemRoutes(() => routes, () => shuttingDown),
    ...metricsRoutes(metrics, quire.config.metricsToken),
    ...docsRoutes(),
    ...consoleRoutes(),
    ...accountRoutes(),
    ...oauthRoutes(),
    ...fileRoutes(),
    ...imageRoutes(),
    ...readinessRoutes(),
    ...renderRoutes(),
    ...markdownRoutes(quire.formRateLimits),
    ...styleRoutes(),
    ...documentRoutes(),
    ...bulkRoutes(),
    ...templateRoutes(),
    ...blockRoutes(),
    ...webhookEndpointRoutes(),
    ...formRoutes(),
    ...publicFormRoutes(quire.formRateLimits),
    ...operatorRoutes(),
    ...jobRoutes(),
    ...toolRoutes(kernel),
  ];
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
    app[method](route.path, wrap(route));
  }

  const handler = app.handler as unknown as http.RequestListener;
  // The body tap goes on before anything can read the request (server/idempotency.ts).
  const server = http.createServer((req, res) => {
    tapRequestBody(req);
    return handler(req, res);
  });
  server.requestTimeout = 10 * 60_000;
  server.headersTimeout = 30_000;
  // An idle keep-alive connection stays open 65 s (Node's default is 5 s), longer than the idle timeouts of
  // common proxies and load balancers (60 s): the server closing a connection the client has just reused
  // fails that request, and a POST is not retried by clients.
  server.keepAliveTimeout = 65_000;

  return {
    server,
    async shutdown(): Promise<boolean> {
      shuttingDown = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const drained = await quire.stop();
      server.closeAllConnections();
      await closed;
      return drained;
    },
  };
}
