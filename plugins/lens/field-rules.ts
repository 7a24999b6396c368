// Layout rules for the fields every receipt and invoice has: the issuer's name (legal-form suffixes, the
// line above the address or registration number, never a person's name above it), the total paid (label
// dictionary, same line or just below, the bottom of the page, cross-checked with cash − change), and the
// order of day and month in numeric dates (decided from the document: a part over 12, currency, country,
// or the request's locale). They read the page's lines with their geometry (layout.ts GeoLine).
import type { GeoLine, PageText } from './layout.js';

/** A value a rule chose, with the line it read it from (for the result's evidence). */
export interface Found<T> {
  value: T;
  page: number;
  line: GeoLine;
  /** The text of the line(s) the value came from. */
  text: string;
  rule: string;
  /** A company found by its legal form, which outranks a labelled value. */
  strong?: boolean;
}

/** The lines of each page with their page number (1-based), in reading order. */
export function geoLines(pages: PageText[]): Array<{ page: number; line: GeoLine }> {
  return pages.flatMap((p, k) => (p.lines ?? []).map((line) => ({ page: k + 1, line })));
}

// ---------------------------------------------------------------- numbers

/** Letters OCR reads for digits, repaired only inside a token that is otherwise a number. */
const DIGIT_LOOKALIKES: Record<string, string> = { O: '0', o: '0', D: '0', Q: '0', l: '1', I: '1', i: '1', '|': '1', '!': '1', S: '5', s: '5', B: '8', Z: '2', z: '2', G: '6', g: '9', '©': '0', '@': '0' };

/** A token with at least two digits, whose other characters are digit look-alikes: the look-alikes become digits. */
export function repairDigits(token: string): string {
  const digits = (token.match(/\d/g) ?? []).length;
  const body = token.replace(/[.,]/g, '');
  if (digits < 2 || ![...body].every((c) => /\d/.test(c) || c in DIGIT_LOOKALIKES)) return token;
  return [...token].map((c) => (/[\d.,]/.test(c) ? c : DIGIT_LOOKALIKES[c]!)).join('');
}

/** Amounts written with two decimals (1,007.50 / 1.007,50 / 12.50 / RM12.50), after digit repair; with their positions. */
export function amountsIn(text: string): Array<{ value: number; index: number }> {
  const repaired = text.replace(/[0-9OoDQlIiSsBZz|!©@][0-9OoDQlIiSsBZz|!©@.,]*[0-9OoDQlIiSsBZz|!©@]/g, (t) => repairDigits(t));
  const out: Array<{ value: number; index: number }> = [];
  for (const m of repaired.matchAll(/(?<![\d.,])-?(\d{1,3}(?:[,.' ]\d{3})+|\d+)[.,](\d{2})(?![\d])/g)) {
    const whole = m[1]!.replace(/[,.' ]/g, '');
    const value = Number(`${whole}.${m[2]}`) * (m[0].startsWith('-') ? -1 : 1);
    if (Number.isFinite(value)) out.push({ value, index: m.index });
  }
  return out;
}

// ---------------------------------------------------------------- total

/** Labels of the amount paid, strongest first; a line matching an exclusion is not the total. */
const TOTAL_LABELS: Array<[RegExp, number]> = [
  [/\b(grand\s*total|amount\s*(due|payable|paid)|total\s*(amount\s*)?(due|payable|paid)|balance\s*due|nett?\s*(total|amount|amt)|total\s*nett?|rounded\s*total|total\s*(after\s*)?round(ed|ing)?|total\s*\(?\s*incl|total\s*(sales\s*)?\(?\s*incl(usive|\.)?|total\s*(rm|myr|eur|usd|gbp|sgd)|total\s*inc(l|lusive)?\.?\s*(of\s*)?(gst|tax|vat))/i, 6],
  [/\b(total|jumlah|payable|amount|amt|nett?)\b/i, 3],
];
const NOT_TOTAL = /\b(sub[-\s]?total|total\s*(qty|quantity|items?|pcs|units?|discount|savings?|tax|gst|vat|excl?)|excl(uding|\.)?|before\s*(tax|gst)|qty|quantity|discount|saving|change|tender(ed)?|cash|paid\s*by|points?|deposit|tax\s*code|gst\s*summary|service\s*charge)\b/i;
const ROUNDING = /\bround(ing|ed)?\b|\brndg?\b/i;
const CASH = /\b(cash|tender(ed)?|paid|visa|master|card|credit|debit)\b/i;
const CHANGE = /\b(change|balance\s*returned|kembali)\b/i;

/**
 * The total paid: each amount on a line labelled as a total (or on the line just below such a label,
 * overlapping it) is a candidate, scored by its label, by where it sits (the lower half of the document
 * counts more), and by agreement with cash − change. A summary table's "Total" (after a tax summary
 * heading) is not the amount paid; a rounding adjustment makes the rounded total win.
 */
export function findTotal(pages: PageText[]): Found<number> | null {
  const all = geoLines(pages);
  if (!all.length) return null;
  const cands: Array<Found<number> & { score: number }> = [];
  let cash: number | null = null;
  let change: number | null = null;
  let summary = false;
  let rounding = false;
  all.forEach(({ page, line }, i) => {
    const text = line.text;
    if (ROUNDING.test(text) && !amountsIn(text).some((a) => a.value === 0)) rounding = true;
    if (/\b(gst|tax|vat)\s*summary\b|\btax\s*code\b/i.test(text)) summary = true;
    const amounts = amountsIn(text);
    const label = text.slice(0, amounts[0]?.index ?? text.length);
    if (CHANGE.test(label) && amounts.length) change = amounts[amounts.length - 1]!.value;
    else if (CASH.test(label) && amounts.length && !/total/i.test(label)) cash = amounts[amounts.length - 1]!.value;
    const weight = TOTAL_LABELS.find(([re]) => re.test(label))?.[1] ?? 0;
    if (!weight || (NOT_TOTAL.test(label) && weight < 6) || (ROUNDING.test(label) && !/total/i.test(label))) return;
    const position = 2 * (i / all.length);
    const base = weight + position - (summary ? 4 : 0);
    if (amounts.length) {
      // The last amount of the line is the total column ("Total 3 items 12.50": 12.50).
      const a = amounts[amounts.length - 1]!;
      cands.push({ value: a.value, page, line, text, rule: 'total label on the same line', score: base });
      return;
    }
    // A label alone on its line: the amount just below it, overlapping it, within two line heights.
    const next = all[i + 1];
    if (next && next.page === page && line.y - next.line.y < 2.2 * Math.max(line.size, next.line.size) && next.line.x1 > line.x0) {
      const below = amountsIn(next.line.text);
      // Only an amount on its own (a currency beside it at most): a line with words below is another line item.
      if (below.length && !/\p{L}{3}/u.test(next.line.text.replace(/\b(rm|myr|eur|usd|gbp|sgd|chf)\b/gi, ''))) cands.push({ value: below[below.length - 1]!.value, page, line: next.line, text: `${text}\n${next.line.text}`, rule: 'total label, amount just below', score: base - 0.5 });
    }
  });
  const valid = cands.filter((c) => c.value > 0);
  // Cash tendered less the change given back is the amount paid (no change line: none was given).
  const cashLine = all.find((g) => CASH.test(g.line.text) && !/total/i.test(g.line.text) && amountsIn(g.line.text).some((a) => a.value === cash));
  const paid = cash !== null && cash >= (change ?? 0) ? Math.round((cash - (change ?? 0)) * 100) / 100 : null;
  if (paid !== null) for (const c of valid) if (Math.abs(c.value - paid) < 0.005) (c.score += 3), (c.rule += '; equals cash − change');
  // Competing candidates of the same strength: the largest (a total is not less than its parts).
  valid.sort((a, b) => b.score - a.score || b.value - a.value);
  const top = valid[0];
  // No total read, or only a weak label's that is less than what was paid: the paid amount is the total.
  if (paid !== null && paid > 0 && cashLine && (!top || (change !== null && top.score < 6 && !top.rule.includes('cash') && paid > top.value))) {
    return { value: paid, page: cashLine.page, line: cashLine.line, text: cashLine.line.text, rule: change !== null ? 'cash less change' : 'cash paid, no change given' };
  }
  if (!top) return null;
  const near = valid.filter((c) => top.score - c.score < 1);
  const best = near.sort((a, b) => b.value - a.value)[0]!;
  // A rounding adjustment on the receipt: the amount paid is rounded to 5 cents (as Malaysia, Switzerland, … do).
  const rounded = Math.round(best.value * 20) / 20;
  if (rounding && Math.abs(rounded - best.value) > 0.001 && Math.abs(rounded - best.value) < 0.03) {
    return { value: Math.round(rounded * 100) / 100, page: best.page, line: best.line, text: best.text, rule: `${best.rule}; rounded to 5 cents (the receipt has a rounding adjustment)` };
  }
  return { value: best.value, page: best.page, line: best.line, text: best.text, rule: best.rule };
}

// ---------------------------------------------------------------- company

/** Legal forms and business words that end or mark a company name. */
const LEGAL_FORM = /\b(s[dou0]n\.?\s*[be8][hi][do0]\.?|[s5]\/[b8]|bhd\.?|berhad|enterprise|enterprises|trading|ltd\.?|limited|gmbh|inc\.?|llc|plt|llp|plc|corp(oration)?\.?|co\.|company|sarl|s\.a\.|ag|kg|oy|ab|pte\.?|pty\.?|s\.?r\.?l\.?|b\.?v\.?|n\.?v\.?)(?=$|[^\p{L}])/iu;
const BUSINESS_WORD = /\b(restaurant|restoran|cafe|café|bakery|bakeries|mart|supermarket|minimarket|hypermarket|store|stores|shop|kedai|pharmacy|farmasi|hardware|stationery|bookstore|books|hotel|trading|enterprise|industries|services|marketing|motor|electrical|food|foods|kitchen|station|centre|center|world|group|holdings)\b/i;
const ADDRESS = /\b(jalan|jln|lorong|taman|lot|no\.?\s*\d|street|st\.|road|rd\.?|avenue|ave|lane|floor|suite|unit|blok|block|kampung|batu|persiaran|plaza|mall|\d{5})\b|\d+[,\s]+(jalan|jln)/i;
const REGISTRATION = /\(\s*\d[\d\s-]{3,}\s*-?\s*[a-z]?\s*\)|\b(co\.?\s*(reg|no)|company\s*(reg|no)|reg(istration)?\.?\s*no|gst\s*(id|reg|no)|sst\s*(id|reg|no)|tax\s*id|vat\s*(id|no|reg)|abn|ust-?id)\b/i;
const NOT_NAME = /\b(tax\s*invoice|invoice|receipt|resit|cash\s*sale|bill|customer|client|sold\s*to|ship\s*to|attn|attention|tel|fax|phone|e-?mail|www\.|http|date|time|cashier|table|order|welcome|thank)\b|@/i;

/** Labels of the recipient's name and address, which is not the issuer's even with a legal form. */
const RECIPIENT = /\b(bill(ed)?\s*to|sold\s*to|ship(ped)?\s*to|deliver(ed|y)?\s*to|invoice\s*to|customer|client|buyer|recipient|attn|attention)\b/i;

/** The name from a line: cut after its legal form (a registration number or address may follow on the same line). */
function nameOf(text: string): string {
  // A label before the name ("Own by: …", "From: …"), stray one-character reads before it, OCR's usual
  // misreadings of the Malaysian legal form (SON BHD, SDN EHD).
  let t = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\p{L} .]{2,20}:\s*(?=\p{L})/u, '')
    .replace(/^(?:[^\s]\s)+(?=\p{L}{2})/u, '')
    .replace(/\bS[DOUI0]N\.?\s*[BE8][HI][DO0]\b/i, (m) => (m === m.toUpperCase() ? 'SDN BHD' : 'Sdn Bhd'))
    .replace(/(?<=\s)[S5]\/[B8](?=$|[\s(])/, 'S/B');
  const m = LEGAL_FORM.exec(t);
  if (m && /^(sdn|s\/b|bhd|berhad|ltd|limited|gmbh|inc|llc|plt|llp|plc|corp|co\.|pte|pty)/i.test(m[0])) t = t.slice(0, m.index + m[0].length);
  return t.replace(/\s*\(\s*\d[\d\s-]*-?\s*[a-z]?\s*\)?\s*$/i, '').replace(/^[^\p{L}\p{N}(]+|[^\p{L}\p{N}.)]+$/gu, '').trim();
}

/** A line that reads as a person's name: two to four capitalised words, no digits, no business word or legal form. */
function personLike(text: string): boolean {
  const ws = text.trim().split(/\s+/);
  return ws.length >= 1 && ws.length <= 4 && /^[\p{L} .'-]+$/u.test(text) && !LEGAL_FORM.test(text) && !BUSINESS_WORD.test(text);
}

/**
 * The issuer's name at the head of the first page: among its first lines, the one that reads as a company
 * (a legal form or business word; above an address, registration number or tax id; larger type), joined with
 * the next line when the name wraps there (its legal form on the next line). A line that reads as a person's
 * name above the company's loses to it.
 */
export function findCompany(pages: PageText[]): Found<string> | null {
  const page = pages.find((p) => (p.lines ?? []).some((l) => /\p{L}{3}/u.test(l.text)));
  if (!page?.lines) return null;
  const pageNo = pages.indexOf(page) + 1;
  const lines = page.lines.filter((l) => /\p{L}{2}/u.test(l.text) && (l.text.match(/[\p{L}]/gu) ?? []).length >= 3);
  const head = lines.slice(0, Math.max(6, Math.ceil(lines.length * 0.3)));
  if (!head.length) return null;
  const sizes = head.map((l) => l.size).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)]!;
  const anyLegal = head.some((l) => LEGAL_FORM.test(l.text));
  let best: (Found<string> & { score: number }) | null = null;
  // The recipient's block: a line naming the customer and the three lines after a label alone ("Bill to:").
  const recipient = new Set<GeoLine>();
  page.lines.forEach((l, k) => {
    if (!RECIPIENT.test(l.text)) return;
    recipient.add(l);
    if (l.text.replace(RECIPIENT, '').replace(/[\s:]/g, '').length === 0) for (const x of page.lines!.slice(k + 1, k + 4)) recipient.add(x);
  });
  head.forEach((line, i) => {
    const text = line.text;
    if (recipient.has(line) || (NOT_NAME.test(text) && !LEGAL_FORM.test(text))) return;
    let name = nameOf(text);
    if ((name.match(/\p{L}/gu) ?? []).length / Math.max(1, name.replace(/\s/g, '').length) < 0.6 || (ADDRESS.test(text) && !LEGAL_FORM.test(text))) return;
    let score = 2 - i * 0.4;
    let source = text;
    const legal = LEGAL_FORM.test(text);
    if (legal) score += 5;
    else if (BUSINESS_WORD.test(text)) score += 2;
    const next = head[i + 1] ?? page.lines![page.lines!.indexOf(line) + 1];
    // The name wraps: the next line, close below, carries the legal form and no address.
    if (!legal && next && LEGAL_FORM.test(next.text) && !ADDRESS.test(next.text) && !REGISTRATION.test(next.text.replace(LEGAL_FORM, '')) && line.y - next.y < 1.8 * Math.max(line.size, next.size) && next.text.split(/\s+/).length <= 4) {
      name = `${name} ${nameOf(next.text)}`;
      source = `${text}\n${next.text}`;
      score += 4;
    }
    const after = page.lines!.slice(page.lines!.indexOf(line) + 1, page.lines!.indexOf(line) + 4).map((l) => l.text).join(' ');
    if (ADDRESS.test(after) || REGISTRATION.test(after) || REGISTRATION.test(text)) score += 1.5;
    if (line.size > median * 1.15) score += 1;
    // A person's name printed above the company (a collector's or cashier's): not the issuer when a company line follows.
    if (anyLegal && !legal && personLike(text)) score -= 4;
    if (name.length >= 3 && (!best || score > best.score)) best = { value: name, page: pageNo, line, text: source, rule: legal ? 'legal form of a company' : 'first lines of the page', score };
  });
  const chosen = best as (Found<string> & { score: number }) | null;
  return chosen && { value: chosen.value, page: chosen.page, line: chosen.line, text: chosen.text, rule: chosen.rule, strong: chosen.rule.startsWith('legal') };
}

// ---------------------------------------------------------------- date order

/** Locales that write numeric dates month first (United States and a few others). */
const MONTH_FIRST_LOCALES = /^(en-(us|ph|as|gu|mp|pr|um|vi)|es-us|fil)/i;

/**
 * Whether a numeric date like 09/01/2019 is day first in this document: a day over 12 in either place
 * elsewhere in it decides; then the request's locale; then the currency (RM, €, £, S$ … day first; US$ month
 * first) and the country in the address; day first otherwise, as most of the world writes.
 */
export function dayFirst(text: string, locale?: string): { dayFirst: boolean; why: string } {
  let first = 0;
  let second = 0;
  // A date has one separator twice and parts a day can be: an amount beside a ratio ("10.56/10.55") is none.
  for (const m of text.matchAll(/(?<![\d.,/-])(\d{1,2})([/.-])(\d{1,2})\2(\d{2}|\d{4})(?![\d/-])/g)) {
    const [a, b] = [Number(m[1]), Number(m[3])];
    if (a > 12 && a <= 31 && b >= 1 && b <= 12) first++;
    if (b > 12 && b <= 31 && a >= 1 && a <= 12) second++;
  }
  if (first > second) return { dayFirst: true, why: 'a date in the document has a first part over 12' };
  if (second > first) return { dayFirst: false, why: 'a date in the document has a second part over 12' };
  if (locale) return { dayFirst: !MONTH_FIRST_LOCALES.test(locale), why: `the request's locale ${locale}` };
  if (/\bUSD\b|US\$|\b(U\.?S\.?A\.?|United States)\b|\b[A-Z]{2}\s\d{5}(-\d{4})?\b/.test(text)) return { dayFirst: false, why: 'the document is from the United States (currency or address)' };
  if (/\bRM\s?\d|\bMYR\b|[€£]|\bEUR\b|\bGBP\b|\bSGD\b|S\$|\b(malaysia|singapore|united kingdom|germany|france|australia|india)\b/i.test(text)) return { dayFirst: true, why: 'the currency or country of the document' };
  return { dayFirst: true, why: 'no sign in the document; day first, as most countries write' };
}

/** A two-digit year: this century unless that is more than ten years ahead. */
export function fullYear(y: number, now = new Date().getUTCFullYear()): number {
  if (y >= 100) return y;
  const c = Math.floor(now / 100) * 100;
  return c + y > now + 10 ? c - 100 + y : c + y;
}

// ---------------------------------------------------------------- the document's date

/**
 * Day, month and year in figures: 09/01/2019, 9-1-19, 09.01.2019, a year run into the time ("16/09/201711:59",
 * "01/05/1612:30"), a year 20xx OCR split in two ("29/10/20 17", "18/09/2 017"; not a time), and OCR's stray spaces
 * beside a separator ("25-01 -16"; such a date counts only beside a time or after a date label).
 */
const NUMERIC_DATE = /(?<![\d/.-])(\d{1,2}) ?([/.-]) ?(\d{1,2}) ?\2 ?(\d{4}(?=\d{1,2}:\d{2})|(?!19\d|20\d)\d{2}(?=\d{1,2} ?\d{0,2}:\d{2})|\d{4}(?![\d/-])|(?:2 0\d{2}|20 \d{2}|20\d \d)(?![\d:.,/-])|\d{2}(?![\d/-]))/g;
const ISO_DATE = /(?<!\d)(\d{4})([/.-])(\d{1,2})\2(\d{1,2})(?!\d)/g;
const MONTH_WORD = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b/i;
const DATE_LABEL = /\b(date|dated|tarikh|datum|fecha|data|issued|bill\s*date|invoice\s*date|receipt\s*date)\b/i;
const OTHER_DATE = /\b(due|expir\w*|valid|birth|dob|delivery|deliver|ship\w*|payable\s*by)\b/i;
/** A time of day right after a date (its next word at most between): "09/01/2019 12:30", "09/01/2019 (Wed) 12:30". */
const TIME_AFTER = /^\S*\s*\d{1,2}[:.]\d{2}/;

export interface DateRead {
  iso: string;
  index: number;
  /** Where the date's text ends on the line (numeric and ISO dates). */
  end?: number;
}

/**
 * A run of figures and date separators with digit look-alikes in it (`O1/O5/2O16`, `2S-12-2018`): the
 * look-alikes become digits when at least four characters of the run are digits already.
 */
function repairDate(run: string): string {
  if ((run.match(/\d/g) ?? []).length < 4) return run;
  return [...run].map((c) => DIGIT_LOOKALIKES[c] ?? c).join('');
}

/** The dates written on a line (numeric in the document's order, ISO, or with a month name through `wordDate`). */
export function datesIn(text: string, dayFirst: boolean, wordDate: (t: string) => DateRead | null): DateRead[] {
  // Same length as the text, so positions found in it hold for the text.
  const repaired = text.replace(/[\dOoDQlIi|!SsBZz][\dOoDQlIi|!SsBZz/.-]{4,}[\dOoDQlIi|!SsBZz]/g, repairDate);
  const out: DateRead[] = [];
  for (const m of repaired.matchAll(ISO_DATE)) {
    const iso = isoDate(Number(m[1]), Number(m[3]), Number(m[4]));
    if (iso) out.push({ iso, index: m.index, end: m.index + m[0].length });
  }
  for (const m of repaired.matchAll(NUMERIC_DATE)) {
    const end = m.index + m[0].length;
    // Spaces beside a separator: a date only where a date is expected (a label before it, a time after it).
    if (/ (?=[/.-])|[/.-] /.test(m[0]) && !DATE_LABEL.test(text.slice(0, m.index)) && !TIME_AFTER.test(text.slice(end))) continue;
    const [a, b, y] = [Number(m[1]), Number(m[3]), fullYear(Number(m[4]!.replace(' ', '')))];
    const first = a > 12 ? true : b > 12 ? false : dayFirst;
    const iso = first ? isoDate(y, b, a) : isoDate(y, a, b);
    if (iso && !out.some((o) => Math.abs(o.index - m.index) < 5)) out.push({ iso, index: m.index, end });
  }
  if (MONTH_WORD.test(text)) {
    const w = wordDate(text);
    if (w) out.push(w);
  }
  return out.sort((a, b) => a.index - b.index);
}

function isoDate(y: number, m: number, d: number): string | null {
  if (m < 1 || m > 12 || d < 1 || d > 31) return null;
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCMonth() !== m - 1) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * The document's own date: a date on a line labelled as one ("Date: …") before any other, then the date
 * the most lines agree on, then the first. A date whose year is not plausible for a document's own date
 * (before 1970, or more than a year ahead) is an OCR misreading; a due, expiry, birth or delivery date is not it.
 */
export function findDocumentDate(pages: PageText[], fallback: string[], dayFirst: boolean, wordDate: (t: string) => DateRead | null): Found<string> | null {
  const geo = geoLines(pages);
  const sources = geo.length ? geo.map((g) => ({ page: g.page, line: g.line as GeoLine | null, text: g.line.text })) : fallback.map((text) => ({ page: 1, line: null, text }));
  const now = new Date().getUTCFullYear();
  const cands: Array<Found<string> & { score: number }> = [];
  sources.forEach((s, i) => {
    for (const d of datesIn(s.text, dayFirst, wordDate)) {
      const year = Number(d.iso.slice(0, 4));
      if (year < 1970 || year > now + 1) continue;
      const before = s.text.slice(0, d.index);
      // The text before the date on its line names another date ("Due date: …"): not the document's.
      if (OTHER_DATE.test(before.split(/[|;]|\s{3,}/).pop() ?? before)) continue;
      const labelled = DATE_LABEL.test(before);
      const timed = TIME_AFTER.test(d.end !== undefined ? s.text.slice(d.end) : s.text.slice(d.index).replace(/^\S+/, ''));
      cands.push({ value: d.iso, page: s.page, line: s.line as GeoLine, text: s.text, rule: labelled ? 'date after a date label' : timed ? 'date beside a time' : 'first date in the document', score: (labelled ? 3 : 0) + (timed ? 1 : 0) - i * 0.01 });
    }
  });
  if (!cands.length) return null;
  // Agreement: a date read on two lines (the header and the till line) counts more.
  for (const c of cands) if (cands.some((o) => o !== c && o.value === c.value)) c.score += 1.5;
  cands.sort((a, b) => b.score - a.score);
  const { score: _s, ...best } = cands[0]!;
  return best;
}
