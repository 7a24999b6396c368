// Operator settings of html-to-pdf (`plugins.html-to-pdf.settings`), checked and filled with defaults.
import { Type, type Static } from '@sinclair/typebox';
import { compileSchema, formatAjvErrors } from '../../contracts/schema.js';
import { PluginError } from '../../sdk/index.js';

const MB = 1024 * 1024;

export const SettingsSchema = Type.Object(
  {
    executablePath: Type.String({ minLength: 1, default: '/usr/bin/chromium' }),
    /** Font folders Chromium sees besides the bundled fonts (like render-docx's fontDirs). */
    fontDirs: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    /** The spec allows a page up to 60 s to load; an operator may shorten it, not lengthen it. */
    pageLoadTimeoutMs: Type.Integer({ minimum: 1000, maximum: 60_000, default: 60_000 }),
    /** Chromium's own printing of the loaded page. */
    printTimeoutMs: Type.Integer({ minimum: 1000, maximum: 300_000, default: 30_000 }),
    /** Jobs one browser prints before it is replaced by a fresh one. */
    recycleAfterJobs: Type.Integer({ minimum: 1, maximum: 100_000, default: 100 }),
    maxRequests: Type.Integer({ minimum: 0, maximum: 100_000, default: 500 }),
    maxResourceBytes: Type.Integer({ minimum: 1, maximum: 1024 * MB, default: 25 * MB }),
    maxTotalBytes: Type.Integer({ minimum: 1, maximum: 4096 * MB, default: 100 * MB }),
    requestTimeoutMs: Type.Integer({ minimum: 100, maximum: 60_000, default: 30_000 }),
  },
  { additionalProperties: false },
);

export type HtmlToPdfSettings = Static<typeof SettingsSchema>;

const validate = compileSchema<HtmlToPdfSettings>(SettingsSchema);

/** The operator's settings with defaults filled in; a wrong one fails the job naming the setting to fix. */
export function readSettings(raw: Record<string, unknown>): HtmlToPdfSettings {
  const settings = structuredClone(raw);
  if (!validate(settings)) {
    const problems = formatAjvErrors(validate.errors, 'plugins.html-to-pdf.settings').map((e) => `${e.path} ${e.message}`);
    throw new PluginError('SETTINGS_INVALID', `The server's HTML-to-PDF settings are invalid (${problems.join('; ')}); the operator must fix the Quire config.`);
  }
  return settings;
}
