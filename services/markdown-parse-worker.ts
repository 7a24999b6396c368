// Runs in the Markdown parser's thread: one Extended Markdown source (with the request's settings) to document
// JSON, or a saved document to Extended Markdown (named task `toMarkdown`).
import { markdownOf, parseMarkdown, type MarkdownOf, type ParseOptions, type ParseResult } from '../document/markdown/index.js';
import type { DocumentJson } from '../contracts/document-json.js';

export default function parse(task: { source: string; options: ParseOptions }): ParseResult {
  return parseMarkdown(task.source, task.options);
}

export function toMarkdown(task: { document: DocumentJson; check: boolean }): MarkdownOf {
  return markdownOf(task.document, { check: task.check });
}
