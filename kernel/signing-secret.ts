// The server's HMAC secret for download tokens: from settings, or created once in the data dir.
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

export async function loadSigningSecret(dataDir: string, configured?: string): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  const file = path.join(dataDir, 'signing-secret');
  try {
    const text = (await readFile(file, 'utf8')).trim();
    if (text.length >= 64) return Buffer.from(text, 'hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = randomBytes(32);
  await writeFile(file, secret.toString('hex'), { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
}
