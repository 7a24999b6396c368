// Reusable blocks inside document JSON: a `blockRef` element may hold `content` (the elements of a saved snapshot, or
// of a linked block the server resolved for a render). Renderers and the semantic checks see a section's elements in a
// row, so the blocks are spliced into their sections here, each element remembering the path it came from.
// No schema and no Ajv: pure functions over (possibly unvalidated) JSON.
import type { FieldError } from '../contracts/errors.js';
import { DOCUMENT_LIMITS, type BlockRefElement, type DocumentJson, type Element } from '../contracts/document-json.js';
import { arr, isObj } from './references.js';

/** A document whose blocks are spliced into their sections, and where each of its paths came from. */
export interface SplicedDocument {
  document: DocumentJson;
  /** The path in the original document of a path in the spliced one (`sections[0].content[4].text` → `sections[0].content[2].content[1].text`). */
  origin(path: string): string;
  /** Content in the wrong place or nested too deep, at their original paths. */
  errors: FieldError[];
}

export function isBlockRef(el: unknown): el is BlockRefElement {
  return isObj(el) && el.type === 'blockRef';
}

/** Whether any section's content holds a blockRef. */
export function hasBlockRefs(doc: unknown): boolean {
  return isObj(doc) && arr(doc.sections).some((s) => isObj(s) && arr(s.content).some(isBlockRef));
}

/**
 * Each section's content with every blockRef replaced by its `content` (recursively). With `keepMarkers` the
 * blockRef stays in front of its content, without it (the validator checks its fields; a renderer never sees it).
 * The sections are new objects; the elements are the document's own (not copied). A blockRef without content is
 * dropped unless `keepMarkers`.
 */
export function spliceBlocks(doc: DocumentJson, keepMarkers: boolean): SplicedDocument {
  const errors: FieldError[] = [];
  const origins: string[][] = [];
  const sections = arr(doc.sections).map((section, i) => {
    const from: string[] = [];
    origins.push(from);
    if (!isObj(section) || !Array.isArray(section.content)) return section;
    const flat: unknown[] = [];
    const add = (content: unknown[], base: string, depth: number) => {
      content.forEach((el, j) => {
        const path = `${base}[${j}]`;
        if (!isBlockRef(el) || el.content === undefined) {
          if (!isBlockRef(el) || keepMarkers) {
            flat.push(el);
            from.push(path);
          }
          return;
        }
        const { content: inner, ...marker } = el;
        if (keepMarkers) {
          flat.push(marker);
          from.push(path);
        }
        if (!Array.isArray(inner)) {
          errors.push({ path: `${path}.content`, message: 'must be an array of elements', code: 'INVALID_FIELD' });
        } else if (el.mode !== 'snapshot' && keepMarkers) {
          errors.push({ path: `${path}.content`, message: 'belongs to snapshot blocks only: a linked block is resolved at every render; leave content out or set mode to snapshot', code: 'INVALID_FIELD' });
        } else if (depth >= DOCUMENT_LIMITS.blockDepth) {
          errors.push({ path, message: `blocks nest at most ${DOCUMENT_LIMITS.blockDepth} deep`, code: 'BLOCK_TOO_DEEP' });
        } else {
          add(inner, `${path}.content`, depth + 1);
        }
      });
    };
    add(section.content, `sections[${i}].content`, 0);
    return { ...section, content: flat };
  });
  const origin = (path: string): string => {
    const m = /^sections\[(\d+)\]\.content\[(\d+)\]/.exec(path);
    const at = m ? origins[Number(m[1])]?.[Number(m[2])] : undefined;
    return at === undefined ? path : at + path.slice(m![0].length);
  };
  return { document: { ...doc, sections: sections as DocumentJson['sections'] }, origin, errors };
}

/** The elements of a blockRef's content (a snapshot's, or a linked block's resolved for a render). */
export function blockContent(el: BlockRefElement): Element[] {
  return (el.content ?? []) as unknown as Element[];
}
