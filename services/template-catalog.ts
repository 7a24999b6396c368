// The built-in template catalog: Extended Markdown sources shipped in catalog/templates/ (index.json lists them),
// read and parsed once, each with a stable UUID made from its slug so every server gives it the same id.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parseMarkdown } from '../document/markdown/index.js';
import type { DocumentJson } from '../contracts/document-json.js';

/** Where the sources are: the repository's catalog/templates, two levels above this file (in dist/ or not). */
export const CATALOG_DIR = fileURLToPath(new URL('../../catalog/templates/', import.meta.url));

export interface CatalogTemplate {
  id: string;
  slug: string;
  name: string;
  category: string;
  description: string;
  stylePresetId: string | null;
  markdown: string;
  config: DocumentJson;
}

interface IndexEntry {
  slug: string;
  name: string;
  category: string;
  description: string;
  stylePresetId?: string;
}

/** A name-based UUID (version 5 layout over SHA-1) of the slug: stable across servers and restarts. */
export function catalogTemplateId(slug: string): string {
  const h = createHash('sha1').update(`quire:catalog-template:${slug}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

let loaded: CatalogTemplate[] | undefined;

/**
 * The catalog, read on first use. A source that does not parse is a bug in Quire: it throws, so the catalog's
 * golden test fails rather than a client seeing it.
 */
export function catalogTemplates(dir = CATALOG_DIR): CatalogTemplate[] {
  if (loaded && dir === CATALOG_DIR) return loaded;
  const indexFile = path.join(dir, 'index.json');
  const entries: IndexEntry[] = existsSync(indexFile) ? JSON.parse(readFileSync(indexFile, 'utf8')) : [];
  const out = entries.map((e) => {
    const markdown = readFileSync(path.join(dir, `${e.slug}.md`), 'utf8');
    const parsed = parseMarkdown(markdown);
    if (!parsed.document) throw new Error(`Catalog template ${e.slug} does not parse: ${parsed.errors.map((i) => `${i.path} ${i.message}`).join('; ')}`);
    return { id: catalogTemplateId(e.slug), slug: e.slug, name: e.name, category: e.category, description: e.description, stylePresetId: e.stylePresetId ?? null, markdown, config: parsed.document };
  });
  if (dir === CATALOG_DIR) loaded = out;
  return out;
}
