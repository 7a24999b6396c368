// Citations and the bibliography formatted with citeproc-js and the CSL styles and locales Debian ships
// (package citation-style-language-styles), for the targets that write text themselves (DOCX, ODT).
// citeproc's HTML output is never passed on: its small tag set is read into OInline nodes.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { decodeNamedCharacterReference } from 'decode-named-character-reference';
import type { CITATION_STYLES, CslItem } from '../../contracts/document-json.js';
import { PluginError } from '../../sdk/plugin-api.js';
import type { OInline } from './model.js';

export type CitationStyle = (typeof CITATION_STYLES)[number];

const STYLES_DIR = '/usr/share/citation-style-language/styles';
const LOCALES_DIR = '/usr/share/citation-style-language/locales';
const DEBIAN_PACKAGE = 'citation-style-language-styles';

/** Quire's style names → Debian's CSL files. */
const STYLE_FILES: Record<CitationStyle, string> = {
  apa: 'apa.csl',
  ieee: 'ieee.csl',
  'chicago-author-date': 'chicago-author-date.csl',
  harvard: 'harvard-cite-them-right.csl',
  vancouver: 'vancouver.csl',
};

/** One in-text citation as written: `@[key, locator; key2]`. */
export interface CitationCluster {
  items: Array<{ key: string; locator?: string }>;
}

export interface FormattedCitations {
  /** One entry per cluster, in the order given. */
  citations: OInline[][];
  /** The cited works, in the style's order. */
  bibliography: OInline[][];
}

interface CiteprocEngine {
  setOutputFormat(format: string): void;
  updateItems(ids: string[]): void;
  makeCitationCluster(items: Array<Record<string, unknown>>): string;
  makeBibliography(): [unknown, string[]] | false;
}
interface CiteprocModule {
  Engine: new (sys: unknown, style: string, lang: string, forceLang?: boolean) => CiteprocEngine;
}

const require = createRequire(import.meta.url);
let citeproc: CiteprocModule | null = null;

/** Items the engine of a style asks for while formatting (engines are reused, their items are not). */
interface Sys {
  items: Map<string, CslItem>;
  retrieveItem(id: string): CslItem | undefined;
  retrieveLocale(tag: string): string;
}

/** Building an engine parses its style (up to 100 ms for the larger ones): one per style and locale per thread. */
const engines = new Map<string, { engine: CiteprocEngine; sys: Sys }>();

/**
 * Formats `clusters` (in document order, which numeric styles number by) and the bibliography of the
 * cited items. Every key in the clusters must be in `items`.
 */
export function formatCitations(style: CitationStyle, locale: string, items: CslItem[], clusters: CitationCluster[]): FormattedCitations {
  const order: string[] = [];
  const seen = new Set<string>();
  for (const c of clusters) for (const it of c.items) if (!seen.has(it.key)) (seen.add(it.key), order.push(it.key));
  const byId = new Map(items.map((it) => [it.id, it]));
  const cslTag = cslLocale(locale);
  // The result depends only on these; documents made from one template cite the same works, so a
  // repeat costs nothing instead of citeproc's ~1 ms per work.
  const key = createHash('sha1').update(JSON.stringify([style, cslTag, order.map((id) => byId.get(id)), clusters])).digest('base64');
  const hit = results.get(key);
  if (hit) {
    results.delete(key);
    results.set(key, hit);
    return structuredClone(hit);
  }
  const formatted = runCiteproc(style, cslTag, byId, order, clusters);
  results.set(key, formatted);
  if (results.size > MAX_RESULTS) results.delete(results.keys().next().value!);
  return structuredClone(formatted);
}

const results = new Map<string, FormattedCitations>();
const MAX_RESULTS = 64;

function runCiteproc(style: CitationStyle, locale: string, items: Map<string, CslItem>, order: string[], clusters: CitationCluster[]): FormattedCitations {
  const { engine, sys } = engineFor(style, locale);
  sys.items = items;
  // Emptying the registry first drops whatever the previous document registered under the same ids.
  engine.updateItems([]);
  engine.updateItems(order);
  const citations = clusters.map((c) => htmlToInline(engine.makeCitationCluster(c.items.map(citationItem))));
  const bib = order.length ? engine.makeBibliography() : false;
  const bibliography = bib ? bib[1].map((entry) => htmlToInline(entry)) : [];
  sys.items = new Map();
  return { citations, bibliography };
}

function engineFor(style: CitationStyle, locale: string): { engine: CiteprocEngine; sys: Sys } {
  const key = `${style}\0${locale}`;
  let entry = engines.get(key);
  if (!entry) {
    citeproc ??= require('citeproc') as CiteprocModule;
    const sys: Sys = {
      items: new Map(),
      retrieveItem(id) {
        return this.items.get(id);
      },
      retrieveLocale: (tag) => localeXml(tag) ?? localeXml('en-US') ?? missing(`${LOCALES_DIR}/locales-en-US.xml`),
    };
    const engine = new citeproc.Engine(sys, styleXml(style), locale, true);
    engine.setOutputFormat('html');
    entry = { engine, sys };
    engines.set(key, entry);
  }
  return entry;
}

function styleXml(style: CitationStyle): string {
  const path = `${STYLES_DIR}/${STYLE_FILES[style]}`;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return missing(path);
  }
}

function missing(path: string): never {
  throw new PluginError('RENDER_FAILED', `The CSL file ${path} is missing: install the Debian package ${DEBIAN_PACKAGE} (scripts/setup.mjs does).`);
}

const localeCache = new Map<string, string | null>();
function localeXml(tag: string): string | null {
  if (!localeCache.has(tag)) {
    let xml: string | null = null;
    try {
      xml = readFileSync(`${LOCALES_DIR}/locales-${tag}.xml`, 'utf8');
    } catch {
      xml = null;
    }
    localeCache.set(tag, xml);
  }
  return localeCache.get(tag)!;
}

/** Languages whose main CSL locale is not `xx-XX`. */
const PRIMARY_DIALECTS: Record<string, string> = { en: 'en-US', pt: 'pt-PT', zh: 'zh-CN', sr: 'sr-RS', sv: 'sv-SE', da: 'da-DK', cs: 'cs-CZ', el: 'el-GR', et: 'et-EE', fa: 'fa-IR', he: 'he-IL', hi: 'hi-IN', ja: 'ja-JP', km: 'km-KH', ko: 'ko-KR', nb: 'nb-NO', nn: 'nn-NO', sl: 'sl-SI', uk: 'uk-UA', vi: 'vi-VN', ca: 'ca-AD', cy: 'cy-GB', af: 'af-ZA' };
let localeFiles: string[] | null = null;

/** A BCP 47 tag → the CSL locale file to use: the exact one, the language's main dialect, or en-US. */
export function cslLocale(tag: string | undefined): string {
  if (!tag) return 'en-US';
  const parts = tag.split(/[-_]/);
  const lang = parts[0]!.toLowerCase();
  const region = parts.slice(1).find((p) => /^[A-Za-z]{2}$/.test(p))?.toUpperCase();
  if (localeFiles === null) {
    try {
      localeFiles = readdirSync(LOCALES_DIR).filter((f) => /^locales-.+\.xml$/.test(f)).map((f) => f.slice(8, -4));
    } catch {
      localeFiles = [];
    }
  }
  const have = new Set(localeFiles);
  for (const candidate of [region ? `${lang}-${region}` : null, PRIMARY_DIALECTS[lang], `${lang}-${lang.toUpperCase()}`, lang]) {
    if (candidate && have.has(candidate)) return candidate;
  }
  return localeFiles.find((f) => f.startsWith(`${lang}-`)) ?? 'en-US';
}

// ------------------------------------------------------------------ locators

/** Locator prefixes as people write them (`p. 12`, `ch. 3`, `§ 4`) → CSL locator labels. */
const LOCATOR_LABELS: Array<[RegExp, string]> = [
  [/^(?:pp?\.?|pages?)\s*(?=\S)/i, 'page'],
  [/^(?:ch\.|chap\.|chapters?)\s*(?=\S)/i, 'chapter'],
  [/^(?:§§?|sec\.|sections?)\s*(?=\S)/i, 'section'],
  [/^(?:figs?\.|figures?)\s*(?=\S)/i, 'figure'],
  [/^(?:vols?\.|volumes?)\s*(?=\S)/i, 'volume'],
  [/^(?:¶¶?|paras?\.|paragraphs?)\s*(?=\S)/i, 'paragraph'],
  [/^(?:ll?\.|lines?)\s*(?=\S)/i, 'line'],
  [/^(?:nn?\.|notes?)\s*(?=\S)/i, 'note'],
  [/^(?:cols?\.|columns?)\s*(?=\S)/i, 'column'],
  [/^(?:pts?\.|parts?)\s*(?=\S)/i, 'part'],
  [/^(?:vv?\.|verses?)\s*(?=\S)/i, 'verse'],
  [/^(?:no\.|issue)\s*(?=\S)/i, 'issue'],
  [/^(?:bk\.|book)\s*(?=\S)/i, 'book'],
];

/** A locator with a known label (or bare page numbers) is CSL's to print; any other text follows the reference as written. */
function citationItem(it: { key: string; locator?: string }): Record<string, unknown> {
  const locator = it.locator?.trim();
  if (!locator) return { id: it.key };
  for (const [re, label] of LOCATOR_LABELS) {
    const m = re.exec(locator);
    if (m) return { id: it.key, label, locator: locator.slice(m[0].length) };
  }
  if (/^[\divxlcdm]+(?:\s*[-–,]\s*[\divxlcdm]+)*$/i.test(locator)) return { id: it.key, label: 'page', locator };
  return { id: it.key, suffix: `, ${locator}` };
}

// ------------------------------------------------------------------ citeproc HTML → OInline

type Run = { text: string; italic: boolean; bold: boolean; href: string | null };

/**
 * Reads citeproc's HTML: <i>, <b>, <span style="font-style|font-weight:…">, <a href>, and the
 * <div class="csl-…"> blocks of a bibliography entry (left margin and text are joined by a space).
 * Other tags (<sup>, <sub>, small caps) keep their text only. Entities are decoded.
 */
export function htmlToInline(html: string): OInline[] {
  const runs: Run[] = [];
  type Open = { tag: string; cls?: string; italic?: boolean; bold?: boolean; href?: string | null };
  const stack: Open[] = [];
  const state = () => {
    let italic = false;
    let bold = false;
    let href: string | null = null;
    for (const s of stack) {
      if (s.italic !== undefined) italic = s.italic;
      if (s.bold !== undefined) bold = s.bold;
      if (s.href !== undefined) href = s.href;
    }
    return { italic, bold, href };
  };
  const addText = (text: string) => {
    if (!text) return;
    const s = state();
    const last = runs.at(-1);
    if (last && last.italic === s.italic && last.bold === s.bold && last.href === s.href) last.text += text;
    else runs.push({ text, ...s });
  };
  let pendingSpace = false;
  const re = /<(\/?)([a-zA-Z]+)([^>]*)>|([^<]+)/g;
  for (const m of html.matchAll(re)) {
    if (m[4] !== undefined) {
      // Whitespace around and between the divs of an entry is layout of the HTML, not text.
      if (/^\s*$/.test(m[4]) && (runs.length === 0 || m[4].includes('\n') || stack.at(-1)?.tag === 'div')) continue;
      if (pendingSpace) addText(' ');
      pendingSpace = false;
      addText(decodeEntities(m[4]));
      continue;
    }
    const closing = m[1] === '/';
    const tag = m[2]!.toLowerCase();
    const attrs = m[3] ?? '';
    if (tag === 'div') {
      if (closing) {
        const i = lastOpen(stack, 'div');
        if (i >= 0 && stack[i]!.cls === 'csl-left-margin') pendingSpace = true;
        if (i >= 0) stack.splice(i, 1);
      } else stack.push({ tag: 'div', cls: /class="([^"]*)"/.exec(attrs)?.[1] ?? '' });
      continue;
    }
    if (closing) {
      const i = lastOpen(stack, tag);
      if (i >= 0) stack.splice(i, 1);
      continue;
    }
    if (/\/\s*$/.test(attrs)) continue; // <br/> and the like carry no text
    const style = /style="([^"]*)"/.exec(attrs)?.[1] ?? '';
    const entry: Open = { tag };
    if (tag === 'i' || tag === 'em' || /font-style:\s*italic/.test(style) || /font-style:\s*oblique/.test(style)) entry.italic = true;
    if (/font-style:\s*normal/.test(style)) entry.italic = false;
    if (tag === 'b' || tag === 'strong' || /font-weight:\s*bold/.test(style)) entry.bold = true;
    if (/font-weight:\s*normal/.test(style)) entry.bold = false;
    if (tag === 'a') {
      const href = decodeEntities(/href="([^"]*)"/.exec(attrs)?.[1] ?? '');
      entry.href = /^(?:https?:\/\/|mailto:)/i.test(href) ? href : null;
    }
    stack.push(entry);
  }
  const last = runs.at(-1);
  if (last) last.text = last.text.trimEnd();
  return runs.filter((r) => r.text).map(runToInline);
}

function lastOpen(stack: Array<{ tag: string }>, tag: string): number {
  for (let i = stack.length - 1; i >= 0; i--) if (stack[i]!.tag === tag) return i;
  return -1;
}

function runToInline(r: Run): OInline {
  let node: OInline = { t: 'text', v: r.text };
  if (r.bold) node = { t: 'strong', c: [node] };
  if (r.italic) node = { t: 'emph', c: [node] };
  if (r.href) node = { t: 'link', url: r.href, c: [node] };
  return node;
}

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const named = decodeNamedCharacterReference(ref);
    return named === false ? whole : named;
  });
}
