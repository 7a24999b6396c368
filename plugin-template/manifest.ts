// text-stats: a minimal third-party plugin to copy — counts lines, words, characters and bytes of an uploaded text file.
// In the Quire repository the SDK is imported by path; a copy outside it imports '@quire/plugin-sdk' (see README.md).
import { definePlugin } from '../sdk/index.js';
import { contract } from './contract.js';

export default definePlugin({
  manifest: {
    id: 'text-stats',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Counts the lines, words, characters and bytes of an uploaded UTF-8 text or Markdown file.',
    actions: [
      {
        name: 'text.stats',
        export: 'stats',
        route: { method: 'POST', path: '/tools/text/stats' },
        summary: 'Count lines, words, characters and bytes of a text file',
        description: 'Creates a tools job whose `result` holds `lines`, `words`, `characters` and `bytes` of the file in `fileId`; it produces no output file.',
        files: [{ field: 'fileId', accept: ['text/plain', 'text/markdown'] }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [],
    pool: { maxThreads: 1, maxQueue: 8, memoryMb: 128, timeoutMs: 30_000, maxBacklog: 32 },
    errors: {
      NOT_UTF8: 'The file is not valid UTF-8 text; save it as UTF-8 and upload it again.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
