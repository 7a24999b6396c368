// The built-in engine behind classify, extract and generate-filename: deterministic, offline, explainable.
// Lexical similarity (TF-IDF over category terms with synonym expansion), label proximity over lines and
// table cells, dates through chrono-node, amounts and booleans parsed from the text next to a label.
import * as chrono from 'chrono-node';
import type { Block, PageText } from './layout.js';
import { fullYear } from './field-rules.js';
import { semanticScores } from './semantic.js';

/** A line of the document as cells (table cells or label/value runs); a paragraph is one cell. */
export type TextLine = string[];

export function documentLines(pages: PageText[]): TextLine[] {
  const lines: TextLine[] = [];
  const add = (b: Block) => {
    if (b.kind === 'table' && columnHeaders(b.rows)) {
      // A row of labels over rows of values: each value cell becomes "label: value", as a form writes it.
      const [head, ...body] = b.rows;
      for (const r of body) lines.push(r.map((c, j) => (c.trim() && head![j]?.trim() ? `${head![j]!.trim().replace(/:$/, '')}: ${c}` : c)).filter((c) => c.trim()));
    } else if (b.kind === 'table') for (const r of b.rows) lines.push(r.filter((c) => c.trim()));
    else if (b.kind === 'list') for (const t of b.items) lines.push([t]);
    else lines.push([b.text]);
  };
  for (const p of pages) {
    for (const h of p.header) lines.push([h]);
    p.blocks.forEach(add);
    for (const f of p.footer) lines.push([f]);
  }
  return lines.filter((l) => l.length);
}

/**
 * Whether a table's first row labels its columns ("Invoice # | Issue date | Due date" over the values):
 * short cells without digits over rows that hold digits. A two-column table whose first column is all
 * labels is a key–value list instead ("Date | 12.03.2024" / "Customer | Contoso").
 */
function columnHeaders(rows: string[][]): boolean {
  const [head, ...body] = rows;
  if (!head || head.length < 2 || !body.length) return false;
  const labelLike = (c: string) => !/\d/.test(c) && c.trim().split(/\s+/).length <= 4;
  if (!head.every((c) => c.trim() && labelLike(c))) return false;
  if (head.length === 2 && rows.every((r) => labelLike(r[0] ?? ''))) return false;
  return body.some((r) => r.some((c) => /\d/.test(c)));
}

const STOP = new Set('a an and are as at be by for from has have in is it its of on or that the this to was were will with your you our we i me my de la le'.split(' '));

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w)).map(stem);
}

/** A light English stemmer: plural and common verb endings, so "invoices" meets "invoice". */
function stem(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 4 && /(ss|us)$/.test(w)) return w;
  if (w.length > 3 && w.endsWith('s')) return w.slice(0, -1);
  return w;
}

// ---------------------------------------------------------------- classify

/** Words typical of common document categories; a category's own words always count double. */
const CATEGORY_SYNONYMS: Record<string, string> = {
  invoice: 'invoice bill billing amount due total subtotal vat tax payment due date invoice number remit net terms',
  receipt: 'receipt paid thank purchase cash change card transaction store item qty subtotal total visa mastercard',
  letter: 'dear sincerely regards yours faithfully letter writing enclosed',
  contract: 'agreement contract party parties hereby terms conditions obligation shall clause term termination governing law signature witness',
  form: 'form applicant application please fill signature checkbox date of birth section complete',
  report: 'report summary findings analysis results conclusion introduction method quarter revenue',
  resume: 'resume curriculum vitae experience education skills employment references',
  memo: 'memo memorandum to from subject cc',
  statement: 'statement account balance opening closing transactions deposit withdrawal period',
  order: 'purchase order po quantity unit price ship deliver supplier',
  quote: 'quote quotation estimate valid offer proposal',
  manual: 'manual instructions step install guide warning',
  policy: 'policy insurance coverage premium insured claim',
  payslip: 'payslip salary gross net pay deductions employee employer',
};

/** Weight of WordNet's semantic score beside the lexical one. */
const SEMANTIC_WEIGHT = 0.35;

/**
 * Confidence from the margin over the runner-up and the amount of evidence, mapped to the share of answers
 * that were right at that level on the labelled set of bench/lens-set.ts (see docs/lens.md, Classify).
 */
function calibrated(margin: number, strength: number): number {
  const raw = margin * (0.4 + 0.6 * strength);
  // Piecewise-linear map fitted on the labelled set: raw 0 → 0.3, 0.1 → 0.6, 0.25 → 0.85, 0.5 → 0.95, 1 → 0.99.
  const knots: Array<[number, number]> = CALIBRATION;
  let k = 1;
  while (k < knots.length - 1 && raw > knots[k]![0]) k++;
  const [x0, y0] = knots[k - 1]!;
  const [x1, y1] = knots[k]!;
  const y = y0 + ((Math.min(raw, x1) - x0) / (x1 - x0)) * (y1 - y0);
  return Math.round(Math.min(0.99, Math.max(0.05, y)) * 100) / 100;
}
const CALIBRATION: Array<[number, number]> = [
  [0, 0.3],
  [0.1, 0.6],
  [0.25, 0.85],
  [0.5, 0.95],
  [1, 0.99],
];

export interface Classification {
  category: string;
  confidence: number;
  reasoning: string;
}

export function classify(text: string, categories: string[]): Classification {
  const docWords = words(text);
  if (docWords.length === 0) {
    return { category: categories[0]!, confidence: 0, reasoning: 'The document is empty: no text was found in the first 3 pages, so the first category is returned.' };
  }
  const tf = new Map<string, number>();
  for (const w of docWords) tf.set(w, (tf.get(w) ?? 0) + 1);
  // Query terms of each category: its own words (weight 2) and the synonyms of any known category word (1).
  const queries = categories.map((c) => {
    const q = new Map<string, number>();
    for (const w of words(c)) {
      q.set(w, 2);
      for (const [key, syn] of Object.entries(CATEGORY_SYNONYMS)) if (stem(key) === w) for (const s of words(syn)) if (!q.has(s)) q.set(s, 1);
    }
    return q;
  });
  // IDF across the categories: a word every category shares decides nothing.
  const df = new Map<string, number>();
  for (const q of queries) for (const t of q.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + categories.length / (df.get(t) ?? 1));
  const scored = queries.map((q, i) => {
    let score = 0;
    const hits: Array<[string, number]> = [];
    for (const [t, w] of q) {
      const n = tf.get(t);
      if (!n) continue;
      const s = w * idf(t) * Math.log(1 + n);
      score += s;
      hits.push([t, s]);
    }
    hits.sort((a, b) => b[1] - a[1]);
    return { i, score, hits };
  });
  // WordNet's view (semantic.ts): what the document's words are, near what the category names mean. It
  // counts at a third of a lexical hit, so it decides where the category's own words and synonyms are absent.
  const semantic = semanticScores(tf, categories);
  for (const x of scored) x.score += SEMANTIC_WEIGHT * semantic[x.i]!.score;
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.i - b.i);
  const top = ranked[0]!;
  const second = ranked[1]!;
  if (top.score === 0) {
    return { category: categories[0]!, confidence: 0.05, reasoning: `No clear match: none of the categories' words or synonyms occur in the text; "${categories[0]}" is returned as the closest (the first).` };
  }
  const margin = (top.score - second.score) / top.score;
  const strength = 1 - Math.exp(-top.score / 4);
  const confidence = calibrated(margin, strength);
  const deciding = top.hits.slice(0, 5).map(([t]) => `"${t}" (${tf.get(t)}×)`);
  const related = semantic[top.i]!.hits.filter((h) => !top.hits.some(([t]) => t === h)).slice(0, 4).map((h) => `"${h}"`);
  const because = [deciding.length ? `Deciding words: ${deciding.join(', ')}` : '', related.length ? `related through WordNet: ${related.join(', ')}` : ''].filter(Boolean).join('; ');
  const vs = second.score > 0 ? `; runner-up "${categories[second.i]}" scored ${second.score.toFixed(2)}` : '';
  const weak = confidence < 0.3 ? ' No clear match: the evidence is weak.' : '';
  return { category: categories[top.i]!, confidence, reasoning: `${because}; score ${top.score.toFixed(2)}${vs}.${weak}` };
}

// ---------------------------------------------------------------- extract

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'array';
export type FieldValue = string | number | boolean | string[] | null;

/** Label words for common field-name words: "invoice_number" also looks for "no", "#". */
const LABEL_SYNONYMS: Record<string, string[]> = {
  number: ['no', 'nr', 'num', 'id', 'ref', 'reference'],
  date: ['dated', 'issued', 'issue'],
  total: ['amount', 'due', 'grand', 'balance', 'sum'],
  amount: ['total', 'due', 'sum'],
  vendor: ['from', 'seller', 'supplier', 'company', 'issuer'],
  supplier: ['vendor', 'seller', 'from'],
  customer: ['client', 'bill', 'billed', 'buyer', 'to'],
  due: ['payable', 'deadline'],
  purchase: ['po'],
  order: ['po'],
  tax: ['vat', 'gst'],
  vat: ['tax'],
  email: ['e', 'mail'],
  phone: ['tel', 'telephone'],
};

interface Candidate {
  value: FieldValue;
  score: number;
  /** How well its label matches the field, before the penalty for where the value sits. */
  labelScore: number;
}

/** Finds a field's value next to the best-matching label; null when no label with a value of the type is found. */
export function extractField(lines: TextLine[], name: string, type: FieldType, description?: string, dayFirst = true): FieldValue {
  const nameWords = words(name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_.-]/g, ' '));
  const terms = new Map<string, number>();
  for (const w of nameWords) {
    terms.set(w, 2);
    for (const s of LABEL_SYNONYMS[w] ?? []) if (!terms.has(s)) terms.set(s, 1);
  }
  for (const w of words(description ?? '')) if (!terms.has(w)) terms.set(w, 0.5);
  const needed = nameWords.length * 2;
  let best: Candidate | null = null;
  /** The best-matching label followed by text that is no value of the type ("Due date: on receipt"). */
  let refusedBy = -Infinity;
  for (let i = 0; i < lines.length; i++) {
    const cells = lines[i]!;
    for (let c = 0; c < cells.length; c++) {
      // The label is the cell's text before a colon, or the whole cell when a value follows in the next cell or line.
      const cell = cells[c]!;
      const colon = cell.indexOf(':');
      const label = colon >= 0 ? cell.slice(0, colon) : cell;
      const labelWords = labelWordsOf(label);
      if (!labelWords.length || labelWords.length > 8) continue;
      let score = 0;
      for (const w of new Set(labelWords)) score += terms.get(w) ?? 0;
      // Unrelated words in the label weaken it ("Invoice date" for "due_date").
      score -= 0.5 * labelWords.filter((w) => !terms.has(w)).length;
      if (score < Math.min(needed, 2) * 0.5) continue;
      const rest = colon >= 0 ? cell.slice(colon + 1).trim() : '';
      // Where the value sits weighs in: after the colon, then in the next cells, then on the next line (a
      // penalty by kind, so a lone "INVOICE" heading does not outrank "Date" over the value beside it).
      const options: Array<[string, number]> = [
        [rest, 0],
        [cells.slice(c + 1).join(' '), 0.25],
        [colon < 0 || !rest ? (lines[i + 1] ?? []).join(' ') : '', 0.5],
      ];
      let found = false;
      for (const [text, penalty] of options) {
        if (!text.trim()) continue;
        const value = parseValue(text, type, dayFirst);
        if (value === null) continue;
        const s = score - penalty;
        if (!best || s > best.score) best = { value, score: s, labelScore: score };
        found = true;
        break;
      }
      if (!found && rest) refusedBy = Math.max(refusedBy, score);
    }
  }
  // The label that names the field best says its value is not given: a weaker label's value (the
  // invoice date for due_date) or the document's date would be another field's.
  if (refusedBy > (best?.labelScore ?? -Infinity)) return null;
  const value = best?.value ?? (type === 'date' ? documentDate(lines, nameWords, dayFirst) : null);
  return typeof value === 'string' ? partyName(name, value) : value;
}

/** Name words of a field that asks for the document's own date ("date", "receipt_date", "purchase_date"). */
const DOCUMENT_DATE = new Set(['date', 'receipt', 'purchase', 'transaction', 'document', 'issue', 'issued', 'sale']);

/**
 * The document's date when no label names it: the first full date in the text, for a field that asks for
 * the document's own date only. A till receipt prints its date on a line of its own ("2024-03-07 14:22").
 */
function documentDate(lines: TextLine[], nameWords: string[], dayFirst: boolean): FieldValue {
  if (!nameWords.includes('date') || !nameWords.every((w) => DOCUMENT_DATE.has(w))) return null;
  for (const line of lines) {
    for (const cell of line) {
      const value = parseValue(cell, 'date', dayFirst);
      if (value !== null) return value;
    }
  }
  return null;
}

/** Words of a label: as `words`, but "From" and "To" count ("From: Northwind", "Bill to: Contoso"). */
function labelWordsOf(label: string): string[] {
  return (label.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w) || w === 'from' || w === 'to').map(stem);
}

/** Field names that stand for a party (a company or person): their value is the name, not the address after it. */
const PARTY = /^(vendor|supplier|seller|merchant|store|shop|company|issuer|customer|client|buyer|payee|payer)(_?name)?$/i;

/** The value of a party field: the name before the first comma or middle dot ("Northwind Traders, 12 Harbour Road"). */
export function partyName(name: string, value: string): string {
  return PARTY.test(name) ? value.split(/\s*[,·]\s*/)[0]!.trim() || value : value;
}

/** Words of document-type titles, which are not a letterhead. */
const DOCUMENT_TITLES = /\b(invoice|receipt|statement|quote|quotation|order|bill|agreement|contract|report|form|letter|memo|credit note|delivery note)\b/i;

/**
 * The letterhead of a document: its first heading when that is not a document-type title ("Invoice",
 * "Service Agreement"). Receipts and letterhead invoices name the vendor this way, without a label; it
 * is used for a seller-side party field only when no label was found.
 */
export function letterhead(pages: PageText[], name: string): string | null {
  if (!/^(vendor|supplier|seller|merchant|store|shop|company|issuer)(_?name)?$/i.test(name)) return null;
  const first = pages[0]?.blocks.find((b) => b.kind === 'heading');
  if (!first || first.kind !== 'heading' || DOCUMENT_TITLES.test(first.text) || !/\p{L}/u.test(first.text)) return null;
  return first.text.trim();
}

/** A numeric date with dots ("11.08.2024"): day first, as everywhere dots are written. */
const DOTTED = /\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b/;

/** `YYYY-MM-DD` of a calendar date; null when a part is missing or the day does not exist. */
export function isoOf(y: number | null, m: number | null, d: number | null): string | null {
  if (!y || !m || !d || m > 12 || d > 31) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** A numeric date with slashes or dashes, day and month in either order: 09/01/2019, 9-1-19, 09.01.19. */
const NUMERIC = /(?<![\d/.-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/-])/;

/** A numeric d/m/y date read in the document's order (`dayFirst`); a part over 12 decides on its own. */
function numericDate(t: string, dayFirst: boolean): { iso: string | null; index: number } | null {
  const m = NUMERIC.exec(t);
  if (!m) return null;
  const [a, b, y] = [Number(m[1]), Number(m[3]), fullYear(Number(m[4]))];
  const first = a > 12 ? true : b > 12 ? false : dayFirst;
  return { iso: first ? isoOf(y, b, a) : isoOf(y, a, b), index: m.index };
}

/** Parses a value of `type` from the text after a label; null when the text holds none. */
export function parseValue(text: string, type: FieldType, dayFirst = true): FieldValue {
  const t = text.trim();
  if (!t) return null;
  switch (type) {
    case 'string':
      return t.length <= 300 ? t : null;
    case 'number':
      return parseAmount(t);
    case 'date': {
      const found = chrono.strict.parse(t)[0];
      const dotted = DOTTED.exec(t);
      if (dotted && dotted.index <= (found?.index ?? Infinity)) {
        // A day that does not exist (31.04.2024) is no date; a month over 12 may be a month-first date for chrono.
        const iso = isoOf(Number(dotted[3]), Number(dotted[2]), Number(dotted[1]));
        if (iso || Number(dotted[2]) <= 12) return iso;
      }
      // Numeric dates in the document's order (chrono reads them month first); ISO dates are left to chrono.
      const numeric = numericDate(t, dayFirst);
      if (numeric && numeric.index <= (found?.index ?? Infinity) && !/^\d{4}-/.test(t.slice(numeric.index))) return numeric.iso;
      if (!found || !found.start.isCertain('year')) return null;
      return isoOf(found.start.get('year'), found.start.get('month'), found.start.get('day'));
    }
    case 'boolean': {
      if (/^(yes|true|y|x|ja|oui|sí|si|☑|☒|✓|✔|checked|paid|done|completed|received)(?![\p{L}\p{N}])/iu.test(t)) return true;
      if (/^(no|not|false|n|nein|non|☐|✗|✘|×|unchecked|unpaid|not\s+paid|none|outstanding|pending)(?![\p{L}\p{N}])/iu.test(t)) return false;
      return null;
    }
    case 'array': {
      const items = t.split(/\s*[,;•·]\s*/).map((s) => s.trim()).filter(Boolean);
      return items.length ? items : null;
    }
  }
}

/**
 * The first amount in the text: 1,234.56 / 1.234,56 / 1 234,56 / -12 / 12.5%; currency signs and codes
 * are ignored. The last separator followed by one or two digits is the decimal one.
 */
export function parseAmount(text: string): number | null {
  const m = /[-−]?\d[\d.,' \u00a0\u202f]*/.exec(text);
  if (!m) return null;
  let s = m[0].replace(/[\s'\u00a0\u202f]+$/, '').replace(/[.,]$/, '').replace(/[\s'\u00a0\u202f]/g, '').replace('−', '-');
  const dec = /[.,](\d{1,2})$/.exec(s);
  if (dec) s = s.slice(0, dec.index).replace(/[.,]/g, '') + '.' + dec[1];
  else s = s.replace(/[.,]/g, '');
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

// ---------------------------------------------------------------- filenames

/** What a placeholder's name suggests about its value's type. */
export function placeholderType(name: string): FieldType {
  if (/date|day|issued/i.test(name)) return 'date';
  if (/amount|total|sum|price/i.test(name)) return 'number';
  return 'string';
}

/** A value made safe as part of a filename: no separators, control or reserved characters; spaces → '-'. */
export function safePart(value: string): string {
  return (
    value
      .normalize('NFKC')
      .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, ' ')
      .trim()
      .replace(/\s+/g, '-')
      .replace(/^\.+/, '')
      .slice(0, 60) || 'unknown'
  );
}
