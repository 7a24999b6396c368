// The console's one way to the API: JSON requests with the signed-in key (X-API-Key), answers as {status, body}.
export const API = '/api/v1/dev';

/** sessionStorage only: the key ends with the tab; never localStorage, never a cookie. */
const KEY_ITEM = 'quire.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

export function storeKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(KEY_ITEM);
  else sessionStorage.setItem(KEY_ITEM, key);
}

export interface Answer<T = any> {
  status: number;
  body: T;
}

/** An application/problem+json answer's words: the detail, else the title, else the status. */
export function problemText(a: Answer): string {
  const b = a.body ?? {};
  return [b.code, b.detail ?? b.title].filter(Boolean).join(': ') || `HTTP ${a.status}`;
}

export async function call<T = any>(key: string, method: string, path: string, body?: unknown, init: { signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { 'X-API-Key': key, Accept: 'application/json', ...init.headers };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: init.signal });
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { detail: text };
  }
  return { status: res.status, body: parsed };
}

/** A binary download with the key (the preview's page image), as a blob: URL the page may show under its CSP. */
export async function blobUrl(key: string, path: string): Promise<string> {
  const res = await fetch(API + path, { headers: { 'X-API-Key': key } });
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}`);
  return URL.createObjectURL(await res.blob());
}

/**
 * The free page preview (POST /render/markdown/preview): a blob: URL of the PNG, or the API's problem answer (400 with
 * the errors at line and column, 429 with Retry-After). `signal` cancels a request a newer edit made stale.
 */
export async function previewImage(key: string, body: unknown, signal: AbortSignal): Promise<{ url: string } | { problem: Answer; retryAfter: number | null }> {
  const res = await fetch(`${API}/render/markdown/preview`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal });
  if (res.ok) return { url: URL.createObjectURL(await res.blob()) };
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { detail: text };
  }
  const retry = res.headers.get('Retry-After');
  return { problem: { status: res.status, body: parsed }, retryAfter: retry === null ? null : Number(retry) };
}

/** Who the key is: an organization's key (GET /credits answers) or an operator key (only the operator routes answer). */
export type Role = 'org' | 'operator';

export async function whoIs(key: string): Promise<{ role: Role } | { error: string }> {
  const credits = await call(key, 'GET', '/credits?limit=1');
  if (credits.status === 200) return { role: 'org' };
  if (credits.status === 403) {
    const ops = await call(key, 'GET', '/operator/plugins');
    if (ops.status === 200) return { role: 'operator' };
  }
  return { error: credits.status === 401 ? `That key was not accepted (${problemText(credits)})` : problemText(credits) };
}
