// What the editor edits, kept by the shell so that the Library can open a document or a template in it, pick its style
// and insert a block at its cursor: the text, the style preset, the stored document it is (if any) and where it came from.

export interface OpenDocument {
  id: string;
  name: string;
  /** The version read or last saved: sent as If-Match, so a change made elsewhere meanwhile is not overwritten. */
  version: number;
  /** The style preset stored with it: "Save" changes it only when the picker differs. */
  stylePresetId: string | null;
}

export interface Draft {
  content: string;
  style: string;
  /** The stored document "Save" writes back to; null for new text ("Save as document" creates one). */
  doc: OpenDocument | null;
  /** Where new text came from ("template Invoice"), shown beside the toolbar. */
  origin: string | null;
  /** The caret's offset in `content`, where a block is inserted. */
  cursor: number;
}

export const SAMPLE = ['---', 'document:', '  title: Quarterly note', 'variables:', '  quarter: Q3', '---', '', '# Quarterly note, {{quarter}}', '', 'Sales rose **12 %** this quarter.', '', '- Orders: 1,240', '- Returns: 31', ''].join('\n');

export const NEW_DRAFT: Draft = { content: SAMPLE, style: '', doc: null, origin: null, cursor: SAMPLE.length };

/** `text` inserted at the caret on a line of its own (blank lines around it, as a block directive needs). */
export function insertAtCursor(draft: Draft, text: string): Draft {
  const at = Math.min(Math.max(draft.cursor, 0), draft.content.length);
  const before = draft.content.slice(0, at);
  const after = draft.content.slice(at);
  const lead = before === '' || before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
  const trail = after.startsWith('\n\n') ? '' : after.startsWith('\n') ? '\n' : '\n\n';
  const inserted = `${lead}${text}${trail}`;
  return { ...draft, content: before + inserted + after, cursor: at + inserted.length };
}
