// /console: the web console's built files (console/ → dist/console by `npm run build`), its index.html for every app path.
import path from 'node:path';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../../contracts/errors.js';
import type { RouteContext, RouteDefinition } from '../context.js';

/** Beside the compiled server: dist/server/routes/ → dist/console/. */
const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * Vite's output needs no inline script or style; the preview is a blob: URL of the page image the console fetched,
 * and every request goes to this origin.
 */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const NOT_BUILT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Quire console not built</title></head>
<body>
<h1>The console is not built</h1>
<p>This server has no built console (dist/console/index.html is missing). Run <code>npm run build</code> (or <code>npm run setup</code>) and reload.</p>
</body>
</html>
`;

async function indexPage(ctx: RouteContext): Promise<void> {
  const { res } = ctx;
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  let html: Buffer;
  try {
    html = await readFile(path.join(CONSOLE_DIR, 'index.html'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    res.statusCode = 503;
    res.setHeader('Cache-Control', 'no-store');
    res.end(NOT_BUILT);
    return;
  }
  // Always revalidated: it names the hashed assets of the current build.
  res.setHeader('Cache-Control', 'no-cache');
  res.end(html);
}

async function asset(ctx: RouteContext, name: string): Promise<void> {
  const type = ASSET_TYPES[path.extname(name)];
  // One plain file name under assets/: no folders, no dot files, nothing outside the build.
  if (!type || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new HttpError('NOT_FOUND', `No console asset ${name}.`);
  const file = path.join(CONSOLE_DIR, 'assets', name);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw new HttpError('NOT_FOUND', `No console asset ${name}.`);
  ctx.res.setHeader('Content-Type', type);
  ctx.res.setHeader('Content-Length', String(info.size));
  // Vite puts the content hash in the name: a changed file is a new name, so a year's caching is safe.
  ctx.res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  await pipeline(createReadStream(file), ctx.res);
}

async function anyPath(ctx: RouteContext): Promise<void> {
  const rest = ctx.params['*'] ?? '';
  if (rest.startsWith('assets/')) await asset(ctx, rest.slice('assets/'.length));
  else await indexPage(ctx);
}

export function consoleRoutes(): RouteDefinition[] {
  return [
    { method: 'GET', path: '/console', auth: 'none', handler: indexPage },
    { method: 'GET', path: '/console/*', auth: 'none', handler: anyPath },
  ];
}
