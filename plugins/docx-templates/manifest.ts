// docx-templates: fills the placeholders of DOCX and ODT templates; PDF and cross-format output through a warm LibreOffice.
import { definePlugin } from '../../sdk/index.js';
import { libreOfficeComponents } from '../../engines/libreoffice/settings.js';
import { contract } from './contract.js';
import { TEMPLATE_ERRORS } from './errors.js';
import { componentsNeeded, provision } from './provision.js';

export const TEMPLATE_TYPES = ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/vnd.oasis.opendocument.text'];

export default definePlugin({
  manifest: {
    id: 'docx-templates',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Replaces {{placeholders}} in DOCX and ODT templates with text, images, lists and table rows; converts to PDF or the other office format with LibreOffice.',
    actions: [
      {
        name: 'docx.replace-placeholders',
        export: 'replacePlaceholders',
        route: { method: 'POST', path: '/tools/docx/replace-placeholders' },
        summary: 'Fill the placeholders of a DOCX or ODT template',
        description:
          'Creates a tools job that replaces every `{{name}}` and `${name}` of the template (body, headers, footers, footnotes, endnotes, text boxes, tables), ' +
          'wherever the editor split it into runs, keeping the formatting of the run where it starts. Variables are text, `image` (an uploaded file id), `list` or `table` ' +
          '(the row holding `{{<name>.<column>}}` repeats once per row). `outputFormat` `pdf`, `docx` or `odt` (default: the template\'s); PDF and the other office format are made by LibreOffice, ' +
          'and answer 503 PLUGIN_UNAVAILABLE on a server without it. The job `result` (and the deprecated `metadata`) holds `replacedVariables`, `outputFormat`, `unresolvedPlaceholders` and `unusedVariables`.',
        files: [
          { field: 'fileId', accept: TEMPLATE_TYPES },
          { field: 'variables.*.src', accept: ['image/png', 'image/jpeg', 'image/gif', 'image/bmp', 'image/svg+xml'] },
        ],
        credits: { perRequest: 2 },
      },
    ],
    requires: libreOfficeComponents(),
    pool: { maxThreads: 2, maxQueue: 16, memoryMb: 512, timeoutMs: 180_000, maxBacklog: 64 },
    errors: TEMPLATE_ERRORS,
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
  provision,
  componentsNeeded,
});
