// Dependency-injection tokens: what the kernel hands out through tsyringe, so tests can swap any of it.
export const TOKENS = {
  Config: Symbol.for('quire.Config'),
  Clock: Symbol.for('quire.Clock'),
  Store: Symbol.for('quire.Store'),
  Blobs: Symbol.for('quire.Blobs'),
  Logger: Symbol.for('quire.Logger'),
  Registry: Symbol.for('quire.Registry'),
  Events: Symbol.for('quire.Events'),
  Secrets: Symbol.for('quire.Secrets'),
  UrlPolicy: Symbol.for('quire.UrlPolicy'),
  FileInspector: Symbol.for('quire.FileInspector'),
  MarkdownParser: Symbol.for('quire.MarkdownParser'),
} as const;
