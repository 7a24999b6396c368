// The built-in extract: each field's value by the rule that fits it (issuer name, total paid, IBAN, a
// labelled value of any type, the document's date), and the evidence for it — the page, the text the value
// was read from and, on PDF pages, the line's box — so every answer explains itself.
import type { GeoLine, PageText } from './layout.js';
import * as chrono from 'chrono-node';
import { dayFirst, findCompany, findDocumentDate, findTotal, geoLines, amountsIn, type DateRead, type Found } from './field-rules.js';
import { documentLines, extractField, isoOf, letterhead, parseValue, words, type FieldType, type FieldValue, type TextLine } from './understand.js';
import { fold } from './evidence.js';

export interface FieldRequestSpec {
  type: FieldType;
  description?: string;
}

/** Where a value was read: page (1-based), the text, and the line's box in PDF points from the page's top-left corner. */
export interface FieldEvidence {
  page: number;
  text: string;
  box?: { x: number; y: number; width: number; height: number };
  rule: string;
}

export interface Extraction {
  data: Record<string, FieldValue>;
  fieldsMissing: string[];
  evidence: Record<string, FieldEvidence | null>;
}

/** Words of a field's name and description that ask for the issuer's name. */
const ISSUER = /^(vendor|supplier|seller|merchant|store|shop|company|issuer|business|retailer|restaurant)$/;
/** Words that ask for the amount paid. */
const TOTAL = /^(total|amount|paid|sum|due|grand|payable)$/;

function fieldWords(name: string, description?: string): { name: string[]; all: string[] } {
  const n = words(name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_.-]/g, ' '));
  return { name: n, all: [...n, ...words(description ?? '')] };
}

/** Whether a field asks for the issuer's name: by its name, or by its description when the name says nothing else. */
function asksIssuer(name: string[], all: string[]): boolean {
  return name.some((w) => ISSUER.test(w)) || (all.some((w) => ISSUER.test(w)) && !name.some((w) => /^(customer|client|buyer|recipient|payer|person|cashier)$/.test(w)));
}

export function extractFields(pages: PageText[], fields: Record<string, FieldRequestSpec>, locale?: string): Extraction {
  const lines = documentLines(pages);
  const plain = lines.map((l) => l.join(' ')).join('\n');
  const order = dayFirst(plain, locale);
  const data: Record<string, FieldValue> = {};
  const evidence: Record<string, FieldEvidence | null> = {};
  const fieldsMissing: string[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    const w = fieldWords(name, spec.description);
    let found: Found<FieldValue> | null = null;
    let value: FieldValue = null;
    if (w.all.includes('iban')) {
      found = findIban(pages, lines);
    } else if (spec.type === 'number' && w.all.some((x) => TOTAL.test(x))) {
      found = findTotal(pages);
      if (!found) value = extractField(lines, name, spec.type, spec.description, order.dayFirst);
    } else if (spec.type === 'string' && asksIssuer(w.name, w.all)) {
      // A labelled name ("Vendor: …", "From: …") first; then the head of the page: on a scan by the company
      // cues (sizes measured by OCR say little), on a text layer its first heading first.
      // A company line by its legal form first; then a labelled name ("Vendor: …"); then the letterhead (the
      // first heading of a text layer); then the head of the page by the weaker cues.
      const company = findCompany(pages);
      const labelled = company?.strong ? null : extractField(lines, name, spec.type, spec.description, order.dayFirst);
      // OCR measures type sizes too roughly for a heading to name the issuer.
      const head = pages[0]?.source === 'ocr' ? null : letterhead(pages, 'company');
      // On a text layer the letterhead (the first heading, set large) is the surest sign and comes first.
      if (head && pages[0]?.source !== 'ocr' && !company?.strong) value = head;
      else if (company?.strong) found = company;
      else if (typeof labelled === 'string' && (labelled.match(/\p{L}/gu) ?? []).length >= 3) value = labelled;
      else if (head) value = head;
      else found = company;
    } else if (spec.type === 'date' && w.name.every((x) => DOCUMENT_DATE.has(x)) && w.name.includes('date')) {
      found = findDocumentDate(pages, lines.map((l) => l.join(' ')), order.dayFirst, wordDate);
    } else {
      value = extractField(lines, name, spec.type, spec.description, order.dayFirst) ?? (spec.type === 'string' ? letterhead(pages, name) : null);
    }
    if (found) value = found.value;
    data[name] = value;
    if (value === null) {
      fieldsMissing.push(name);
      evidence[name] = null;
      continue;
    }
    const where = found ? evidenceOf(pages, found.page, found.line, found.text, found.rule) : locate(pages, lines, name, value, spec.type, order.dayFirst);
    if (spec.type === 'date' && where) where.rule += `; numeric dates read ${order.dayFirst ? 'day' : 'month'} first: ${order.why}`;
    evidence[name] = where;
  }
  return { data, fieldsMissing, evidence };
}

/** Name words of a field that asks for the document's own date ("date", "receipt_date", "invoice_date"). */
const DOCUMENT_DATE = new Set(['date', 'receipt', 'purchase', 'transaction', 'document', 'issue', 'issued', 'sale', 'invoice', 'bill', 'order']);

/** A date with a month name (chrono-node), with a year written. */
function wordDate(text: string): DateRead | null {
  const r = chrono.strict.parse(text)[0];
  if (!r || !r.start.isCertain('year')) return null;
  const iso = isoOf(r.start.get('year'), r.start.get('month'), r.start.get('day'));
  return iso ? { iso, index: r.index } : null;
}

function evidenceOf(pages: PageText[], page: number, line: GeoLine | null, text: string, rule: string): FieldEvidence {
  const size = pages[page - 1]?.size;
  const box = line && size ? { x: round(line.x0), y: round(size.height - line.y - 0.8 * line.size), width: round(line.x1 - line.x0), height: round(line.size * 1.05) } : undefined;
  return { page, text, ...(box ? { box } : {}), rule };
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * The line a value was read from, for values found by label (extractField): the first line that holds the
 * value and, when the field's name words occur on some line holding it, that one.
 */
function locate(pages: PageText[], lines: TextLine[], name: string, value: FieldValue, type: FieldType, dayFirst: boolean): FieldEvidence | null {
  const holds = (text: string): boolean => {
    if (type === 'number') return amountsIn(text).some((a) => a.value === value) || text.split(/[\s|]+/).some((t) => /\d/.test(t) && parseValue(t, 'number') === value);
    if (type === 'date') return parseValue(text, 'date', dayFirst) === value || text.split(/\s*[|:]\s*/).some((t) => parseValue(t, 'date', dayFirst) === value);
    if (type === 'boolean') return words(name).some((w) => words(text).includes(w));
    const parts = Array.isArray(value) ? value : [String(value)];
    return parts.every((p) => ` ${fold(text)} `.includes(` ${fold(p)} `));
  };
  const nameWords = words(name.replace(/[_.-]/g, ' '));
  const labelled = (text: string) => words(text).some((w) => nameWords.includes(w));
  const geo = geoLines(pages);
  if (geo.length) {
    const hits = geo.filter((g) => holds(g.line.text));
    const hit = hits.find((g) => labelled(g.line.text)) ?? hits[0];
    if (hit) return evidenceOf(pages, hit.page, hit.line, hit.line.text, 'value next to a matching label');
  }
  const texts = lines.map((l) => l.join(' | '));
  const hits = texts.filter(holds);
  const text = hits.find(labelled) ?? hits[0];
  return text ? { page: 1, text, rule: 'value next to a matching label' } : null;
}

// ---------------------------------------------------------------- IBAN

/** An IBAN as printed: country, check digits, 11 to 30 letters and digits, in groups of four or not. */
const IBAN = /\b([A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30})\b/g;

/** ISO 13616 check: the number mod 97 is 1 (letters as 10–35, the first four characters moved to the end). */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  let rest = 0;
  for (const c of s.slice(4) + s.slice(0, 4)) {
    const v = c <= '9' ? c : String(c.charCodeAt(0) - 55);
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/** The first IBAN in the document that passes its checksum; a look-alike that does not is no IBAN. */
function findIban(pages: PageText[], lines: TextLine[]): Found<string> | null {
  const geo = geoLines(pages);
  const sources: Array<{ page: number; line: GeoLine | null; text: string }> = geo.length ? geo.map((g) => ({ ...g, text: g.line.text })) : lines.map((l) => ({ page: 1, line: null, text: l.join(' ') }));
  for (const s of sources) {
    for (const m of s.text.toUpperCase().matchAll(IBAN)) {
      // Trailing words glued on by the pattern are dropped group by group until the checksum holds.
      const groups = m[1]!.split(' ');
      for (let k = groups.length; k > 0; k--) {
        const candidate = groups.slice(0, k).join('');
        if (ibanValid(candidate)) return { value: candidate, page: s.page, line: s.line as GeoLine, text: s.text, rule: 'IBAN with a valid checksum' };
      }
    }
  }
  return null;
}
