// Inline markup resolved for the office writers as the PDF prints it: variables substituted, abbreviations spelled
// out on first use, links to missing anchors and unknown citation keys printed as written, inline math as MathML.
import { parseInline, type Inline } from '../../document/inline-markup.js';
import type { DocumentJson } from '../../contracts/document-json.js';
import { substitute, variableText } from '../render-input.js';
import type { CitationCluster } from './csl.js';
import { latexToMathml } from './math.js';
import type { OfficeDocument, OInline } from './model.js';

export type CiteNode = Extract<OInline, { t: 'cite' }>;

export class InlineResolver {
  readonly #variables: Record<string, unknown>;
  readonly #abbrSeen = new Set<string>();
  readonly #citationKeys: Set<string>;
  /** Every citation in document order with the node its formatted text goes into (CSL formats them all at once). */
  readonly clusters: Array<{ cluster: CitationCluster; node: CiteNode }> = [];

  /** `anchors`: what a reference may point to (section ids and element ids, as in the PDF). */
  constructor(
    private readonly doc: DocumentJson,
    private readonly anchors: ReadonlySet<string>,
    private readonly warnings: OfficeDocument['warnings'],
  ) {
    this.#variables = doc.variables ?? {};
    this.#citationKeys = new Set((doc.citations ?? []).map((c) => c.id));
  }

  /** A plain-text field: variables substituted. */
  plain(text: string): string {
    return substitute(text, this.#variables);
  }

  /** A markup field at `path` (the path a warning names). */
  inline(text: string | number | undefined, path: string): OInline[] {
    if (text === undefined) return [];
    if (typeof text === 'number') return [{ t: 'text', v: String(text) }];
    return this.#resolve(parseInline(text), path);
  }

  #resolve(nodes: Inline[], path: string): OInline[] {
    const out: OInline[] = [];
    for (const n of nodes) {
      switch (n.t) {
        case 'var':
          out.push({ t: 'text', v: variableText(this.#variables, n.name) });
          break;
        case 'strong':
        case 'emph':
        case 'footnote':
          out.push({ t: n.t, c: this.#resolve(n.c, path) });
          break;
        case 'link':
          out.push({ t: 'link', url: n.url, c: this.#resolve(n.c, path) });
          break;
        case 'ref':
          // A link to an anchor that does not exist prints as its label (the job warns about it), as in the PDF.
          if (this.anchors.has(n.id)) out.push({ t: 'ref', id: n.id, c: this.#resolve(n.c, path) });
          else out.push(...this.#resolve(n.c, path));
          break;
        case 'abbr': {
          // quire.typ prints "Full text (KEY)" the first time a known abbreviation is used, the key after that.
          const full = this.doc.abbreviations?.[n.key];
          if (full !== undefined && !this.#abbrSeen.has(n.key)) {
            this.#abbrSeen.add(n.key);
            out.push({ t: 'text', v: `${full} (${n.key})` });
          } else out.push({ t: 'text', v: n.key });
          break;
        }
        case 'cite': {
          const items = n.items.filter((it) => this.#citationKeys.has(it.key));
          // An unknown key is a warning on the job; it prints as written, never breaks the render.
          for (const it of n.items) if (!this.#citationKeys.has(it.key)) out.push({ t: 'text', v: `[${it.key}]` });
          if (items.length) {
            const node: CiteNode = { t: 'cite', c: [] };
            this.clusters.push({ cluster: { items }, node });
            out.push(node);
          }
          break;
        }
        case 'math': {
          const converted = latexToMathml(n.latex, false);
          if (converted.ok) out.push({ t: 'math', mathml: converted.mathml, latex: n.latex });
          else {
            // As in the PDF, inline math that cannot be converted is shown as its LaTeX source.
            out.push({ t: 'code', v: n.latex });
            this.warnings.push({ path, code: 'MATH_NOT_CONVERTED', message: `inline math $${n.latex}$ is shown as LaTeX source: ${converted.message}` });
          }
          break;
        }
        default:
          out.push(n);
      }
    }
    return out;
  }
}

/** Text of resolved inline nodes for outlines (table of contents, lists of figures): footnotes left out. */
export function plainText(nodes: OInline[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.t === 'text' || n.t === 'code') out += n.v;
    else if (n.t === 'math') out += n.latex;
    else if (n.t === 'br') out += ' ';
    else if (n.t !== 'footnote') out += plainText(n.c);
  }
  return out;
}
