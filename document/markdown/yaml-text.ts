// YAML of a Markdown source (front matter, chart blocks): read with js-yaml, and with the `yaml` library only when its node positions or its error messages are needed.
import { load } from 'js-yaml';
import YAML, { LineCounter, type Document } from 'yaml';

/** A place in a source: 1-based line and column. */
export interface Point {
  line: number;
  column: number;
}

/**
 * Most aliases one YAML text may expand (the `yaml` library's count): an alias repeats its anchor's whole
 * value, so a few nested ones would otherwise blow up the data (billion laughs).
 */
export const MAX_YAML_ALIASES = 100;

/**
 * One YAML text. `read()` parses it with js-yaml (its default schema is YAML 1.2 core, as the `yaml`
 * library's), which is several times faster; the `yaml` library's document, with the range of every node,
 * is built only when asked for (`doc`: where an issue's path is in the source) or when js-yaml does not
 * take the text as is: any error (whose message and position the `yaml` library then gives), an alias
 * (expanded there under MAX_YAML_ALIASES), nesting over js-yaml's 100 levels, or a null key (which the two
 * libraries name differently). So the data is always what the `yaml` library would give.
 */
export class YamlText {
  /** Offsets to lines and columns in `text`, filled when `doc` is built. */
  readonly lines = new LineCounter();
  #doc: Document | undefined;

  /** `firstLine`: the line of the Markdown source on which `text` starts. */
  constructor(
    readonly text: string,
    readonly firstLine: number,
  ) {}

  /** Where `offset` into `text` is in the Markdown source (needs `doc` built: an error's or a node's offset). */
  pointAt(offset: number): Point {
    const p = this.lines.linePos(offset);
    return { line: this.firstLine + p.line - 1, column: p.col };
  }

  get doc(): Document {
    this.#doc ??= YAML.parseDocument(this.text, { uniqueKeys: true, prettyErrors: true, lineCounter: this.lines, logLevel: 'error' });
    return this.#doc;
  }

  /** The text's data, or the `yaml` library's errors when it is not valid YAML. Throws past MAX_YAML_ALIASES. */
  read(): { data: unknown; errors?: undefined } | { data?: undefined; errors: YAML.YAMLError[] } {
    try {
      const data = load(this.text, { maxAliases: 0 });
      if (!hasNullKey(data)) return { data };
    } catch {
      // Read again below, where the message and the position come from.
    }
    if (this.doc.errors.length) return { errors: this.doc.errors };
    return { data: this.doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  }
}

/** Whether a mapping in `value` has the key js-yaml makes of a null key (`~:`, `? null`); the `yaml` library makes it "". */
function hasNullKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasNullKey);
  if (value === null || typeof value !== 'object') return false;
  for (const [key, v] of Object.entries(value)) if (key === 'null' || hasNullKey(v)) return true;
  return false;
}
