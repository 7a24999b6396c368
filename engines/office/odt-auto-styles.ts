// Automatic styles of content.xml: each distinct combination of properties is written once and named
// (P1, T1, …), so a 30-page document with one alignment override does not carry thousands of styles.
import { el, frag, type Xml, type XmlAttrs } from './xml.js';
import { cm, foAlign, textPropAttrs, type TextProps } from './odt-common.js';
import type { TextAlign } from './model.js';

type Family = 'paragraph' | 'text' | 'table' | 'table-column' | 'table-row' | 'table-cell' | 'graphic' | 'section';

export class AutoStyles {
  readonly #names = new Map<string, string>();
  readonly #styles: Xml[] = [];
  readonly #counters = new Map<string, number>();

  /** The name of the automatic style with these attributes and properties, created on first use. */
  style(family: Family, prefix: string, attrs: XmlAttrs, ...props: Array<Xml | null>): string {
    const key = `${family}\0${JSON.stringify(attrs)}\0${props.map((p) => p?.markup ?? '').join('')}`;
    let name = this.#names.get(key);
    if (!name) {
      const n = (this.#counters.get(prefix) ?? 0) + 1;
      this.#counters.set(prefix, n);
      name = `${prefix}${n}`;
      this.#names.set(key, name);
      this.#styles.push(el('style:style', { 'style:name': name, 'style:family': family, ...attrs }, props));
    }
    return name;
  }

  /** A paragraph style over `parent`, or `parent` itself when nothing is overridden. */
  paragraph(parent: string, o: ParagraphOverrides): string {
    const par: XmlAttrs = {
      'fo:text-align': o.align ? foAlign(o.align) : null,
      'style:justify-single-word': o.align === 'justify' ? 'false' : null,
      'fo:break-before': o.breakBefore ? 'page' : null,
      'fo:margin-top': o.marginTopCm !== undefined ? cm(o.marginTopCm) : null,
      'fo:margin-bottom': o.marginBottomCm !== undefined ? cm(o.marginBottomCm) : null,
      'fo:line-height': o.lineHeightCm !== undefined ? cm(o.lineHeightCm) : null,
      'fo:keep-with-next': o.keepWithNext ? 'always' : null,
    };
    const text = o.text ? textPropAttrs(o.text) : {};
    const tabs = o.tabStops?.length
      ? el('style:tab-stops', null, o.tabStops.map((t) => el('style:tab-stop', { 'style:position': cm(t.positionCm), 'style:type': t.type })))
      : null;
    const hasPar = Object.values(par).some((v) => v !== null) || tabs !== null;
    const hasText = Object.values(text).some((v) => v !== null);
    if (!hasPar && !hasText && !o.masterPage) return parent;
    return this.style(
      'paragraph',
      'P',
      { 'style:parent-style-name': parent, 'style:master-page-name': o.masterPage ?? null },
      hasPar ? el('style:paragraph-properties', par, tabs) : null,
      hasText ? el('style:text-properties', text) : null,
    );
  }

  /** A character style for a run (code tokens, styled paragraphs). */
  text(p: TextProps): string {
    return this.style('text', 'T', {}, el('style:text-properties', textPropAttrs(p)));
  }

  toXml(): Xml {
    return el('office:automatic-styles', null, frag(this.#styles));
  }
}

export interface ParagraphOverrides {
  align?: TextAlign | null;
  breakBefore?: boolean;
  /** Switch to this master page (page style) at this paragraph; implies a page break. */
  masterPage?: string | null;
  marginTopCm?: number;
  marginBottomCm?: number;
  /** A fixed line height (spacers). */
  lineHeightCm?: number;
  keepWithNext?: boolean;
  tabStops?: Array<{ positionCm: number; type: 'center' | 'right' }>;
  text?: TextProps | null;
}
