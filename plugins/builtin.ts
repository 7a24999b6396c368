// The built-in plugins, one line each; operators add third-party plugins with `externalPlugins` in the config.
export const BUILTIN_PLUGINS: string[] = [
  './pdf-merge/manifest.js',
  './pdf-split/manifest.js',
  './pdf-rotate/manifest.js',
  './pdf-fill-form/manifest.js',
  './pdf-unlock/manifest.js',
  './pdf-watermark/manifest.js',
  './pdf-metadata/manifest.js',
  './render-pdf/manifest.js',
  './render-docx/manifest.js',
  './render-images/manifest.js',
  './render-odt/manifest.js',
  './image-to-pdf/manifest.js',
  './import-docx/manifest.js',
  './html-to-pdf/manifest.js',
  './docx-templates/manifest.js',
  './lens/manifest.js',
];

export const BUILTIN_BASE = new URL('./', import.meta.url);
