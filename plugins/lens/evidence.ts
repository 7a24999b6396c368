// Is a value a model gave actually written in the document? Each check compares normalised forms: strings
// by their letters and digits (case, accents, punctuation and spacing ignored), numbers by value whatever
// their format, dates by the day they name whatever their spelling.
import * as chrono from 'chrono-node';
import { isoOf, parseAmount, words } from './understand.js';

/** Letters and digits only, lower case, without accents, runs of anything else as one space. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const NUMBER_RUN = /[-−]?\d[\d.,' \u00a0\u202f]*/g;
const NUMERIC_DATE = /\b(\d{1,2})[./-](\d{1,2})[./-](\d{4})\b/g;

/** What the document says, read once for all checks of one answer. */
export class Evidence {
  readonly #folded: string;
  readonly #words: Set<string>;
  #numbers?: number[];
  #dates?: Set<string>;

  constructor(readonly text: string) {
    this.#folded = ` ${fold(text)} `;
    this.#words = new Set(words(text));
  }

  /** The string occurs in the text, on word boundaries, once both are folded. */
  hasString(value: string): boolean {
    const v = fold(value);
    return v !== '' && this.#folded.includes(` ${v} `);
  }

  /** Some amount written in the text has this value (1,234.50 / 1.234,50 / 1 234,50 / 1234.5 all count). */
  hasNumber(value: number): boolean {
    this.#numbers ??= this.#readNumbers();
    return this.#numbers.some((n) => Math.abs(n - value) <= 1e-9 * Math.max(1, Math.abs(value)));
  }

  /** Some date written in the text is this day (`YYYY-MM-DD`); a numeric d/m/y date counts in both orders. */
  hasDate(iso: string): boolean {
    this.#dates ??= this.#readDates();
    return this.#dates.has(iso);
  }

  /** The text uses at least one word of the name or description (a yes/no answer needs its subject on the page). */
  mentions(phrase: string): boolean {
    return words(phrase).some((w) => w.length >= 3 && this.#words.has(w));
  }

  #readNumbers(): number[] {
    const out: number[] = [];
    for (const m of this.text.matchAll(NUMBER_RUN)) {
      // A run may join neighbours ("2 3.50" in a table row): each space-separated part counts too.
      for (const part of [m[0], ...m[0].trim().split(/[\s\u00a0\u202f]+/)]) {
        const n = parseAmount(part);
        if (n !== null) out.push(n);
      }
    }
    return out;
  }

  #readDates(): Set<string> {
    const out = new Set<string>();
    for (const r of chrono.strict.parse(this.text)) {
      const iso = isoOf(r.start.get('year'), r.start.get('month'), r.start.get('day'));
      if (iso && r.start.isCertain('year')) out.add(iso);
    }
    for (const m of this.text.matchAll(NUMERIC_DATE)) {
      const [a, b, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
      for (const iso of [isoOf(y, a, b), isoOf(y, b, a)]) if (iso) out.add(iso);
    }
    return out;
  }
}

/** A date answer as `YYYY-MM-DD`: ISO 8601 (a time part ignored) or any full date chrono-node reads; null otherwise. */
export function toIsoDate(value: string): string | null {
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(value.trim());
  if (iso) return isoOf(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const found = chrono.strict.parse(value)[0];
  if (!found || !found.start.isCertain('year')) return null;
  return isoOf(found.start.get('year'), found.start.get('month'), found.start.get('day'));
}
