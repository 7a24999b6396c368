// Right-to-left text of a picture label put into the left-to-right order the picture renderer draws it in (the Unicode bidirectional algorithm, bidi-js).
// Why: Skia's SVG text (@napi-rs/canvas) applies no bidirectional algorithm: it shapes each word of Hebrew or Arabic
// right to left (letters right, Arabic joined) but lays the words, numbers and punctuation out left to right as given,
// so "שלום עולם" came out as its words in reading order from the left. Measured: the unit Skia turns round itself is a
// run of letters and marks; any other character (space, punctuation, maqaf, digit) ends it.
import bidiFactory from 'bidi-js';

const bidi = bidiFactory();
/** What Skia shapes right to left by itself when it is a right-to-left letter: such runs are given in logical order. */
const WORD_CHAR = /^[\p{L}\p{M}]$/u;

/**
 * `text` in visual order for a renderer that draws left to right: paragraph direction from the first strong
 * character, brackets mirrored in right-to-left runs, the order of words and neutrals reversed where the algorithm
 * says, but each right-to-left word's letters kept in logical order (the renderer shapes and turns them).
 * Text without right-to-left characters is returned as it is.
 */
export function visualOrder(text: string): string {
  const levels = bidi.getEmbeddingLevels(text, 'auto');
  if (!levels.levels.some((l) => l % 2 === 1)) return text;
  const units = text.split('');
  for (const [i, c] of bidi.getMirroredCharactersMap(text, levels.levels)) units[i] = c;
  const order = units.map((_, i) => i);
  for (const [start, end] of bidi.getReorderSegments(text, levels)) order.splice(start, end - start + 1, ...order.slice(start, end + 1).reverse());
  // Turn back what the renderer turns itself (right-to-left words) and surrogate pairs the reversal split.
  const out: string[] = [];
  for (let k = 0; k < order.length; ) {
    const i = order[k]!;
    const rtlWord = levels.levels[i]! % 2 === 1 && WORD_CHAR.test(units[i]!);
    let n = 1;
    while (k + n < order.length && order[k + n] === i - n && (rtlWord ? levels.levels[i - n]! % 2 === 1 && WORD_CHAR.test(units[i - n]!) : isLowThenHigh(units[i]!, units[i - n]!))) n++;
    out.push(...order.slice(k, k + n).reverse().map((j) => units[j]!));
    k += n;
  }
  return out.join('');
}

/** A surrogate pair seen backwards (low, then its high) after a reversal. */
function isLowThenHigh(low: string, high: string): boolean {
  return /[\uDC00-\uDFFF]/.test(low) && /[\uD800-\uDBFF]/.test(high);
}
