// The assets records share on PostgreSQL: a record and its asset_users rows written together, and an asset deleted with
// the last document, template, block or form record that uses it.
import type pg from 'pg';
import type { AssetRecord } from '../../model.js';
import { copy, put, readOwn, setAssetUsers, transaction, type AssetUserTable, type Db, type RecordOf } from './pg-rows.js';

/**
 * Of `candidates`, the assets no user but those `going` (records deleted, or one that drops them) will still use. Their
 * rows are locked first, so two users dropping a shared asset at once do not each see the other as still using it.
 */
export async function assetsOnlyUsedBy(tx: Db, going: string[], candidates: string[]): Promise<string[]> {
  if (!candidates.length) return [];
  await tx.query('SELECT id FROM assets WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [candidates]);
  const { rows } = await tx.query<{ asset_id: string }>('SELECT DISTINCT asset_id FROM asset_users WHERE asset_id = ANY($1::text[]) AND NOT (user_id = ANY($2::text[]))', [candidates, going]);
  const shared = new Set(rows.map((r) => r.asset_id));
  return candidates.filter((a) => !shared.has(a));
}

/** The assets of `rec` that no document, template, block or form record will use once `rec` uses only `keep`. */
export function assetsReleasedBy(tx: Db, rec: { id: string; assetIds?: string[] }, keep: string[]): Promise<string[]> {
  return assetsOnlyUsedBy(tx, [rec.id], (rec.assetIds ?? []).filter((a) => !keep.includes(a)));
}

export async function deleteAssets(tx: Db, ids: string[]): Promise<void> {
  if (ids.length) await tx.query('DELETE FROM assets WHERE id = ANY($1::text[])', [ids]);
}

/** The record and the new assets it is the first to use, with its asset_users rows, in one transaction (after `first`: a lock it needs). */
export async function createAssetUser<T extends AssetUserTable>(pool: pg.Pool, table: T, rec: RecordOf<T> & { id: string; assetIds?: string[] }, newAssets: AssetRecord[], first?: (tx: Db) => Promise<unknown>): Promise<void> {
  await transaction(pool, async (tx) => {
    await first?.(tx);
    for (const a of newAssets) await put(tx, 'assets', copy(a));
    await put(tx, table, copy(rec));
    await setAssetUsers(tx, rec.id, rec.assetIds);
  });
}

/** Deletes the record and, in the same transaction, the assets only it used (returned: the caller deletes their bytes). */
export function deleteAssetUser(pool: pg.Pool, table: AssetUserTable, orgId: string, id: string): Promise<{ releasedAssets: string[] } | undefined> {
  return transaction(pool, async (tx) => {
    const rec = await readOwn(tx, table, orgId, id, true);
    if (!rec) return undefined;
    const released = await assetsReleasedBy(tx, rec, []);
    await tx.query(`DELETE FROM ${table} WHERE id = $1`, [id]);
    await setAssetUsers(tx, id, []);
    await deleteAssets(tx, released);
    return { releasedAssets: released };
  });
}
