// The built-in style presets (`system:<slug>`): target-neutral `defaults` objects, pictured in docs/styles.md.
import type { Defaults } from './document-json.js';
import { SYSTEM_STYLE_PREFIX, type StylePreset } from './styles.js';

interface SystemStyle {
  slug: string;
  name: string;
  description: string;
  category: string;
  tags: string[];
  definition: Defaults;
}

/** When the catalog was last changed; the presets' createdAt/updatedAt (bump with `version` on a change). */
const RELEASED = '2026-11-22T00:00:00.000Z';

const CATALOG: readonly SystemStyle[] = [
  {
    slug: 'modern-report',
    name: 'Modern report',
    description: 'A clean sans-serif report: large blue headings, a solid blue table header with light stripes, page numbers at the bottom right.',
    category: 'report',
    tags: ['sans', 'blue', 'report', 'business'],
    definition: {
      fonts: { family: 'Noto Sans', size: 10.5, color: '#1F2933' },
      headings: {
        h1: { size: 26, weight: 'bold', color: '#1D4ED8', spacingBefore: 24, spacingAfter: 14 },
        h2: { size: 16, weight: 'bold', color: '#1E3A8A', spacingBefore: 18, spacingAfter: 8 },
        h3: { size: 12.5, weight: 'bold', color: '#2563EB', spacingBefore: 14, spacingAfter: 6 },
        h4: { size: 11, weight: 'bold', color: '#1F2933', spacingBefore: 12, spacingAfter: 4 },
      },
      paragraph: { spacingAfter: 8, lineHeight: 1.45 },
      colors: { primary: '#1D4ED8', text: '#1F2933', muted: '#6B7280', accent: '#60A5FA' },
      table: { headerBackground: '#1D4ED8', headerColor: '#FFFFFF', borderColor: '#CBD5E1', stripe: true, stripeColor: '#EFF6FF' },
      footer: { text: 'Page {{page}} of {{pages}}', align: 'right' },
      citationStyle: 'harvard',
      locale: 'en-US',
    },
  },
  {
    slug: 'classic-serif',
    name: 'Classic serif',
    description: 'Book-like Noto Serif with generous leading, burgundy headings, a cream table header and centred page numbers.',
    category: 'report',
    tags: ['serif', 'classic', 'long-form', 'burgundy'],
    definition: {
      fonts: { family: 'Noto Serif', size: 11, color: '#2B2420' },
      headings: {
        h1: { size: 24, weight: 'bold', color: '#6D1A25', spacingBefore: 28, spacingAfter: 14 },
        h2: { size: 16, weight: 'bold', color: '#6D1A25', spacingBefore: 22, spacingAfter: 9 },
        h3: { size: 12, weight: 'bold', color: '#2B2420', spacingBefore: 16, spacingAfter: 6 },
        h4: { size: 11, weight: 'bold', color: '#5A4A3F', spacingBefore: 12, spacingAfter: 4 },
      },
      paragraph: { spacingAfter: 9, lineHeight: 1.7 },
      colors: { primary: '#6D1A25', text: '#2B2420', muted: '#7A6E64', accent: '#B08D57' },
      table: { headerBackground: '#F4EFE6', headerColor: '#2B2420', borderColor: '#C9BBA5', stripe: false },
      footer: { text: '{{page}}', align: 'center' },
      citationStyle: 'chicago-author-date',
      locale: 'en-GB',
    },
  },
  {
    slug: 'academic-paper',
    name: 'Academic paper',
    description: 'A journal-style paper in New Computer Modern: black headings stepped by size and weight, plain ruled tables, APA citations, the page number at the top right.',
    category: 'academic',
    tags: ['serif', 'academic', 'apa', 'paper'],
    definition: {
      fonts: { family: 'New Computer Modern', size: 11, color: '#000000' },
      headings: {
        h1: { size: 17, weight: 'bold', color: '#000000', spacingBefore: 20, spacingAfter: 10 },
        h2: { size: 13, weight: 'bold', color: '#000000', spacingBefore: 16, spacingAfter: 7 },
        h3: { size: 11, weight: 'bold', color: '#000000', spacingBefore: 12, spacingAfter: 5 },
        h4: { size: 10.5, weight: 'bold', color: '#333333', spacingBefore: 10, spacingAfter: 4 },
      },
      paragraph: { spacingAfter: 6, lineHeight: 1.55 },
      colors: { primary: '#1A3A6B', text: '#000000', muted: '#444444', accent: '#1A3A6B' },
      table: { headerBackground: '#FFFFFF', headerColor: '#000000', borderColor: '#333333', stripe: false },
      header: { text: '{{page}}', align: 'right' },
      citationStyle: 'apa',
      locale: 'en-US',
    },
  },
  {
    slug: 'corporate-letter',
    name: 'Corporate letter',
    description: 'Business correspondence in Libertinus Serif with deep-green accents, restrained headings, airy paragraphs and page numbers from the second page on.',
    category: 'letter',
    tags: ['serif', 'letter', 'business', 'green'],
    definition: {
      fonts: { family: 'Libertinus Serif', size: 11.5, color: '#1E2A24' },
      headings: {
        h1: { size: 19, weight: 'bold', color: '#14532D', spacingBefore: 22, spacingAfter: 12 },
        h2: { size: 13.5, weight: 'bold', color: '#14532D', spacingBefore: 16, spacingAfter: 7 },
        h3: { size: 11.5, weight: 'bold', color: '#1E2A24', spacingBefore: 12, spacingAfter: 5 },
        h4: { size: 11.5, weight: 'bold', color: '#4B5B52', spacingBefore: 10, spacingAfter: 4 },
      },
      paragraph: { spacingAfter: 11, lineHeight: 1.45 },
      colors: { primary: '#14532D', text: '#1E2A24', muted: '#6B7A71', accent: '#86A892' },
      table: { headerBackground: '#E6EFE8', headerColor: '#14532D', borderColor: '#A7BFAE', stripe: false },
      footer: { text: 'Page {{page}} of {{pages}}', align: 'center', skipFirstPage: true },
      citationStyle: 'harvard',
      locale: 'en-GB',
    },
  },
  {
    slug: 'minimal-memo',
    name: 'Minimal memo',
    description: 'A compact, monochrome internal memo: small near-black headings, hairline table borders, no colour, the page number at the bottom right.',
    category: 'memo',
    tags: ['sans', 'minimal', 'monochrome', 'memo'],
    definition: {
      fonts: { family: 'Noto Sans', size: 9.5, color: '#222222' },
      headings: {
        h1: { size: 14, weight: 'bold', color: '#111111', spacingBefore: 18, spacingAfter: 8 },
        h2: { size: 11, weight: 'bold', color: '#111111', spacingBefore: 14, spacingAfter: 5 },
        h3: { size: 9.5, weight: 'bold', color: '#555555', spacingBefore: 10, spacingAfter: 4 },
        h4: { size: 9.5, weight: 'bold', color: '#777777', spacingBefore: 8, spacingAfter: 3 },
      },
      paragraph: { spacingAfter: 6, lineHeight: 1.4 },
      colors: { primary: '#111111', text: '#222222', muted: '#8A8A8A', accent: '#CFCFCF' },
      table: { headerBackground: '#FFFFFF', headerColor: '#111111', borderColor: '#D4D4D4', stripe: false },
      footer: { text: '{{page}}', align: 'right' },
      citationStyle: 'ieee',
      locale: 'en',
    },
  },
  {
    slug: 'invoice',
    name: 'Invoice',
    description: 'Billing documents: a large dark title, compact sans body, a charcoal table header with zebra rows for line items, orange accents.',
    category: 'invoice',
    tags: ['sans', 'invoice', 'billing', 'compact'],
    definition: {
      fonts: { family: 'Noto Sans', size: 9.5, color: '#111827' },
      headings: {
        h1: { size: 30, weight: 'bold', color: '#111827', spacingBefore: 24, spacingAfter: 14 },
        h2: { size: 11, weight: 'bold', color: '#C2410C', spacingBefore: 16, spacingAfter: 5 },
        h3: { size: 9.5, weight: 'bold', color: '#4B5563', spacingBefore: 12, spacingAfter: 4 },
        h4: { size: 9.5, weight: 'bold', color: '#4B5563', spacingBefore: 8, spacingAfter: 3 },
      },
      paragraph: { spacingAfter: 4, lineHeight: 1.35 },
      colors: { primary: '#C2410C', text: '#111827', muted: '#6B7280', accent: '#FDBA74' },
      table: { headerBackground: '#1F2937', headerColor: '#FFFFFF', borderColor: '#E5E7EB', stripe: true, stripeColor: '#F9FAFB' },
      footer: { text: 'Page {{page}} of {{pages}}', align: 'center' },
      citationStyle: 'apa',
      locale: 'en-US',
    },
  },
];

function toPreset(s: SystemStyle): StylePreset {
  return {
    id: `${SYSTEM_STYLE_PREFIX}${s.slug}`,
    source: 'system',
    editable: false,
    name: s.name,
    isDefault: false,
    tags: [...s.tags],
    definition: structuredClone(s.definition),
    description: s.description,
    category: s.category,
    version: 1,
    createdAt: RELEASED,
    updatedAt: RELEASED,
  };
}

/** The slugs, in catalog order. */
export const SYSTEM_STYLE_SLUGS: readonly string[] = CATALOG.map((s) => s.slug);

/** Every built-in preset, in catalog order (fresh copies: callers may change them). */
export function systemStylePresets(): StylePreset[] {
  return CATALOG.map(toPreset);
}

/** A built-in preset by its id (`system:<slug>`), or undefined. */
export function systemStylePreset(id: string): StylePreset | undefined {
  if (!id.startsWith(SYSTEM_STYLE_PREFIX)) return undefined;
  const s = CATALOG.find((c) => c.slug === id.slice(SYSTEM_STYLE_PREFIX.length));
  return s && toPreset(s);
}
