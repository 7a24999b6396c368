// Builds the web console (console/src) into dist/console/, served by Quire at /console (server/routes/console.ts).
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [preact()],
  // Every asset is a file (no data: URLs, no inline script): the page's CSP allows 'self' only.
  build: { outDir: '../dist/console', emptyOutDir: true, assetsInlineLimit: 0, modulePreload: { polyfill: false }, reportCompressedSize: false },
  logLevel: 'warn',
});
