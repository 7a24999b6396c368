// Request and result schemas of text.stats; they drive request validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '../sdk/schema.js';

const StatsInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of an uploaded text/plain or text/markdown file (from POST /tools/files/upload).' }),
  },
  { additionalProperties: false, description: 'Count the lines, words, characters and bytes of a UTF-8 text file.' },
);

const StatsResult = Type.Object(
  {
    lines: Type.Integer({ minimum: 0, description: 'Lines; a line ends with \\n, \\r\\n or \\r, and a last line without a line break counts too.' }),
    words: Type.Integer({ minimum: 0, description: 'Runs of non-whitespace characters.' }),
    characters: Type.Integer({ minimum: 0, description: 'Unicode code points of the text (a leading byte order mark is not counted).' }),
    bytes: Type.Integer({ minimum: 0, description: 'Size of the file in bytes.' }),
  },
  { additionalProperties: false },
);

/** One entry per manifest action, keyed by the action name; the kernel checks both agree at boot. */
export const contract = {
  'text.stats': { input: StatsInput, result: StatsResult },
};

export type StatsParams = Static<typeof StatsInput>;
export type StatsResultBody = Static<typeof StatsResult>;
