// Points fontconfig at the bundled fonts.conf, for every plugin that runs the Typst compiler.
import { fileURLToPath } from 'node:url';

/**
 * The Typst compiler scans the machine's fonts through fontconfig, which reads FONTCONFIG_FILE from the
 * process environment. Worker threads only copy `process.env`, so a manifest (main thread) calls this
 * before any worker starts. An operator's own FONTCONFIG_FILE wins.
 */
export function useBundledFontconfig(): void {
  process.env.FONTCONFIG_FILE ??= fileURLToPath(new URL('../../../plugins/render-pdf/assets/fonts.conf', import.meta.url));
}
