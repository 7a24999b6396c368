// API keys a node found lately: every request reads its key, and a client's requests in a row cost one read.
import type { ApiKeyRecord } from '../../model.js';

/** How long a key found is used without reading it again: how long a key revoked on another node still works here. */
export const KEY_CACHE_MS = 1000;
/** Most keys kept meanwhile. */
const KEYS_CACHED = 1000;

export class KeyCache {
  readonly #keys = new Map<string, { key: ApiKeyRecord; until: number }>();

  /** The key by hash, from the cache while it is fresh, else from `read` (kept when it is found and not revoked). */
  async find(hash: string, read: () => Promise<ApiKeyRecord | undefined>): Promise<ApiKeyRecord | undefined> {
    const now = Date.now();
    const hit = this.#keys.get(hash);
    if (hit && hit.until > now) return structuredClone(hit.key);
    const key = await read();
    this.#keys.delete(hash);
    if (key && !key.revokedAt) {
      this.#keys.set(hash, { key: structuredClone(key), until: now + KEY_CACHE_MS });
      if (this.#keys.size > KEYS_CACHED) this.#keys.delete(this.#keys.keys().next().value!);
    }
    return key;
  }

  /** A key revoked by this node stops working here at once. */
  forget(id: string): void {
    for (const [hash, hit] of this.#keys) if (hit.key.id === id) this.#keys.delete(hash);
  }
}
