// Download tokens: HMAC-signed, expiring, scoped to one file of one organization.
import { createHmac } from 'node:crypto';
import { signatureMatches } from './hmac-signature.js';

export interface DownloadClaims {
  fileId: string;
  orgId: string;
  /** Unix seconds. */
  expiresAt: number;
}

function mac(secret: Buffer, c: DownloadClaims): Buffer {
  return createHmac('sha256', secret).update(`quire-download.v1\n${c.orgId}\n${c.fileId}\n${c.expiresAt}`).digest();
}

/** Token text: `<orgId>.<expiresAt>.<base64url mac>`; the file id comes from the URL path it is used on. */
export function signDownloadToken(secret: Buffer, c: DownloadClaims): string {
  return `${c.orgId}.${c.expiresAt}.${mac(secret, c).toString('base64url')}`;
}

/** Returns the organization the token grants `fileId` to, or null when it is forged, altered or expired. */
export function verifyDownloadToken(secret: Buffer, token: string, fileId: string, nowSeconds: number): string | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [orgId, exp, sig] = parts as [string, string, string];
  if (!/^\d{1,12}$/.test(exp) || !/^[0-9a-f-]{36}$/.test(orgId)) return null;
  const expiresAt = Number(exp);
  const expected = mac(secret, { orgId, fileId, expiresAt });
  if (!signatureMatches(sig, expected)) return null;
  if (expiresAt < nowSeconds) return null;
  return orgId;
}
