// GET /metrics: the server's Prometheus metrics (docs/metrics.md), for a scraper holding the operator's metrics token.
import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../../contracts/errors.js';
import type { Metrics } from '../../kernel/metrics.js';
import type { RouteDefinition } from '../context.js';

export const METRICS_PATH = '/metrics';

/**
 * Whether `given` is the token, in time that does not depend on where they differ: both are hashed first, so
 * timingSafeEqual compares equal lengths and the token's length does not show either.
 */
function sameToken(given: string, token: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The route; `token` is the operator's `metricsToken` (undefined: metrics are off, and the route answers 404). */
export function metricsRoutes(metrics: Metrics, token: string | undefined): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: METRICS_PATH,
      auth: 'none',
      handler: async (ctx) => {
        if (token === undefined) throw new HttpError('NOT_FOUND', 'Metrics are off on this server: the operator sets QUIRE_METRICS_TOKEN (docs/metrics.md) to turn them on.');
        const header = ctx.req.headers.authorization;
        const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
        if (given === undefined || !sameToken(given, token)) {
          throw new HttpError('UNAUTHENTICATED', 'GET /metrics needs `Authorization: Bearer <token>` with the server\'s metrics token (QUIRE_METRICS_TOKEN).', undefined, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
        }
        const text = await metrics.registry.metrics();
        ctx.res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
        ctx.res.end(text);
      },
      doc: {
        tag: 'System',
        summary: 'Prometheus metrics (operators; bearer metrics token, 404 when metrics are off)',
        description:
          'The Prometheus text format: HTTP requests, jobs, pools, webhooks, credits, store writes and the process (docs/metrics.md). ' +
          'Needs `Authorization: Bearer <QUIRE_METRICS_TOKEN>` (401 UNAUTHENTICATED otherwise). Outside the API prefix, and not rate limited.',
        responses: { 200: 'text/plain' },
        // Metrics off: the route answers 404 and is left out of the document, as a disabled plugin's routes are.
        hidden: token === undefined,
      },
    },
  ];
}
