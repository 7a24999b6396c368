// What every render target shares before it draws anything: the images the kernel loaded, the error for
// documents that cannot be rendered, and the answers to format-independent questions (variables, locale,
// page geometry, default styles) so that the PDF, DOCX and ODT targets agree on them.
import type { ChartElement, DocumentJson, Element } from '../contracts/document-json.js';
import { PluginError } from '../sdk/plugin-api.js';

/** An image the document uses, loaded by the kernel before the job runs. */
export interface LoadedImage {
  bytes: Uint8Array;
  mimeType: string;
}

/** Problems that make a document impossible to render, each with the path of its field. */
export class RenderInputError extends PluginError {
  constructor(readonly problems: Array<{ path: string; message: string }>) {
    super('INVALID_DOCUMENT', `The document cannot be rendered: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}.`, { problems });
  }
}

/** Series colors of charts when the document gives none. */
export const CHART_PALETTE = ['#2E86AB', '#E4572E', '#76B041', '#FFC914', '#7E5BA6', '#17BEBB', '#F18F01', '#C73E1D', '#3B1F2B', '#6C757D'];

/** Heading sizes and spacing (pt) when `defaults.headings` leaves them open. */
export const DEFAULT_HEADINGS = [
  { size: 22, weight: 'bold', above: 18, below: 10 },
  { size: 17, weight: 'bold', above: 16, below: 8 },
  { size: 14, weight: 'bold', above: 14, below: 6 },
  { size: 12, weight: 'bold', above: 12, below: 5 },
  { size: 11, weight: 'bold', above: 10, below: 4 },
  { size: 10.5, weight: 'bold', above: 10, below: 4 },
] as const;

/** Portrait paper sizes in cm. */
export const PAPER_CM: Record<string, [number, number]> = { A4: [21, 29.7], A3: [29.7, 42], A5: [14.8, 21], Letter: [21.59, 27.94], Legal: [21.59, 35.56] };

export interface PageGeometry {
  widthCm: number;
  heightCm: number;
  landscape: boolean;
  margins: { topCm: number; rightCm: number; bottomCm: number; leftCm: number };
}

/** The page in cm, landscape already swapped; a margin the document leaves open is Typst's default, 2.5/21 of the shorter side. */
export function pageGeometry(d: DocumentJson['document']): PageGeometry {
  const [w0, h0] = PAPER_CM[d.size ?? 'A4'] ?? PAPER_CM.A4!;
  const landscape = d.orientation === 'landscape';
  const [w, h] = landscape ? [h0, w0] : [w0, h0];
  const auto = (2.5 / 21) * Math.min(w, h);
  return {
    widthCm: w,
    heightCm: h,
    landscape,
    margins: { topCm: d.marginTop ?? auto, rightCm: d.marginRight ?? auto, bottomCm: d.marginBottom ?? auto, leftCm: d.marginLeft ?? auto },
  };
}

/** The document's palette with the defaults filled in. */
export function documentColors(defaults: NonNullable<DocumentJson['defaults']>): { primary: string; text: string; muted: string; accent: string } {
  const c = defaults.colors ?? {};
  return { primary: c.primary ?? '#1F3A5F', text: c.text ?? defaults.fonts?.color ?? '#1A1A1A', muted: c.muted ?? '#5F6B7A', accent: c.accent ?? '#2E86AB' };
}

/** Table styling with the defaults filled in (null header color: the body text color). */
export function tableStyle(defaults: NonNullable<DocumentJson['defaults']>): { headerBackground: string; headerColor: string | null; borderColor: string; stripe: boolean; stripeColor: string } {
  const t = defaults.table ?? {};
  return { headerBackground: t.headerBackground ?? '#EEF1F5', headerColor: t.headerColor ?? null, borderColor: t.borderColor ?? '#C5CCD6', stripe: t.stripe ?? false, stripeColor: t.stripeColor ?? '#F6F8FA' };
}

export type Length = { k: 'cm' | 'pct' | 'fr' | 'auto'; v: number } | null;

/** `12`, `"2fr"`, `"30%"`, `"auto"` → a length (numbers are cm). */
export function parseLength(v: number | string | undefined): Length {
  if (v === undefined) return null;
  if (typeof v === 'number') return { k: 'cm', v };
  if (v === 'auto') return { k: 'auto', v: 0 };
  const m = /^(\d+(?:\.\d+)?)(fr|%)$/.exec(v);
  if (!m) return { k: 'cm', v: Number(v) };
  return { k: m[2] === '%' ? 'pct' : 'fr', v: Number(m[1]) };
}

/** Replaces `{{name}}` and `${name}` with the variable's text; unknown names stay as written. */
export function substitute(text: string, variables: Record<string, unknown>): string {
  if (!text.includes('{')) return text;
  return text.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}|\$\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}/g, (whole, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!;
    return Object.hasOwn(variables, name) ? variableText(variables, name) : whole;
  });
}

/** A variable as text: strings and numbers as given, lists joined, other kinds by their description. */
export function variableText(variables: Record<string, unknown>, name: string): string {
  if (!Object.hasOwn(variables, name)) return `{{${name}}}`;
  const v = variables[name];
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  const o = v as { type?: string; items?: string[]; alt?: string };
  if (o.type === 'list') return (o.items ?? []).join(', ');
  if (o.type === 'image') return o.alt ?? '';
  return `{{${name}}}`;
}

/** `defaults.locale` → language and region subtags (lowercase); anything unusable means English. */
export function parseLocale(tag: string | undefined): { lang: string; region: string | null } {
  if (!tag) return { lang: 'en', region: null };
  const parts = tag.split(/[-_]/);
  const lang = parts[0]!.toLowerCase();
  const region = parts.slice(1).find((p) => /^[A-Za-z]{2}$/.test(p));
  return { lang: /^[a-z]{2,3}$/.test(lang) ? lang : 'en', region: region ? region.toLowerCase() : null };
}

/** A header or footer text split into text parts (variables substituted) and page-number fields. */
export function furnitureParts(text: string, variables: Record<string, unknown>): Array<{ t: 'text'; v: string } | { t: 'page' } | { t: 'pages' }> {
  const parts: Array<{ t: 'text'; v: string } | { t: 'page' } | { t: 'pages' }> = [];
  const re = /\{\{\s*(page|pages)\s*\}\}|\$\{(page|pages)\}/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) parts.push({ t: 'text', v: substitute(text.slice(last, m.index), variables) });
    parts.push({ t: (m[1] ?? m[2]) as 'page' | 'pages' });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ t: 'text', v: substitute(text.slice(last), variables) });
  return parts;
}

/**
 * Renders each element of a section's content with its path; a RenderInputError (or any error) of one element
 * is collected into `problems` with its path, so that one answer lists every problem of the document.
 */
export function renderEach<T>(elements: readonly Element[], path: string, problems: Array<{ path: string; message: string }>, render: (el: Element, path: string) => T | null | undefined): T[] {
  const out: T[] = [];
  elements.forEach((el, i) => {
    const at = `${path}[${i}]`;
    try {
      const block = render(el, at);
      if (block) out.push(block);
    } catch (err) {
      if (err instanceof RenderInputError) problems.push(...err.problems);
      else problems.push({ path: at, message: (err as Error).message });
    }
  });
  return out;
}

/** A chart's text (title, axis labels, category labels, series names) as plain text with `plain` applied (variables substituted). */
export function plainChartText(el: ChartElement, plain: (text: string) => string): ChartElement {
  return {
    ...el,
    title: el.title !== undefined ? plain(el.title) : undefined,
    xLabel: el.xLabel !== undefined ? plain(el.xLabel) : undefined,
    yLabel: el.yLabel !== undefined ? plain(el.yLabel) : undefined,
    data: { ...el.data, labels: el.data.labels?.map((l) => plain(l)), series: el.data.series.map((s) => ({ ...s, name: plain(s.name) })) },
  };
}
