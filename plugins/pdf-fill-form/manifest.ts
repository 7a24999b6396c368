// pdf-fill-form: sets the values of a PDF's AcroForm fields, regenerates their appearances and optionally flattens them.
import { definePlugin } from '../../sdk/index.js';
import { PDF_LOAD_ERRORS } from '../../engines/pdf/load.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'pdf-fill-form',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Fills the AcroForm fields of a PDF (text, checkbox, radio, dropdown, list box), optionally flattening them.',
    actions: [
      {
        name: 'pdf.fill-form',
        export: 'fillForm',
        route: { method: 'POST', path: '/tools/pdf/fill-form' },
        summary: 'Fill the form fields of a PDF',
        description:
          'Creates a tools job that sets each field named in `fields`, regenerates the fields\' appearance streams so that every viewer shows the values, and returns the PDF (`filled.pdf`). ' +
          'With `flatten: true` the fields are drawn into the pages and the form is removed. Unknown field names and values a field does not accept fail the job, naming them and listing what is valid.',
        files: [{ field: 'fileId', accept: ['application/pdf'] }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    pool: { maxThreads: 2, maxQueue: 16, memoryMb: 512, timeoutMs: 60_000, maxBacklog: 64, youngGenerationMb: 16 },
    errors: {
      ...PDF_LOAD_ERRORS,
      PDF_NO_FORM: 'The PDF has no fillable AcroForm fields (or only an XFA form, which is not supported).',
      FORM_FIELD_UNKNOWN: '`fields` names fields the form does not have; the message lists them and the form\'s fields.',
      FORM_VALUE_INVALID: 'A value does not suit its field: wrong type, not one of the options, too long, or characters no bundled font has (or that no single font has together: a field is drawn in one font); the message names each field and what it accepts.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
