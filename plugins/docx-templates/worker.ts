// Worker of docx.replace-placeholders: fill the template in its own format, then convert through the main process's LibreOffice if asked.
import { PluginError, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import { FORMAT_INFO, formatOfMime, type OfficeFormat } from '../../engines/libreoffice/formats.js';
import type { ReplaceParams, ReplaceResultBody } from './contract.js';
import { fillTemplate, type TemplateFormat } from './fill.js';
import type { ConvertArg } from './provision.js';

export async function replacePlaceholders(input: WorkerInput<ReplaceParams>): Promise<WorkerOutput> {
  const template = input.files.find((f) => f.field === 'fileId');
  if (!template) throw new Error('docx.replace-placeholders received no template file.');
  const from = formatOfMime(template.mimeType) as TemplateFormat | null;
  if (from !== 'docx' && from !== 'odt') throw new PluginError('INVALID_TEMPLATE', `fileId: ${template.mimeType} is not a DOCX or ODT template.`);
  const to: OfficeFormat = input.params.outputFormat ?? from;

  const filled = await fillTemplate(template.bytes, from, input.params.variables, input.files);
  let bytes = filled.bytes;
  if (to !== from) {
    if (!input.call) throw new PluginError('OFFICE_UNAVAILABLE', `outputFormat ${to} needs LibreOffice, which this server does not run.`);
    bytes = (await input.call('convert', { bytes, from, to } satisfies ConvertArg)) as Uint8Array;
  }
  const result: ReplaceResultBody = {
    replacedVariables: filled.replaced,
    outputFormat: to,
    unresolvedPlaceholders: filled.unresolved,
    unusedVariables: filled.unused,
  };
  return { file: { bytes, mimeType: FORMAT_INFO[to].mimeType, filename: `${baseName(template.filename)}.${to}` }, result };
}

function baseName(filename: string): string {
  const base = filename.replace(/\.[^./\\]*$/, '');
  return base || 'document';
}
