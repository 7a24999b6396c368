// Extended Markdown, Quire's authoring language: parse it into document JSON and serialise document JSON back (docs/extended-markdown.md).
export { parseMarkdown, DEFAULT_MAX_BYTES, type Overrides, type ParseOptions, type ParseResult } from './parse.js';
export { serializeMarkdown } from './serialize.js';
export { normalizeDocument } from './normalize.js';
export type { Issue } from './context.js';
export { markdownOf, type MarkdownOf } from './markdown-of.js';
