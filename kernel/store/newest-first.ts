// The embedded store's order of paged lists: newest first, ties by id (code points, as PostgreSQL's COLLATE "C"), after a PageKey.
import type { PageKey } from './store.js';

type Paged = { createdAt: string; id: string };

export const newestFirst = <R extends Paged>(a: R, b: R): number => b.createdAt.localeCompare(a.createdAt) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);

/** Whether `r` comes after the record `after` names in that order (every record when `after` is absent). */
export const before = (r: Paged, after?: PageKey): boolean => !after || r.createdAt < after.createdAt || (r.createdAt === after.createdAt && r.id < after.id);
