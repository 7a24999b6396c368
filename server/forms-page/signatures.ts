// The public page's own HMACs under the server's signing secret: the CSRF pair (a random cookie and the hidden field
// that must match it) and the receipt that lets a submitter see their record's page.
import { createHmac, randomBytes } from 'node:crypto';
import { signatureMatches } from '../../kernel/hmac-signature.js';

const COOKIE = 'quire_form';

function mac(secret: Buffer, text: string): Buffer {
  return createHmac('sha256', secret).update(text).digest();
}

/** The CSRF cookie's value from a Cookie header, when it looks like one this server set. */
export function csrfCookieOf(header: string | undefined): string | null {
  for (const part of (header ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    const value = rest.join('=');
    if (name === COOKIE && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return null;
}

export function newCsrfCookie(): string {
  return randomBytes(32).toString('base64url');
}

/** The Set-Cookie header: only this form's pages get it back, never from another site's request. */
export function csrfSetCookie(formId: string, value: string, secure: boolean): string {
  return `${COOKIE}=${value}; Path=/f/${encodeURIComponent(formId)}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The hidden `_csrf` field for a cookie: bound to the form, so a page of one form cannot post to another. */
export function csrfField(secret: Buffer, formId: string, cookie: string): string {
  return csrfMac(secret, formId, cookie).toString('base64url');
}

const csrfMac = (secret: Buffer, formId: string, cookie: string) => mac(secret, `form-csrf\n${formId}\n${cookie}`);

export function csrfMatches(secret: Buffer, formId: string, cookie: string | null, field: string | undefined): boolean {
  return !!cookie && !!field && signatureMatches(field, csrfMac(secret, formId, cookie));
}

/** `receipt` of the record's page (issue 22's shared design). */
export function receiptOf(secret: Buffer, recordId: string): string {
  return receiptMac(secret, recordId).toString('base64url');
}

const receiptMac = (secret: Buffer, recordId: string) => mac(secret, `record-receipt\n${recordId}`);

export function receiptMatches(secret: Buffer, recordId: string, given: string | null): boolean {
  return !!given && signatureMatches(given, receiptMac(secret, recordId));
}
