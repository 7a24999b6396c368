// Worker of pdf.unlock: asks qpdf what encryption the file has and whether the password opens it, then decrypts it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PluginError, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import { openPdf, prescreenPdf } from '../../engines/pdf/load.js';
import { qpdfLimits, qpdfMessage, runQpdf, type QpdfLimits } from '../../engines/pdf/qpdf.js';
import type { UnlockParams, UnlockResultBody } from './contract.js';

const LABEL = 'fileId';

/** The part of `qpdf --json=2 --json-key=encrypt` this worker reads. */
interface QpdfEncryption {
  encrypted: boolean;
  userpasswordmatched: boolean;
  ownerpasswordmatched: boolean;
  parameters: { R: number; bits: number; method: string };
}

export async function unlock(input: WorkerInput<UnlockParams>): Promise<WorkerOutput> {
  const file = input.files.find((f) => f.field === 'fileId') ?? input.files[0];
  if (!file) throw new Error('pdf.unlock received no input file.');
  const password = input.params.password ?? '';
  const limits = qpdfLimits(input.settings);
  await prescreenPdf(file.bytes, LABEL);

  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-unlock-'));
  const source = path.join(dir, 'input.pdf');
  const target = path.join(dir, 'unlocked.pdf');
  try {
    await writeFile(source, file.bytes, { mode: 0o600 });
    const info = await readEncryption(source, password, limits, [source]);
    if (!info.encrypted) {
      await rm(dir, { recursive: true, force: true });
      // Nothing to remove: check the file is a sound PDF, then hand it back as it came.
      const { pageCount } = await openPdf(file.bytes, LABEL, { allowEmpty: true });
      const result: UnlockResultBody = { wasEncrypted: false, encryption: null, passwordMatched: null, pageCount };
      return { file: { bytes: new Uint8Array(file.bytes), mimeType: 'application/pdf', filename: 'unlocked.pdf' }, result };
    }
    // preserve: streams are decrypted but not decoded and re-encoded, so a compressed bomb stays compressed.
    const run = await runQpdf(['--decrypt', '--stream-data=preserve', source, target], password, limits, LABEL);
    if (run.code !== 0 && run.code !== 3) {
      throw new PluginError('QPDF_FAILED', `${LABEL} could not be decrypted: ${qpdfMessage(run.stderr, [source, target])}.`, { input: LABEL });
    }
    const bytes = new Uint8Array(await readFile(target));
    // No decrypted copy stays on disk while the checks run: a thread stopped at its deadline skips `finally`.
    await rm(dir, { recursive: true, force: true });
    // The decrypted file goes through the same checks as any input (bombs, nesting, page tree).
    const { pageCount } = await openPdf(bytes, LABEL, { allowEmpty: true });
    const passwordMatched = info.ownerpasswordmatched && password !== '' ? 'owner' : password === '' ? 'none' : 'user';
    const result: UnlockResultBody = { wasEncrypted: true, encryption: encryptionName(info.parameters), passwordMatched, pageCount };
    return { file: { bytes, mimeType: 'application/pdf', filename: 'unlocked.pdf' }, result };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function readEncryption(source: string, password: string, limits: QpdfLimits, paths: string[]): Promise<QpdfEncryption> {
  const run = await runQpdf(['--json=2', '--json-key=encrypt', source], password, limits, LABEL);
  if (run.code === 2 && /invalid password/i.test(run.stderr)) throw await incorrectPassword(source, password, limits);
  if (run.code !== 0 && run.code !== 3) {
    throw new PluginError('PDF_UNREADABLE', `${LABEL} is not a readable PDF: ${qpdfMessage(run.stderr, paths)}.`, { input: LABEL });
  }
  try {
    const parsed = JSON.parse(run.stdout) as { encrypt?: QpdfEncryption };
    if (parsed.encrypt && typeof parsed.encrypt.encrypted === 'boolean') return parsed.encrypt;
  } catch {
    // fall through
  }
  throw new PluginError('QPDF_FAILED', `${LABEL} could not be examined: qpdf did not describe its encryption.`, { input: LABEL });
}

/** "incorrect password", with a hint when the file would open without one (it only restricts permissions). */
async function incorrectPassword(source: string, password: string, limits: QpdfLimits): Promise<PluginError> {
  let hint = 'give its user (open) password or its owner password';
  if (password !== '') {
    const empty = await runQpdf(['--json=2', '--json-key=encrypt', source], '', limits, LABEL);
    if (empty.code === 0 || empty.code === 3) hint = 'the file opens without a password (it only restricts printing, copying or editing): send an empty password to remove the restrictions';
  } else {
    hint = 'the file needs a password to open: give its user (open) password or its owner password';
  }
  return new PluginError('PDF_PASSWORD_INCORRECT', `${LABEL}: incorrect password; ${hint}.`, { input: LABEL });
}

/** `RC4-40`, `RC4-128`, `AES-128`, `AES-256` from qpdf's description of the encryption dictionary. */
function encryptionName(p: QpdfEncryption['parameters']): string {
  if (p.method === 'AESv3' || p.R >= 5) return 'AES-256';
  if (p.method === 'AESv2') return 'AES-128';
  return `RC4-${p.bits || (p.R === 2 ? 40 : 128)}`;
}
