// /docs: Swagger UI from the locally installed swagger-ui-dist, rendering /api/v1/dev/openapi.json.
import path from 'node:path';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../../contracts/errors.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { API_PREFIX } from '../paths.js';

const require = createRequire(import.meta.url);
const ASSET_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Quire API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '${API_PREFIX}/openapi.json', dom_id: '#ui', deepLinking: true, validatorUrl: null });`;

async function page(ctx: RouteContext): Promise<void> {
  ctx.res.setHeader('Content-Type', 'text/html; charset=utf-8');
  ctx.res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
  ctx.res.end(PAGE);
}

async function init(ctx: RouteContext): Promise<void> {
  ctx.res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
  ctx.res.end(INIT);
}

async function asset(ctx: RouteContext): Promise<void> {
  const name = ctx.params.name!;
  const type = ASSETS[name];
  if (!type) throw new HttpError('NOT_FOUND', `No docs asset ${name}.`);
  const file = path.join(ASSET_DIR, name);
  const { size } = await stat(file);
  ctx.res.setHeader('Content-Type', type);
  ctx.res.setHeader('Content-Length', String(size));
  ctx.res.setHeader('Cache-Control', 'public, max-age=86400');
  await pipeline(createReadStream(file), ctx.res);
}

export function docsRoutes(): RouteDefinition[] {
  return [
    { method: 'GET', path: '/docs', auth: 'none', handler: page },
    { method: 'GET', path: '/docs/init.js', auth: 'none', handler: init },
    { method: 'GET', path: '/docs/assets/:name', auth: 'none', handler: asset },
  ];
}
