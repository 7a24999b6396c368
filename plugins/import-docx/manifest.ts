// import-docx: a Word file → document JSON and an import quality report, answered synchronously (importer kind).
import { definePlugin } from '../../sdk/index.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'import-docx',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'importer',
    description: 'Converts an uploaded DOCX file into validated document JSON with an import quality report.',
    actions: [
      {
        name: 'import.docx',
        export: 'importDocx',
        route: { method: 'POST', path: '/import/docx/file' },
        summary: 'Import a DOCX file as document JSON',
        description:
          'Reads headings (Heading 1–6 styles, outline levels), paragraphs with bold, italic and links, nested lists, tables with header rows and spans, ' +
          'images (stored as temporary images, /temp-image/<id>, valid 24 hours), footnotes and endnotes (as ^[…]), page size and margins, the default header and footer, ' +
          'and title, author, subject and keywords. Underline, text boxes, shapes, comments and equations are dropped and reported; tracked changes are accepted. ' +
          'Placeholders {{name}} and ${name} in the text (also when Word split them across runs) become live variables, declared in `variables` with an empty value and listed in `report.variables`; ' +
          'with `placeholders: "literal"` they stay literal text. Other text is escaped, so characters such as *, [, ~, $ and @[ stay literal. `report` scores the import 0–100 and lists every finding with its code and location (docs/import.md).',
        files: [{ field: 'fileId', accept: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'] }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    pool: { maxThreads: 1, maxQueue: 8, memoryMb: 1024, timeoutMs: 60_000, maxBacklog: 16 },
    errors: {
      DOCX_INVALID: 'The file is not a readable DOCX package: a damaged ZIP, malformed XML, a DTD in a part, or no main document.',
      DOCX_TOO_LARGE: 'The package breaks a limit: more than 2,000 entries, more than 200 MB unpacked, or an entry that inflates more than 200 times (zip bomb).',
      DOCX_CONVERSION_FAILED: 'The converted document did not validate; a bug in the importer.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
