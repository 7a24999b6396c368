// API keys (`ak_`) and other bearer secrets: 43 base62 characters (256 random bits), stored only as a SHA-256 hash.
import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `prefix` + 43 base62 characters carrying 256 random bits. */
export function generateSecret(prefix: string): string {
  let n = BigInt('0x' + randomBytes(32).toString('hex'));
  let out = '';
  while (out.length < 43) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return `${prefix}${out}`;
}

export function generateApiKey(): string {
  return generateSecret('ak_');
}

export const API_KEY_PATTERN = /^ak_[A-Za-z0-9]{32,128}$/;

/**
 * Keys carry 256 bits of entropy, so a fast hash is enough and lets the lookup be by hash;
 * the comparison is the store's exact match on a digest, which leaks nothing about the key.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyPrefix(key: string): string {
  return key.slice(0, 10);
}
