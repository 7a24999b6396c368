// Runs in the Markdown parser's thread: one Extended Markdown source (with the request's settings) to document JSON.
import { parseMarkdown, type ParseOptions, type ParseResult } from '../document/markdown/index.js';

export default function parse(task: { source: string; options: ParseOptions }): ParseResult {
  return parseMarkdown(task.source, task.options);
}
