// Worker of text.stats: decodes the file as strict UTF-8 in chunks (bounded memory) and counts as it goes.
import { PluginError, type WorkerInput, type WorkerOutput } from '../sdk/index.js';
import type { StatsParams, StatsResultBody } from './contract.js';

const CHUNK_BYTES = 64 * 1024;
const WHITESPACE = /\s/u;

export async function stats(input: WorkerInput<StatsParams>): Promise<WorkerOutput> {
  const file = input.files.find((f) => f.field === 'fileId');
  if (!file) throw new Error('text.stats received no input file.');
  const bytes = file.bytes;
  // fatal: invalid UTF-8 throws instead of turning into U+FFFD; a leading BOM is dropped (ignoreBOM: false).
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const counts: StatsResultBody = { lines: 0, words: 0, characters: 0, bytes: bytes.byteLength };
  let inWord = false;
  let afterCr = false;
  let last = '';

  for (let start = 0; start < bytes.byteLength; start += CHUNK_BYTES) {
    const end = Math.min(start + CHUNK_BYTES, bytes.byteLength);
    let text: string;
    try {
      // stream: true keeps a sequence cut at the chunk's end for the next call.
      text = decoder.decode(bytes.subarray(start, end), { stream: end < bytes.byteLength });
    } catch {
      // The bad sequence may have begun up to 3 bytes before this chunk (a sequence carried over from the last one).
      const from = Math.max(0, start - 3);
      throw new PluginError(
        'NOT_UTF8',
        `fileId (${file.filename}) is not valid UTF-8 text: an invalid byte sequence lies within bytes ${from}–${end - 1}. Save the file as UTF-8 and upload it again.`,
        { fileId: file.fileId, fromByte: from, toByte: end - 1 },
      );
    }
    for (const ch of text) {
      counts.characters++;
      if (ch === '\r') counts.lines++;
      else if (ch === '\n' && !afterCr) counts.lines++;
      afterCr = ch === '\r';
      const space = WHITESPACE.test(ch);
      if (!space && !inWord) counts.words++;
      inWord = !space;
      last = ch;
    }
  }
  // A last line without a line break is a line too.
  if (counts.characters > 0 && last !== '\n' && last !== '\r') counts.lines++;
  return { result: counts };
}
