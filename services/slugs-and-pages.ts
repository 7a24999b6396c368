// Shared by the organization's named resources (workspace templates, reusable blocks): slugs unique per organization,
// and lists paged by position with an opaque cursor.
import { HttpError } from '../contracts/errors.js';

/** Lower-case ASCII words of `name` joined by hyphens (accents dropped), at most 80 characters; `fallback` if none. */
export function slugify(name: string, fallback = 'template'): string {
  const s = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80).replace(/-+$/, '');
  return s || fallback;
}

/**
 * The slug asked for (409 CONFLICT if another `what` of the organization has it), or one made from `name`, made
 * unique with -2, -3, ....
 */
export function uniqueSlug(taken: ReadonlySet<string>, asked: string | undefined, name: string, what: 'template' | 'block'): string {
  if (asked !== undefined) {
    if (taken.has(asked)) throw new HttpError('CONFLICT', `Another ${what} of this organization has the slug "${asked}"; choose another slug or leave it out.`);
    return asked;
  }
  const base = slugify(name, what);
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  return slug;
}

/** One page of `all` from the position the cursor names (the start without one), and the next page's cursor. */
export function pageByPosition<T>(all: T[], page: { limit: number; cursor: string | null }): { items: T[]; nextCursor: string | null } {
  const start = page.cursor === null ? 0 : cursorIndex(page.cursor, all.length);
  const end = start + page.limit;
  return { items: all.slice(start, end), nextCursor: end < all.length ? Buffer.from(String(end)).toString('base64url') : null };
}

function cursorIndex(cursor: string, length: number): number {
  const n = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!Number.isInteger(n) || n < 0 || n > length) {
    throw new HttpError('VALIDATION_FAILED', 'cursor is not a cursor this list gave; pass the nextCursor of the previous page unchanged.', [{ path: 'query.cursor', message: 'is not a cursor of this list', code: 'INVALID_FIELD' }]);
  }
  return n;
}
