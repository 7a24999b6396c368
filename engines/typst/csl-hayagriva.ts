// Converts CSL-JSON citation items to a Hayagriva library (as JSON text, which is YAML) for Typst's bibliography().
import type { CITATION_STYLES, CslItem } from '../../contracts/document-json.js';

export type CitationStyle = (typeof CITATION_STYLES)[number];

/** Quire's citation style names → the CSL styles built into Typst 0.14. */
const TYPST_STYLES: Record<CitationStyle, string> = {
  apa: 'apa',
  ieee: 'ieee',
  'chicago-author-date': 'chicago-author-date',
  harvard: 'harvard-cite-them-right',
  vancouver: 'vancouver',
};

/** The name of the Typst built-in CSL style for `style`, for `bibliography(…, style: name)`. */
export function citationStyleName(style: CitationStyle): string {
  return TYPST_STYLES[style];
}

type Value = string | number | boolean | Value[] | { [key: string]: Value };
type Entry = { [field: string]: Value };

/** CSL type → Hayagriva type, and the type of the parent that `container-title` names. */
const TYPES: Record<string, { type: string; parent: string }> = {
  article: { type: 'article', parent: 'periodical' },
  'article-journal': { type: 'article', parent: 'periodical' },
  'article-magazine': { type: 'article', parent: 'periodical' },
  'article-newspaper': { type: 'article', parent: 'newspaper' },
  book: { type: 'book', parent: 'book' },
  chapter: { type: 'chapter', parent: 'book' },
  'paper-conference': { type: 'article', parent: 'proceedings' },
  report: { type: 'report', parent: 'book' },
  thesis: { type: 'thesis', parent: 'misc' },
  webpage: { type: 'web', parent: 'web' },
  dataset: { type: 'misc', parent: 'misc' }, // Hayagriva has no dataset type
  software: { type: 'repository', parent: 'misc' }, // matched by CSL's software type
  patent: { type: 'patent', parent: 'misc' },
  manuscript: { type: 'manuscript', parent: 'misc' },
};

/**
 * Types whose CSL volume, issue, editor and publisher describe the container (the journal, the
 * proceedings, the edited book) and so go on the parent, where Hayagriva's CSL mapping looks for them.
 */
const CONTAINED = new Set(['article', 'article-journal', 'article-magazine', 'article-newspaper', 'chapter', 'paper-conference']);

/**
 * Builds the Hayagriva library for `items`, keyed by item id (a later item with an id already seen,
 * or an id with control characters or lone surrogates, is skipped). Hayagriva rejects the whole file
 * for one bad value, so every field is checked first and dropped when Hayagriva would not parse it
 * (an impossible date, an unparsable URL or language). Text fields are escaped: Hayagriva reads `$…$`
 * in them as math that Typst evaluates as markup.
 */
export function cslToHayagriva(items: CslItem[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const item of items) {
    // A key YAML cannot carry as is (control characters, lone surrogates) could never match its citation.
    if (typeof item.id !== 'string' || item.id === '' || cleanText(item.id) !== item.id || seen.has(item.id)) continue;
    seen.add(item.id);
    parts.push(`${JSON.stringify(item.id)}:${JSON.stringify(toEntry(item))}`);
  }
  return `{${parts.join(',')}}`;
}

function toEntry(item: CslItem): Entry {
  const cslType = String(item.type);
  const { type, parent: parentType } = (Object.hasOwn(TYPES, cslType) ? TYPES[cslType] : undefined) ?? { type: 'misc', parent: 'misc' };
  const contained = CONTAINED.has(cslType);
  const entry: Entry = { type };
  const parent: Entry = { type: parentType };

  setIf(entry, 'title', formattable(item.title));
  setIf(entry, 'author', persons(item.author));
  setIf(contained ? parent : entry, 'editor', persons(item.editor));
  setIf(entry, 'date', date(item.issued));
  setIf(parent, 'title', formattable(item['container-title']));
  setIf(contained ? parent : entry, 'volume', plain(item.volume));
  setIf(contained ? parent : entry, 'issue', plain(item.issue));
  setIf(entry, 'page-range', plain(item.page));
  setIf(entry, 'edition', plain(item.edition));
  setIf(entry, 'genre', formattable(item.genre));
  setIf(entry, 'note', formattable(item.note));
  setIf(entry, 'language', language(item.language));

  const publisher: Entry = {};
  setIf(publisher, 'name', formattable(item.publisher));
  setIf(publisher, 'location', formattable(item['publisher-place']));
  if (Object.keys(publisher).length > 0) (contained ? parent : entry).publisher = publisher;

  const serial: Entry = {};
  setIf(serial, 'doi', doi(item.DOI));
  setIf(serial, 'isbn', plain(item.ISBN));
  setIf(serial, 'issn', plain(item.ISSN));
  setIf(serial, 'serial', plain(item.number));
  if (Object.keys(serial).length > 0) entry['serial-number'] = serial;

  const link = url(item.URL);
  if (link !== undefined) {
    const accessed = date(item.accessed);
    entry.url = accessed === undefined ? link : { value: link, date: accessed };
  }
  if (Object.keys(parent).length > 1) entry.parent = parent;
  return entry;
}

function setIf(target: Entry, field: string, value: Value | undefined): void {
  if (value !== undefined) target[field] = value;
}

/**
 * Text as YAML accepts it: no lone surrogates (the `u` flag sees them as code points), control
 * characters (YAML 1.1 reads U+0085 as a line break) or non-characters; whitespace collapsed.
 */
function cleanText(s: string): string {
  return s
    .replace(/[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A string or number field as plain text (Hayagriva shows these as given), or undefined when empty. */
function plain(v: unknown): string | undefined {
  const first = Array.isArray(v) ? v[0] : v;
  if (typeof first !== 'string' && !(typeof first === 'number' && Number.isFinite(first))) return undefined;
  const text = cleanText(String(first));
  return text === '' ? undefined : text;
}

/** A formattable string: `\ { } $` are escaped so they show literally (unescaped, `{…}` is verbatim and `$…$` Typst math). */
function formattable(v: unknown): string | undefined {
  const text = plain(v);
  return text === undefined ? undefined : text.replace(/[\\{}$]/g, (c) => `\\${c}`);
}

/**
 * CSL names → Hayagriva persons. As in Hayagriva's own CSL-JSON reading, a non-dropping particle
 * ("van" in "van Gogh") stays with the family name and a dropping particle becomes the prefix.
 */
function persons(v: unknown): Value[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: Value[] = [];
  for (const n of v) {
    if (typeof n !== 'object' || n === null) continue;
    const name = n as Record<string, unknown>;
    const literal = plain(name.literal);
    const family = plain([plain(name['non-dropping-particle']), plain(name.family)].filter(Boolean).join(' '));
    const given = plain(name.given);
    const person: Entry = {};
    if (literal !== undefined) person.name = literal;
    else if (family !== undefined) person.name = family;
    else if (given !== undefined) { out.push({ name: given }); continue; }
    else continue;
    if (literal === undefined) {
      setIf(person, 'given-name', given);
      setIf(person, 'prefix', plain(name['dropping-particle']));
      setIf(person, 'suffix', plain(name.suffix));
    }
    out.push(person);
  }
  return out.length > 0 ? out : undefined;
}

const int = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d{1,5}\s*$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) ? n : undefined;
};

/**
 * A CSL date → Hayagriva's `[~]YYYY[-MM[-DD]]` (`~` for circa), from `date-parts` (the start of a
 * range), else from an ISO `raw` or a year in `literal`. Seasons have no Hayagriva form and are left
 * out, as is any part that is not a real calendar date.
 */
function date(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const d = v as Record<string, unknown>;
  let parts: (number | undefined)[] = [];
  const dateParts = d['date-parts'];
  if (Array.isArray(dateParts) && Array.isArray(dateParts[0])) parts = (dateParts[0] as unknown[]).slice(0, 3).map(int);
  else {
    const raw = typeof d.raw === 'string' ? /^\s*(-?\d{1,4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?\s*$/.exec(d.raw) : null;
    const literal = typeof d.literal === 'string' ? /(?:^|\D)(\d{4})(?:\D|$)/.exec(d.literal) : null;
    if (raw) parts = raw.slice(1).map(int);
    else if (literal) parts = [int(literal[1])];
  }
  const [year, month, day] = parts;
  if (year === undefined || year < -9999 || year > 9999) return undefined;
  let text = (year < 0 ? '-' : '') + String(Math.abs(year)).padStart(4, '0');
  if (month !== undefined && month >= 1 && month <= 12) {
    text += `-${String(month).padStart(2, '0')}`;
    const daysInMonth = new Date(Date.UTC(2000 + (((year % 400) + 400) % 400), month, 0)).getUTCDate(); // same leap rule, 400-year cycle
    if (day !== undefined && day >= 1 && day <= daysInMonth) text += `-${String(day).padStart(2, '0')}`;
  }
  const circa = d.circa === true || d.circa === 1 || d.circa === 'true' || (typeof d.literal === 'string' && /\b(?:circa|ca?\.)/i.test(d.literal));
  return (circa ? '~' : '') + text;
}

/** A URL Hayagriva's parser accepts (the WHATWG form), for the schemes a reader can follow. */
function url(v: unknown): string | undefined {
  const text = plain(v);
  if (text === undefined) return undefined;
  try {
    const parsed = new URL(text);
    return ['http:', 'https:', 'ftp:'].includes(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** A DOI without resolver prefix (styles add their own https://doi.org/). */
function doi(v: unknown): string | undefined {
  const text = plain(v)?.replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, '');
  return text === '' ? undefined : text;
}

/** A BCP 47 tag Hayagriva's language-identifier parser accepts: language, then optional script and region. */
function language(v: unknown): string | undefined {
  const text = plain(v)?.replace(/_/g, '-');
  if (text === undefined || !/^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?$/.test(text)) return undefined;
  try {
    return Intl.getCanonicalLocales(text)[0];
  } catch {
    return undefined;
  }
}
