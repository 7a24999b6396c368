// Semantic similarity of a document to category names through WordNet: a category's words grow into their
// synonyms, more specific kinds (cooking → baking, frying), related forms (cooking → cook) and gloss words;
// a document's words grow into their synonyms and the kinds they are (cake → baked goods → food; bake →
// cook). The overlap, weighted, says how near the document is to a category whose words it never uses.
import { synset, synsetsOf } from './wordnet.js';

const STOP = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with your you our we i me my not no but all any can do each if into more most other out over so some such than then there these they those up use used very what when which who why how also about after before being both during few further here just only own same too under until while where again once off above below between through'.split(' '),
);
/** Gloss words that say nothing about a topic ("the act of …", "something that …"). */
const GLOSS_STOP = new Set('act something someone thing things person people state process way kind part form one two make making made especially usually often e.g. etc used use'.split(' '));

const lemmaWords = (w: string) => w.split(/[_-]/).filter((x) => x.length > 2);

/** Terms near a category: term → weight (1 its own words, less for the further relations). */
export function categoryTerms(category: string): Map<string, number> {
  const terms = new Map<string, number>();
  const put = (t: string, w: number) => {
    if (t.length < 3 || STOP.has(t)) return;
    if ((terms.get(t) ?? 0) < w) terms.set(t, w);
  };
  for (const word of category.toLowerCase().match(/\p{L}+/gu) ?? []) {
    if (STOP.has(word)) continue;
    put(word, 1);
    for (const key of synsetsOf(word, 3, 1)) {
      const s = synset(key);
      if (!s) continue;
      for (const x of s.words) for (const y of [x, ...lemmaWords(x)]) put(y, 0.9);
      for (const g of s.gloss.split(';')[0]!.toLowerCase().match(/\p{L}+/gu) ?? []) if (!GLOSS_STOP.has(g)) put(g, 0.35);
      for (const p of s.pointers) {
        const weight = p.symbol === '~' ? 0.7 : p.symbol === '+' ? 0.8 : p.symbol === '@' ? 0.4 : p.symbol === '&' ? 0.6 : 0;
        if (!weight) continue;
        const t = synset(p.key);
        if (t) for (const x of t.words) for (const y of [x, ...lemmaWords(x)]) put(y, weight);
      }
    }
  }
  return terms;
}

/** What a document word is, as WordNet says: itself, its synonyms and the kinds above it (three levels). */
function wordTerms(word: string): Map<string, number> {
  const out = new Map<string, number>([[word, 1]]);
  const put = (t: string, w: number) => (out.get(t) ?? 0) < w && out.set(t, w);
  let level = synsetsOf(word, 1, 1);
  for (const [k, w] of [0.8, 0.6, 0.45, 0.3].entries()) {
    const next: string[] = [];
    for (const key of level) {
      const s = synset(key);
      if (!s) continue;
      for (const x of s.words) for (const y of [x, ...lemmaWords(x)]) put(y, w);
      if (k === 0) for (const p of s.pointers) if (p.symbol === '+') for (const x of synset(p.key)?.words ?? []) put(x, 0.7);
      for (const p of s.pointers) if (p.symbol === '@') next.push(p.key);
    }
    level = next.slice(0, 8);
  }
  return out;
}

/**
 * Semantic score of each category for the document's words (with their counts): for each of the document's
 * most frequent content words, its best match among the category's terms, weighted by how often it occurs
 * and by how few categories share the term. Also the words that matched most.
 */
export function semanticScores(docWords: Map<string, number>, categories: string[]): Array<{ score: number; hits: string[] }> {
  const cats = categories.map(categoryTerms);
  const df = new Map<string, number>();
  for (const c of cats) for (const t of c.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + categories.length / (df.get(t) ?? 1));
  const content = [...docWords].filter(([w]) => w.length > 2 && /^\p{L}+$/u.test(w) && !STOP.has(w)).sort((a, b) => b[1] - a[1]).slice(0, 120);
  const scores = cats.map(() => ({ score: 0, hits: new Map<string, number>() }));
  for (const [word, n] of content) {
    const near = wordTerms(word);
    cats.forEach((terms, i) => {
      let best = 0;
      let via = '';
      for (const [t, w] of near) {
        const c = terms.get(t);
        if (c && c * w * idf(t) > best) [best, via] = [c * w * idf(t), t];
      }
      if (best > 0) {
        const s = best * Math.log(1 + n);
        scores[i]!.score += s;
        scores[i]!.hits.set(via === word ? word : `${word}→${via}`, s);
      }
    });
  }
  return scores.map((s) => ({ score: s.score, hits: [...s.hits].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([h]) => h) }));
}
