// Where a document draws images: image elements and image variables, each with its JSON path. Rendering checks
// and loads them; saving a document turns its temporary images into permanent assets.
import type { DocumentJson } from '../contracts/document-json.js';
import { forEachElement } from './element-visitor.js';

export interface ImageUse {
  src: string;
  /** JSON path of the `src`, from the document's root (`sections[0].content[2].src`, `variables.logo.src`). */
  path: string;
}

interface Found extends ImageUse {
  holder: { src: string };
}

function found(doc: DocumentJson): Found[] {
  const out: Found[] = [];
  // Every element, a saved snapshot's content included (it is the document's own).
  forEachElement(doc, (el, path) => {
    if (el.type === 'image') out.push({ src: el.src, path: `${path}.src`, holder: el });
  });
  for (const [name, v] of Object.entries(doc.variables ?? {})) {
    if (v && typeof v === 'object' && !Array.isArray(v) && (v as { type?: string }).type === 'image') {
      const holder = v as { src: string };
      out.push({ src: holder.src, path: `variables.${name}.src`, holder });
    }
  }
  return out;
}

/** Every image the document draws, in document order (a `src` used twice is listed twice). */
export function imageUses(doc: DocumentJson): ImageUse[] {
  return found(doc).map(({ src, path }) => ({ src, path }));
}

/** A copy of the document whose image sources went through `replace` (the input is not changed). */
export function replaceImageSources<D extends DocumentJson>(doc: D, replace: (src: string) => string): D {
  const copy = structuredClone(doc);
  for (const use of found(copy)) use.holder.src = replace(use.src);
  return copy;
}
