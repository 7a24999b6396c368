// Compares a base64url signature with the expected HMAC in constant time.
import { timingSafeEqual } from 'node:crypto';

/**
 * Only the canonical encoding counts: base64url ignores the low bits of a last character, so a
 * re-encoding check keeps one signature text per MAC.
 */
export function signatureMatches(text: string, expected: Buffer): boolean {
  const given = Buffer.from(text, 'base64url');
  if (given.toString('base64url') !== text) return false;
  return given.length === expected.length && timingSafeEqual(given, expected);
}
