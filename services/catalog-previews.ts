// Page 1 as PNG and the sample PDF of each catalog template, rendered by Quire itself on the plugin pools the first
// time they are asked for and kept in the data dir under a hash of the template (a changed template renders anew).
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError } from '../contracts/errors.js';
import { KeyedMutex } from '../kernel/keyed-mutex.js';
import { checkDocumentConfig } from './document-check.js';
import type { CatalogTemplate } from './template-catalog.js';
import type { QuireConfig } from '../kernel/config.js';
import type { Store } from '../kernel/store/store.js';
import type { PluginRegistry } from '../kernel/plugin-registry.js';

export type PreviewKind = 'png' | 'pdf';
const MIME: Record<PreviewKind, string> = { png: 'image/png', pdf: 'application/pdf' };
/** The preview's resolution: page 1 of A4 at 72 dpi is 595 × 842 pixels, enough for a gallery card. */
const PREVIEW_DPI = 72;

@injectable()
export class CatalogPreviews {
  readonly #locks = new KeyedMutex();

  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Registry) private readonly registry: PluginRegistry,
  ) {}

  /** The file of the preview, rendered now if this template (as it is) has none yet. */
  async file(template: CatalogTemplate, kind: PreviewKind): Promise<{ path: string; mimeType: string; sizeBytes: number }> {
    const hash = createHash('sha256').update(`${kind}\n${template.stylePresetId ?? ''}\n${template.markdown}`).digest('hex').slice(0, 16);
    const file = path.join(this.config.dataDir, 'catalog-previews', `${template.slug}-${hash}.${kind}`);
    return this.#locks.run(file, async () => {
      const found = await stat(file).catch(() => null);
      if (!found) await this.#render(template, kind, file);
      return { path: file, mimeType: MIME[kind], sizeBytes: (await stat(file)).size };
    });
  }

  async #render(template: CatalogTemplate, kind: PreviewKind, file: string): Promise<void> {
    const reg = this.registry.byTarget(kind);
    if (!reg?.plugin.pool || reg.plugin.state !== 'enabled') throw new HttpError('PLUGIN_UNAVAILABLE', `Catalog previews need ${kind.toUpperCase()} rendering, which is not available on this server.`, undefined, { 'Retry-After': '3600' });
    // The template's own config with its preset beneath, defaults filled in: what a render of it would take.
    const { document } = await checkDocumentConfig(this.store, '', template.config as unknown as Record<string, unknown>, template.stylePresetId ?? undefined, false);
    const params = { document, pdfProfile: 'standard', createdAt: '2026-01-01T00:00:00.000Z', ...(kind === 'png' ? { image: { format: 'png', dpi: PREVIEW_DPI, pages: ['1'] } } : {}) };
    const output = await reg.plugin.pool.run(reg.action.export, { params, files: [], settings: reg.plugin.settings });
    if (!output.file) throw new Error(`The ${kind} render of catalog template ${template.slug} gave no file.`);
    await mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, output.file.bytes);
    await rename(temp, file);
  }
}
