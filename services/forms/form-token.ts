// The link token of a form's public page: an HMAC of the form's id and its current nonce under the server's signing
// secret, never stored. A new nonce (rotate-token) ends every earlier link (the form keeps the retired nonces to say so: 410).
import { createHmac, randomBytes } from 'node:crypto';
import { signatureMatches } from '../../kernel/hmac-signature.js';

/** A fresh nonce for a form (POST /documents/{id}/forms, POST /forms/{id}/rotate-token). */
export function newTokenNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** `base64url(HMAC-SHA256(secret, "form-link\n" + formId + "\n" + nonce))`. */
export function formToken(secret: Buffer, formId: string, nonce: string): string {
  return formMac(secret, formId, nonce).toString('base64url');
}

function formMac(secret: Buffer, formId: string, nonce: string): Buffer {
  return createHmac('sha256', secret).update(`form-link\n${formId}\n${nonce}`).digest();
}

/** Whether `token` is the form's current token (compared in constant time). */
export function verifyFormToken(secret: Buffer, formId: string, nonce: string, token: string | null): boolean {
  return !!token && signatureMatches(token, formMac(secret, formId, nonce));
}

/** The page's address with its token: `${publicUrl}/f/${id}?token=…`. */
export function formPublicUrl(publicUrl: string, secret: Buffer, formId: string, nonce: string): string {
  return `${publicUrl}/f/${formId}?token=${formToken(secret, formId, nonce)}`;
}
