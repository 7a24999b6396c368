// What styles.xml and numbering.xml say about headings, character formatting and list kinds.
import { kid, kids, type XmlElement } from '../../engines/office-package/xml.js';

interface StyleInfo {
  name: string;
  basedOn?: string;
  outlineLevel?: number;
  numId?: string;
  ilvl?: number;
  bold?: boolean;
  italic?: boolean;
}

/** A WordprocessingML on/off property (`<w:b/>`, `<w:b w:val="0"/>`): undefined when absent. */
export function onOff(el: XmlElement | undefined): boolean | undefined {
  if (!el) return undefined;
  const v = el.attrs['w:val'];
  return v === undefined || !['0', 'false', 'off'].includes(v.toLowerCase());
}

export class Styles {
  readonly #styles = new Map<string, StyleInfo>();

  constructor(styles: XmlElement | undefined) {
    for (const s of styles ? kids(styles, 'w:style') : []) {
      const id = s.attrs['w:styleId'];
      if (!id) continue;
      const pPr = kid(s, 'w:pPr');
      const rPr = kid(s, 'w:rPr');
      const outline = kid(pPr, 'w:outlineLvl')?.attrs['w:val'];
      const numPr = kid(pPr, 'w:numPr');
      this.#styles.set(id, {
        name: kid(s, 'w:name')?.attrs['w:val'] ?? id,
        basedOn: kid(s, 'w:basedOn')?.attrs['w:val'],
        outlineLevel: outline !== undefined ? Number(outline) : undefined,
        numId: kid(numPr, 'w:numId')?.attrs['w:val'],
        ilvl: numPr ? Number(kid(numPr, 'w:ilvl')?.attrs['w:val'] ?? 0) : undefined,
        bold: onOff(kid(rPr, 'w:b')),
        italic: onOff(kid(rPr, 'w:i')),
      });
    }
  }

  /** The chain of a style and the styles it is based on (bounded: a cycle cannot loop). */
  #chain(id: string | undefined): StyleInfo[] {
    const out: StyleInfo[] = [];
    for (let i = 0; id && i < 16; i++) {
      const s = this.#styles.get(id);
      if (!s) break;
      out.push(s);
      id = s.basedOn;
    }
    return out;
  }

  /** Heading level 1–6 of a paragraph style: "heading N" by name (what Word and LibreOffice write), "Title", or an outline level. */
  headingLevel(styleId: string | undefined): number | undefined {
    for (const s of this.#chain(styleId)) {
      const m = /^heading\s*([1-9])$/i.exec(s.name);
      if (m) return Math.min(6, Number(m[1]));
      if (/^title$/i.test(s.name)) return 1;
      if (s.outlineLevel !== undefined && s.outlineLevel >= 0 && s.outlineLevel < 9) return Math.min(6, s.outlineLevel + 1);
    }
    return undefined;
  }

  /**
   * The list numbering a paragraph style carries (List Bullet, List Number, …). Word's built-in "List Bullet 2"
   * … "List Number 5" each have a numbering of their own at level 0, indented deeper: their number is the
   * nesting level, while `formatLevel` stays the level of their own numbering definition.
   */
  numbering(styleId: string | undefined): { numId: string; ilvl: number; formatLevel: number } | undefined {
    const chain = this.#chain(styleId);
    for (const s of chain) {
      if (!s.numId) continue;
      const ilvl = s.ilvl ?? 0;
      const builtin = /^list (?:bullet|number)\s*([2-9])$/i.exec(chain[0]!.name);
      return { numId: s.numId, ilvl: ilvl === 0 && builtin ? Number(builtin[1]) - 1 : ilvl, formatLevel: ilvl };
    }
    return undefined;
  }

  /** Bold and italic of a character style (Strong, Emphasis, …). */
  characterFormat(styleId: string | undefined): { bold?: boolean; italic?: boolean } {
    const out: { bold?: boolean; italic?: boolean } = {};
    for (const s of this.#chain(styleId)) {
      out.bold ??= s.bold;
      out.italic ??= s.italic;
    }
    return out;
  }
}

export class Numbering {
  /** numId → level → {ordered, start}. */
  readonly #levels = new Map<string, Map<number, { ordered: boolean; start: number }>>();

  constructor(numbering: XmlElement | undefined) {
    if (!numbering) return;
    const abstract = new Map<string, Map<number, { ordered: boolean; start: number }>>();
    for (const a of kids(numbering, 'w:abstractNum')) {
      const levels = new Map<number, { ordered: boolean; start: number }>();
      for (const lvl of kids(a, 'w:lvl')) {
        const fmt = kid(lvl, 'w:numFmt')?.attrs['w:val'] ?? 'decimal';
        levels.set(Number(lvl.attrs['w:ilvl'] ?? 0), { ordered: fmt !== 'bullet' && fmt !== 'none', start: Number(kid(lvl, 'w:start')?.attrs['w:val'] ?? 1) });
      }
      abstract.set(a.attrs['w:abstractNumId'] ?? '', levels);
    }
    for (const n of kids(numbering, 'w:num')) {
      const levels = abstract.get(kid(n, 'w:abstractNumId')?.attrs['w:val'] ?? '');
      if (levels && n.attrs['w:numId']) this.#levels.set(n.attrs['w:numId'], levels);
    }
  }

  level(numId: string, ilvl: number): { ordered: boolean; start: number } {
    return this.#levels.get(numId)?.get(ilvl) ?? { ordered: false, start: 1 };
  }
}
