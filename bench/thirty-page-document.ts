// A realistic ~30-page report (~15,000 words: headings, paragraphs with some emphasis, lists, a table a chapter), the same on every run, for bench/documents.ts.
import type { DocumentJson } from '../contracts/document-json.js';

type Json = Record<string, unknown>;

const WORDS =
  'the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can out up about them into some could time other then these two may do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(
    ' ',
  );

/** A deterministic word generator (the same document on every run). */
function* words(seed: number): Generator<string> {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    yield WORDS[x % WORDS.length]!;
  }
}

function sentence(w: Generator<string>, n: number): string {
  const s = Array.from({ length: n }, () => w.next().value as string).join(' ');
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

function paragraph(w: Generator<string>, sentences: number, emphasis: number): string {
  const parts = Array.from({ length: sentences }, (_, i) => sentence(w, 10 + ((i * 7) % 11)));
  // Some inline markup, as a real text has.
  if (emphasis % 3 === 0) parts[1] = `**${parts[1]!.slice(0, -1)}**.`;
  if (emphasis % 4 === 1) parts[2] = `*${parts[2]!.slice(0, -1)}*.`;
  return parts.join(' ');
}

/**
 * A ~30-page report of ~15,000 words: a table of contents, then 10 chapters (each on a new page) of 3 sections, each
 * section a few paragraphs, every other one a bullet list, one table a chapter; as document JSON (serialized to
 * Markdown by the caller).
 */
export function thirtyPageDocument(): DocumentJson {
  const w = words(42);
  let count = 0;
  const content: Json[] = [{ type: 'toc', title: 'Contents', depth: 2 }];
  for (let ch = 1; ch <= 10; ch++) {
    // Each chapter on a new page, as reports set them.
    content.push({ type: 'pageBreak' });
    content.push({ type: 'h1', text: `Chapter ${ch}: ${sentence(w, 4).slice(0, -1)}` });
    content.push({ type: 'text', text: paragraph(w, 5, count++) });
    for (let sec = 1; sec <= 3; sec++) {
      content.push({ type: 'h2', text: `${ch}.${sec} ${sentence(w, 5).slice(0, -1)}` });
      for (let p = 0; p < 4; p++) content.push({ type: 'text', text: paragraph(w, 6, count++) });
      if (sec % 2 === 1) content.push({ type: 'list', items: Array.from({ length: 5 }, () => sentence(w, 9)) });
      if (sec === 2) {
        const rows = Array.from({ length: 8 }, (_, r) => [`Item ${ch}.${r + 1}`, sentence(w, 5), String(100 + ((ch * 13 + r * 7) % 900)), `${(((ch + r) * 3.7) % 100).toFixed(1)} %`]);
        content.push({ type: 'table', headerRows: 1, columns: [{ width: '1fr' }, { width: '3fr' }, { width: '1fr', align: 'right' }, { width: '1fr', align: 'right' }], rows: [['Item', 'Description', 'Count', 'Share'], ...rows] });
      }
      content.push({ type: 'text', text: paragraph(w, 5, count++) });
    }
  }
  return {
    document: { type: 'pdf', filename: 'annual-report', title: 'Annual report 2026', author: 'Quire Bench', size: 'A4', marginTop: 2.5, marginBottom: 2.5, marginLeft: 2.5, marginRight: 2.5 },
    sections: [{ type: 'flow', content }],
  } as unknown as DocumentJson;
}
