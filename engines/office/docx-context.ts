// The state one DOCX render carries from block to block: footnotes, list instances, bookmark names,
// anchors waiting for their first paragraph, the current text width, and the notes for the job's warnings.
import { Bookmark, Paragraph, type IParagraphOptions, type ParagraphChild } from 'docx';
import type { Block, OfficeDocument } from './model.js';

export const twipsFromCm = (cm: number): number => Math.round((cm * 1440) / 2.54);
export const twipsFromPt = (pt: number): number => Math.round(pt * 20);
/** Run sizes are in half-points. */
export const halfPoints = (pt: number): number => Math.round(pt * 2);
/** docx wants RRGGBB without the hash. */
export const hex = (color: string): string => color.replace(/^#/, '').toUpperCase();

/** Word accepts bookmark names of a letter then letters, digits and underscores, at most 40 characters. */
const WORD_BOOKMARK = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

/** One entry of the numbering part: a list kind and where it starts (each list is an instance of it, so it restarts). */
export interface ListDefinition {
  reference: string;
  ordered: boolean;
  start: number;
}

export class DocxContext {
  readonly footnotes: Record<string, { children: Paragraph[] }> = {};
  readonly lists = new Map<string, ListDefinition>();
  #footnoteCount = 0;
  #listInstances = 0;
  #bookmarks = new Map<string, string>();
  #pending: string[] = [];
  /** Width available to a block in the current section (one column of it), in twips. */
  textWidth: number;
  /** True while footnote text is written: a footnote cannot hold another. */
  inFootnote = false;
  /** SEQ identifiers of captions, by caption kind, for the figure and table lists' TOC \c switches. */
  readonly seq: { figure: string; table: string };

  constructor(readonly doc: OfficeDocument) {
    const { widthCm, margins } = doc.page;
    this.textWidth = twipsFromCm(widthCm - margins.leftCm - margins.rightCm);
    this.seq = { figure: seqIdentifier(firstCaptionLabel(doc, 'image') ?? 'Figure'), table: seqIdentifier(firstCaptionLabel(doc, 'table') ?? 'Table') };
  }

  warn(path: string, message: string, code: string): void {
    this.doc.warnings.push({ path, message, code });
  }

  /**
   * The Word bookmark name of an anchor id. Ids Word accepts keep their name (users see it under Insert → Bookmark);
   * others (with "-", ".", ":" or too long) get a hidden name, "_" first, unique within the document.
   */
  bookmark(id: string): string {
    let name = this.#bookmarks.get(id);
    if (!name) {
      name = WORD_BOOKMARK.test(id) ? id : `_Q${this.#bookmarks.size + 1}_${id.replace(/[^A-Za-z0-9_]/g, '_')}`.slice(0, 40);
      this.#bookmarks.set(id, name);
    }
    return name;
  }

  /** The next paragraph written starts with a bookmark for `id` (a section, a table, a figure). */
  anchor(id: string | null): void {
    if (id) this.#pending.push(id);
  }

  /** Every paragraph goes through here, so that anchors waiting for one land at the right place. */
  p(options: IParagraphOptions): Paragraph {
    if (!this.#pending.length) return new Paragraph(options);
    const marks = this.#pending.map((id) => new Bookmark({ id: this.bookmark(id), children: [] }));
    this.#pending = [];
    return new Paragraph({ ...options, children: [...marks, ...(options.children ?? [])] as ParagraphChild[] });
  }

  /** Anchors still waiting at the end of a section get an empty paragraph of their own. */
  flushAnchors(): Paragraph[] {
    return this.#pending.length ? [this.p({ spacing: { before: 0, after: 0 } })] : [];
  }

  footnote(children: Paragraph[]): number {
    const id = ++this.#footnoteCount;
    this.footnotes[String(id)] = { children };
    return id;
  }

  /** A fresh numbering instance for one list: Word restarts its count. */
  list(ordered: boolean, start: number): { reference: string; instance: number } {
    const reference = ordered ? `quire-ordered-${start}` : 'quire-bullet';
    if (!this.lists.has(reference)) this.lists.set(reference, { reference, ordered, start });
    return { reference, instance: ++this.#listInstances };
  }
}

/** A SEQ field's identifier is one word: the caption label with anything else removed. */
export function seqIdentifier(label: string): string {
  const id = label.replace(/[^\p{L}\p{N}_]/gu, '');
  return /^\p{L}/u.test(id) ? id : `Q${id}`;
}

function firstCaptionLabel(doc: OfficeDocument, kind: 'image' | 'table'): string | null {
  for (const s of doc.sections) {
    const found = s.content.find((b): b is Extract<Block, { t: 'image' | 'table' }> => b.t === kind && b.caption !== null);
    if (found?.caption) return found.caption.label;
  }
  return null;
}
