// The images of a document: checked before a render or a save (temporary images and the organization's assets must
// exist, URLs must pass the URL policy's syntax), and made permanent when a document, template or block is saved.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { KeyedMutex } from '../kernel/keyed-mutex.js';
import { TOKENS } from '../kernel/tokens.js';
import { HttpError, errorSummary, type FieldError } from '../contracts/errors.js';
import { imageUses, replaceImageSources } from '../document/images.js';
import { assetPath, resolveAssetPath, resolveTempImagePath } from '../kernel/temp-images.js';
import type { DocumentJson } from '../contracts/document-json.js';
import type { Clock } from '../kernel/clock.js';
import type { Store } from '../kernel/store/store.js';
import type { BlobStore } from '../kernel/store/blob-store.js';
import type { UrlPolicy } from '../sdk/url-policy.js';
import type { AssetRecord } from '../kernel/model.js';

/** What saving a document's images gives: the document with `/image/` paths, the assets it uses, the assets made for it. */
export interface PersistedImages<D> {
  document: D;
  assetIds: string[];
  newAssets: AssetRecord[];
  /** Each temporary image path replaced, with the `/image/` path it became. */
  replaced: Map<string, string>;
}

@injectable()
export class DocumentImages {
  /**
   * Saves and deletions of an organization's documents, templates and blocks run one at a time (`exclusive`): an asset
   * that `persist` reuses or finds cannot be released by another save or deletion before the write that uses it.
   */
  readonly #locks = new KeyedMutex();

  constructor(
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Blobs) private readonly blobs: BlobStore,
    @inject(TOKENS.UrlPolicy) private readonly urlPolicy: UrlPolicy,
  ) {}

  /**
   * Every image the document draws, each source once (400 naming the paths of those that cannot be used). `prefix`
   * places the paths in the request (`config.`, or nothing for a document read from Markdown).
   */
  async check(orgId: string, doc: DocumentJson, prefix = 'config.'): Promise<string[]> {
    const errors: FieldError[] = [];
    const now = this.clock.now().toISOString();
    const sources = new Set<string>();
    for (const { src, path: at } of imageUses(doc)) {
      if (sources.has(src)) continue;
      const path = `${prefix}${at}`;
      if (src.startsWith('/temp-image/')) {
        const tempId = resolveTempImagePath(src);
        const rec = tempId ? await this.store.getFile(orgId, tempId) : undefined;
        if (!rec || rec.kind !== 'IMAGE' || rec.expiresAt <= now) {
          errors.push({ path, message: `${src} was not found: temporary images live 24 hours after POST /images/upload and belong to the organization that uploaded them`, code: 'IMAGE_NOT_FOUND' });
          continue;
        }
      } else if (src.startsWith('/image/')) {
        const assetId = resolveAssetPath(src);
        if (!assetId || !(await this.store.getAsset(orgId, assetId))) {
          errors.push({ path, message: `${src} was not found: permanent images are made when a document that uses a /temp-image/ path is saved (POST /documents), belong to its organization, and go with the last document that uses them`, code: 'IMAGE_NOT_FOUND' });
          continue;
        }
      } else {
        const decision = this.urlPolicy.checkSyntax(src);
        if (!decision.allowed) {
          errors.push({ path, message: decision.reason, code: 'URL_REFUSED' });
          continue;
        }
      }
      sources.add(src);
    }
    if (errors.length) throw new HttpError('VALIDATION_FAILED', `The document's images cannot be used: ${errorSummary(errors)}.`, errors);
    return [...sources];
  }

  /** Runs `fn` as the organization's only save or deletion of documents, templates and blocks at that time. */
  exclusive<T>(orgId: string, fn: () => Promise<T>): Promise<T> {
    return this.#locks.run(orgId, fn);
  }

  /**
   * A checked document (see `check`) about to be saved: each temporary image becomes a permanent asset (the one an
   * earlier save made of the same image while a document still uses it, else a copy of its bytes). The caller writes
   * `newAssets` with the document, in one write, inside `exclusive`.
   */
  async persist<D extends DocumentJson>(orgId: string, doc: D): Promise<PersistedImages<D>> {
    const bySource = new Map<string, string>();
    const newAssets: AssetRecord[] = [];
    const assetIds = new Set<string>();
    for (const { src, path } of imageUses(doc)) {
      if (bySource.has(src)) continue;
      const tempId = resolveTempImagePath(src);
      const assetId = resolveAssetPath(src);
      if (assetId) {
        // Checked before the lock was taken; the last document using it may have gone since.
        if (!(await this.store.getAsset(orgId, assetId))) {
          throw new HttpError('VALIDATION_FAILED', `${src} was deleted (with the last document that used it) while this was being saved; upload the image again.`, [{ path, message: `${src} was deleted while saving`, code: 'IMAGE_NOT_FOUND' }]);
        }
        assetIds.add(assetId);
      } else if (tempId) {
        const existing = (await this.store.findAssetBySource(orgId, tempId)) ?? newAssets.find((a) => a.sourceImageId === tempId);
        const asset = existing ?? (await this.#copy(orgId, tempId));
        if (!existing) newAssets.push(asset);
        assetIds.add(asset.id);
        bySource.set(src, assetPath(asset.id));
      }
    }
    const document = bySource.size ? replaceImageSources(doc, (src) => bySource.get(src) ?? src) : doc;
    return { document, assetIds: [...assetIds], newAssets, replaced: bySource };
  }

  /** Deletes the bytes of assets the store released (no document uses them any more). */
  async release(assetIds: string[]): Promise<void> {
    for (const id of assetIds) await this.blobs.delete(id);
  }

  async #copy(orgId: string, tempId: string): Promise<AssetRecord> {
    const rec = await this.store.getFile(orgId, tempId);
    if (!rec) throw new HttpError('VALIDATION_FAILED', `/temp-image/${tempId} was deleted while the document was being saved; upload it again.`);
    const id = randomUUID();
    await this.blobs.put(id, await this.blobs.get(tempId));
    return { id, orgId, mimeType: rec.mimeType, sizeBytes: rec.sizeBytes, sourceImageId: tempId, createdAt: this.clock.now().toISOString() };
  }
}

/** Markdown as written, with each temporary image path replaced by the `/image/` path the save made of it (`replaced`). */
export function withAssetPaths(markdown: string, replaced: Map<string, string>): string {
  let out = markdown;
  for (const [from, to] of replaced) out = out.split(from).join(to);
  return out;
}
