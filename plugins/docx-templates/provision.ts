// Main-process side of docx-templates: the shared warm LibreOffice, and which requests need it.
import type { ComponentRequest, PluginServices, ProvisionContext } from '../../sdk/index.js';
import { acquireLibreOffice } from '../../engines/libreoffice/shared.js';
import { libreOfficeSettings } from '../../engines/libreoffice/settings.js';
import { formatOfMime, type OfficeFormat } from '../../engines/libreoffice/formats.js';

/** PDF output, and DOCX ⇄ ODT, go through LibreOffice; filling a template in its own format does not. */
export function componentsNeeded(req: ComponentRequest): string[] {
  const template = req.files.find((f) => f.field === 'fileId');
  const from = template ? formatOfMime(template.mimeType) : null;
  const to = req.params.outputFormat as OfficeFormat | undefined;
  return to && to !== from ? ['libreoffice', 'python3-uno'] : [];
}

export interface ConvertArg {
  bytes: Uint8Array;
  from: OfficeFormat;
  to: OfficeFormat;
}

export async function provision(ctx: ProvisionContext): Promise<PluginServices> {
  if (ctx.missing.length) {
    ctx.log('warn', 'LibreOffice is not usable: PDF and cross-format outputs of docx.replace-placeholders answer 503', { missing: ctx.missing });
    return { methods: {}, close: async () => undefined };
  }
  const { warmUp, ...options } = libreOfficeSettings();
  const lease = acquireLibreOffice(options, ctx.log);
  if (warmUp) {
    // In the background: a slow start must not hold the boot; the first conversion waits for it instead.
    lease.converter.warmUp().catch((err: Error) => ctx.log('error', 'LibreOffice warm-up failed', { err: err.message }));
  }
  return {
    methods: {
      convert: (arg: ConvertArg) => lease.converter.convert(arg.bytes, arg.from, arg.to),
    },
    close: () => lease.release(),
  };
}
