// The shape of one hostile-PDF case folder (cases/<name>/case.ts): how its input is made and what every PDF action answers.
import type { PdfAction } from './pdf-actions.js';

/** What one action answers for the case's input. */
export type Outcome =
  /** The request itself is refused before any job: this HTTP status and problem `code`. */
  | { refused: number; code: string }
  /** The job completes (and so is charged). */
  | { completed: true }
  /**
   * The job fails with `code` (exact, or a pattern), a message matching `error(file)` where `file` is how the worker names the
   * hostile input (`fileId`, `fileIds[1]`), no output file and no charge. `gap` marks an answer kept as it is today but not
   * the one wanted (an undeclared code or a deadline instead of a refusal on inspection): the reason, so it is not mistaken for design.
   */
  | { failed: string | RegExp; error?: (file: string) => RegExp; gap?: string }
  /** Any one of these; for inputs whose answer depends on the bytes (fuzzing) or on timing. */
  | { anyOf: Outcome[] };

export interface HostilePdfCase {
  /** Completes "every PDF action answers as declared for …", e.g. "a decompression bomb". */
  title: string;
  /** The hostile input, generated; several for a family of inputs (each is run against every action). */
  make(): Uint8Array | Uint8Array[] | Promise<Uint8Array | Uint8Array[]>;
  /** The answer of every action not named in `byAction`. */
  expect: Outcome;
  /** Answers by action name (`pdf.unlock`) or plugin id (`lens`); an action name wins over its plugin id. */
  byAction?: Record<string, Outcome>;
  /**
   * The same input through the kernel's run API, by action name, for checks the server makes first over HTTP (a file that is
   * not a PDF never reaches the worker there): the worker's own refusal stays tested.
   */
  kernel?: Record<string, Outcome>;
  /** Narrows the actions; default every action that accepts PDF. Say why in the case. */
  appliesTo?(action: PdfAction): boolean;
}

/** The outcome `hostile` declares for `action`. */
export function outcomeFor(hostile: HostilePdfCase, action: PdfAction): Outcome {
  return hostile.byAction?.[action.name] ?? hostile.byAction?.[action.pluginId] ?? hostile.expect;
}

/** Escapes `text` for use inside a RegExp source. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
