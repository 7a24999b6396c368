// Verifies the signature of a delivery to a webhook endpoint (docs/webhooks.md): Quire-Signature `t=<unix s>,v1=<hex>`.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers as Node (IncomingHttpHeaders), fetch (Headers) or a plain object give them. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest accepted |now − t| in seconds (default 300, as docs/webhooks.md recommends). */
  toleranceSeconds?: number;
  /** Now, in Unix seconds (tests); default the clock. */
  now?: number;
}

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const found = Object.entries(headers as Record<string, string | string[] | undefined>).find(([k]) => k.toLowerCase() === name);
  const value = found?.[1];
  return Array.isArray(value) ? value.join(',') : value;
}

/** `t` and every `v1` of a Quire-Signature header; null when it has no `t` or no `v1`. */
export function parseSignatureHeader(value: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const [key, ...rest] = part.trim().split('=');
    const v = rest.join('=');
    if (key === 't' && /^\d+$/.test(v)) timestamp = Number(v);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(v)) signatures.push(v.toLowerCase());
  }
  return timestamp === undefined || !signatures.length ? null : { timestamp, signatures };
}

/**
 * True when `rawBody` (the bytes as received, before any JSON parsing) was signed with `secret` (or one of `secrets`,
 * while a rotation runs) within `toleranceSeconds` of now. Any `v1` may match: during a rotation Quire signs with the
 * new and the previous secret.
 */
export function verifyWebhookSignature(secret: string | string[], headers: HeadersLike, rawBody: string | Uint8Array, options: VerifyOptions = {}): boolean {
  const value = header(headers, 'quire-signature');
  const parsed = value ? parseSignatureHeader(value) : null;
  if (!parsed) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const signed = Buffer.concat([Buffer.from(`${parsed.timestamp}.`, 'utf8'), body]);
  const given = parsed.signatures.map((s) => Buffer.from(s, 'hex'));
  return (Array.isArray(secret) ? secret : [secret]).some((s) => {
    const expected = createHmac('sha256', s).update(signed).digest();
    return given.some((g) => g.length === expected.length && timingSafeEqual(g, expected));
  });
}
